// EquivalenceDecider: the model-backed half of a NoveltyBench partitioner -- given pairs (a class's
// first member, a later generation), the raw "same idea?" score of each, and the rule that turns a
// score into a decision (score > threshold). The short-text rule, the greedy order and the cache
// are the driver's (async_partition.h), so every decider gets them the same way.
//
//   kind        role      score                                         model
//   classifier  classify  P(same), each text cut to its first 128 words  PairClassifier
//   embedding   embed     cosine of the two embeddings                  Embedder
//   llm         judge     the judge's <similarity_score> / 100          ChatModel
//   unigram     -         ROUGE-1 F (common/noveltybench/unigram.h)     none: computed in process
//
// A whole-set decider (llm-groups: one judge call names the class of every generation) answers
// Group instead of Score; classes_at_once() tells the driver which to call. Its cache entry is the
// classes of the whole set, under the same scope.
//
// Thread-safe. Score's callback runs on the model's executor, or inline before Score returns for a
// decider that needs no model call (unigram; embeddings already held).
#ifndef NOVELTYGRID_WORKER_PARTITION_EQUIVALENCE_DECIDER_H_
#define NOVELTYGRID_WORKER_PARTITION_EQUIVALENCE_DECIDER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "absl/status/statusor.h"
#include "common/records.h"
#include "worker/cache/equivalence_cache.h"
#include "worker/models/model.h"
#include "worker/scorers/scorers.h"

namespace noveltygrid {

// Raw scores for one batch of pairs, and what asking for them cost.
struct DeciderReply {
  absl::StatusOr<std::vector<double>> scores;  // one per pair, in input order
  CallCounters calls;                          // requests, retries, errors and tokens of this batch (zero for unigram)
};
using DeciderCallback = absl::AnyInvocable<void(DeciderReply) &&>;

// The classes of one prompt's generations, from a whole-set decider, and what asking cost.
struct GroupsReply {
  absl::StatusOr<std::vector<int>> labels;  // one per generation, in input order; equal labels: one class
  CallCounters calls;
};
using GroupsCallback = absl::AnyInvocable<void(GroupsReply) &&>;

class EquivalenceDecider {
 public:
  virtual ~EquivalenceDecider() = default;

  const std::string& kind() const { return kind_; }
  // Who decides, for messages: the model id, or the kind when there is no model.
  const std::string& name() const { return model_.empty() ? kind_ : model_; }
  // The CallStats key of its calls ("classify:MODEL"); empty when it makes none.
  std::string stats_key() const;
  double threshold() const { return threshold_; }

  // The model as cache scopes name it: its id, plus a hash of what the endpoint changes about its
  // answers (the provider's model name, extra body fields) when that is set.
  std::string cache_model() const;
  void set_model_identity(std::string identity) { model_identity_ = std::move(identity); }

  // The decision rule on a raw score.
  bool Equivalent(double score) const { return score > threshold_; }

  // Where scores of pairs answering `prompt` are cached; nullopt when caching is not worth a round
  // trip (computed in process).
  virtual std::optional<EquivalenceScope> CacheScope(std::string_view prompt) const = 0;

  // Raw scores of the (first, candidate) pairs, both answers to `prompt`. `pairs` is non-empty.
  virtual void Score(const std::string& prompt, std::vector<TextPair> pairs, DeciderCallback done) = 0;

  // True for a whole-set decider: the driver calls Group once per prompt, never Score.
  virtual bool classes_at_once() const { return false; }
  // The class of each of `generations` (at least two), all answers to `prompt`. A pairwise decider
  // delivers Unimplemented.
  virtual void Group(const std::string& prompt, std::vector<std::string> generations, GroupsCallback done);

 protected:
  EquivalenceDecider(std::string kind, std::string role, std::string model, double threshold)
      : kind_(std::move(kind)), role_(std::move(role)), model_(std::move(model)), threshold_(threshold) {}

  // The scope of a judge's answers: they depend on its template, the prompt and the seed it is sent.
  EquivalenceScope JudgeScope(std::string_view judge_template, std::string_view prompt, uint64_t seed) const;

 private:
  const std::string kind_;
  const std::string role_;   // "classify", "embed", "judge"; empty without a model
  const std::string model_;  // the model id; empty without a model
  const double threshold_;
  std::string model_identity_;  // set once, before the first Score
};

// What MakeEquivalenceDecider needs: the partitioner's settings and its model (only the one the
// partitioner uses must be set; none are owned, all must outlive the decider).
struct DeciderOptions {
  std::string partitioner;        // "classifier", "embedding", "llm", "llm-groups" or "unigram"
  double threshold = 0;           // unused by llm-groups
  std::string equivalence_judge;  // llm: the judge template (noveltybench::NoveltyPrompts)
  std::string groups_judge;       // llm-groups: the judge template
  uint64_t seed = 0;              // llm, llm-groups: sent with every judge request; orders llm-groups' list
  // What besides the model id decides its answers (the endpoint's remote model and extra body);
  // empty for an in-process model or a plain endpoint. Part of the cache scope.
  std::string model_identity;
  int judge_retries = 2;  // llm, llm-groups: re-asks of an unparseable reply before failing
  PairClassifier* classifier = nullptr;
  Embedder* embedder = nullptr;
  ChatModel* judge = nullptr;
};

// InvalidArgument for an unknown partitioner, a threshold that is not a finite number, or a missing
// model, each naming what is wrong.
absl::StatusOr<std::unique_ptr<EquivalenceDecider>> MakeEquivalenceDecider(const DeciderOptions& options);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_WORKER_PARTITION_EQUIVALENCE_DECIDER_H_
