// The partitioners by name, as `repartition --partitioner NAME` and sweep configs spell them:
//
//   unigram     ROUGE-1 F > threshold (default 0.458); offline, built here
//   classifier  the reference's pair classifier (P(same) > 0.102) -- needs a model endpoint
//   embedding   cosine of embeddings > threshold                   -- needs a model endpoint
//   llm         an LLM judge, pair by pair                          -- needs a model endpoint
//   llm-groups  an LLM judge classes all k generations in one call  -- needs a model endpoint
//
// Only the offline one can be built without an endpoint; the others come from a sweep config.
#ifndef NOVELTYGRID_COMMON_NOVELTYBENCH_PARTITIONERS_H_
#define NOVELTYGRID_COMMON_NOVELTYBENCH_PARTITIONERS_H_

#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "common/noveltybench/partition.h"

namespace noveltygrid::noveltybench {

// Whether the partitioner asks a model (every one but unigram), and whether that model is a chat judge.
bool PartitionerNeedsModel(const std::string& name);
bool PartitionerUsesJudge(const std::string& name);

struct OfflinePartitioner {
  std::string name;
  double threshold = 0;
  std::unique_ptr<Equivalence> equivalence;
};

// `threshold` nullopt takes the partitioner's default. InvalidArgument for an unknown name or a
// threshold outside [0, 1]; Unimplemented, saying why, for a partitioner that needs a model endpoint.
absl::StatusOr<OfflinePartitioner> MakeOfflinePartitioner(const std::string& name, std::optional<double> threshold);

}  // namespace noveltygrid::noveltybench

#endif  // NOVELTYGRID_COMMON_NOVELTYBENCH_PARTITIONERS_H_
