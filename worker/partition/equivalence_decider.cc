#include "worker/partition/equivalence_decider.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "common/hashing.h"
#include "worker/partition/classifier_decider.h"
#include "worker/partition/embedding_decider.h"
#include "worker/partition/llm_decider.h"
#include "worker/partition/llm_groups_decider.h"
#include "worker/partition/unigram_decider.h"

namespace noveltygrid {

std::string EquivalenceDecider::stats_key() const {
  return role_.empty() ? std::string() : absl::StrCat(role_, ":", model_);
}

std::string EquivalenceDecider::cache_model() const {
  if (model_identity_.empty()) return name();
  return absl::StrCat(name(), "@", HexId(StableHasher().Add(model_identity_).Finish()));
}

EquivalenceScope EquivalenceDecider::JudgeScope(std::string_view judge_template, std::string_view prompt,
                                                uint64_t seed) const {
  return EquivalenceScope{kind(), cache_model(),
                          HexId(StableHasher().Add(judge_template).Add(prompt).Add(seed).Finish())};
}

void EquivalenceDecider::Group(const std::string&, std::vector<std::string>, GroupsCallback done) {
  std::move(done)(GroupsReply{
      absl::UnimplementedError(absl::StrCat("partitioner '", kind_, "' scores pairs; it cannot class a whole set")),
      CallCounters{}});
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
  if (kind == kPartitionerLlmGroups) {
    if (options.judge == nullptr) return missing("a judge model");
    if (options.groups_judge.empty()) return missing("a groups judge template");
    return std::unique_ptr<EquivalenceDecider>(
        new LlmGroupsDecider(options.judge, options.groups_judge, options.seed, options.judge_retries));
  }
  if (kind == kPartitionerUnigram) return std::unique_ptr<EquivalenceDecider>(new UnigramDecider(options.threshold));
  return absl::InvalidArgumentError(
      absl::StrCat("unknown partitioner '", kind, "'; expected classifier, unigram, embedding, llm or llm-groups"));
}

}  // namespace

absl::StatusOr<std::unique_ptr<EquivalenceDecider>> MakeEquivalenceDecider(const DeciderOptions& options) {
  absl::StatusOr<std::unique_ptr<EquivalenceDecider>> decider = MakeDecider(options);
  if (decider.ok()) (*decider)->set_model_identity(options.model_identity);
  return decider;
}

}  // namespace noveltygrid
