#include "worker/partition/equivalence_decider.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "common/hashing.h"
#include "worker/partition/classifier_decider.h"
#include "worker/partition/embedding_decider.h"
#include "worker/partition/llm_decider.h"
#include "worker/partition/unigram_decider.h"

namespace noveltygrid {

std::string EquivalenceDecider::stats_key() const {
  return role_.empty() ? std::string() : absl::StrCat(role_, ":", model_);
}

std::string EquivalenceDecider::cache_model() const {
  if (model_identity_.empty()) return name();
  return absl::StrCat(name(), "@", HexId(StableHasher().Add(model_identity_).Finish()));
}

namespace {

absl::StatusOr<std::unique_ptr<EquivalenceDecider>> MakeDecider(const DeciderOptions& options) {
  const std::string& kind = options.partitioner;
  if (!std::isfinite(options.threshold)) {
    return absl::InvalidArgumentError(
        absl::StrCat("partitioner '", kind, "': the threshold ", options.threshold, " is not a finite number"));
  }
  auto missing = [&kind](const char* what) {
    return absl::InvalidArgumentError(absl::StrCat("partitioner '", kind, "' needs ", what, "; none was given"));
  };
  if (kind == kPartitionerClassifier) {
    if (options.classifier == nullptr) return missing("a pair classifier");
    return std::unique_ptr<EquivalenceDecider>(new ClassifierDecider(options.classifier, options.threshold));
  }
  if (kind == kPartitionerEmbedding) {
    if (options.embedder == nullptr) return missing("an embedder");
    return std::unique_ptr<EquivalenceDecider>(new EmbeddingDecider(options.embedder, options.threshold));
  }
  if (kind == kPartitionerLlm) {
    if (options.judge == nullptr) return missing("a judge model");
    if (options.equivalence_judge.empty()) return missing("an equivalence judge template");
    return std::unique_ptr<EquivalenceDecider>(new LlmDecider(options.judge, options.equivalence_judge,
                                                              options.threshold, options.seed, options.judge_retries));
  }
  if (kind == kPartitionerUnigram) return std::unique_ptr<EquivalenceDecider>(new UnigramDecider(options.threshold));
  return absl::InvalidArgumentError(
      absl::StrCat("unknown partitioner '", kind, "'; expected classifier, unigram, embedding or llm"));
}

}  // namespace

absl::StatusOr<std::unique_ptr<EquivalenceDecider>> MakeEquivalenceDecider(const DeciderOptions& options) {
  absl::StatusOr<std::unique_ptr<EquivalenceDecider>> decider = MakeDecider(options);
  if (decider.ok()) (*decider)->set_model_identity(options.model_identity);
  return decider;
}

}  // namespace noveltygrid
