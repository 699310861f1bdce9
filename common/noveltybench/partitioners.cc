#include "common/noveltybench/partitioners.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "common/noveltybench/unigram.h"
#include "common/records.h"

namespace noveltygrid::noveltybench {

bool PartitionerUsesJudge(const std::string& name) { return name == kPartitionerLlm || name == kPartitionerLlmGroups; }

bool PartitionerNeedsModel(const std::string& name) {
  return name == kPartitionerClassifier || name == kPartitionerEmbedding || PartitionerUsesJudge(name);
}

absl::StatusOr<OfflinePartitioner> MakeOfflinePartitioner(const std::string& name, std::optional<double> threshold) {
  if (PartitionerNeedsModel(name)) {
    return absl::UnimplementedError(
        absl::StrCat("partitioner '", name,
                     "' needs a model endpoint; it is available from a sweep config (issue 6), "
                     "not offline. Offline partitioners: unigram"));
  }
  if (name != kPartitionerUnigram) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown partitioner '", name, "'; expected unigram, classifier, embedding, llm or llm-groups"));
  }
  const double t = threshold.value_or(kDefaultUnigramThreshold);
  if (!std::isfinite(t) || t < 0 || t > 1) {
    return absl::InvalidArgumentError(absl::StrCat("threshold ", t, " for unigram is outside [0, 1]"));
  }
  return OfflinePartitioner{name, t, std::make_unique<UnigramEquivalence>(t)};
}

}  // namespace noveltygrid::noveltybench
