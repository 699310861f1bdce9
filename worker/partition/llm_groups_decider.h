// LlmGroupsDecider ("llm-groups"): one judge request per prompt shows all k generations and asks for
// the class of each -- 1 call where the pairwise llm decider makes up to k(k-1)/2.
//
//   order    the generations are listed in an order shuffled by the seed and the prompt (a judge
//            that favours early or late positions then does so at random), and the classes it
//            names are put back in generation order.
//   reply    the LAST <groups>...</groups> must hold exactly k whole numbers 1..k separated by
//            commas (optionally in [ ]); anything else is asked again, up to `judge_retries` times,
//            then the partition fails with the judge's last reply quoted.
//   request  template noveltybench::NoveltyPrompts::groups_judge, temperature 0, the seed.
//
// The driver (async_partition.h) applies the short-text rule first and the greedy rule over the
// classes, caches the classes, and skips the call when the short-text rule decides every pair.
// Thread-safe: immutable. The judge must outlive every call in flight.
#ifndef NOVELTYGRID_WORKER_PARTITION_LLM_GROUPS_DECIDER_H_
#define NOVELTYGRID_WORKER_PARTITION_LLM_GROUPS_DECIDER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "common/noveltybench/prompts.h"
#include "worker/models/model.h"
#include "worker/partition/equivalence_decider.h"

namespace noveltygrid {

class LlmGroupsDecider : public EquivalenceDecider {
 public:
  // `judge` is not owned. `groups_template` has the placeholders {prompt} and {responses}.
  LlmGroupsDecider(ChatModel* judge, std::string groups_template, uint64_t seed, int judge_retries);

  std::optional<EquivalenceScope> CacheScope(std::string_view prompt) const override;
  bool classes_at_once() const override { return true; }
  void Group(const std::string& prompt, std::vector<std::string> generations, GroupsCallback done) override;
  // Delivers Internal: this decider is asked through Group.
  void Score(const std::string& prompt, std::vector<TextPair> pairs, DeciderCallback done) override;

  // The order the k generations are listed in: order[j] is the generation shown j-th.
  std::vector<size_t> PresentationOrder(std::string_view prompt, size_t k) const;

  // The k group numbers of the LAST <groups> tag; InvalidArgument saying what is wrong otherwise.
  static absl::StatusOr<std::vector<int>> ParseGroups(const std::string& reply, size_t k);

 private:
  ChatModel* const judge_;
  const noveltybench::NoveltyPrompts prompts_;  // only groups_judge is used
  const uint64_t seed_;
  const int judge_retries_;
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_WORKER_PARTITION_LLM_GROUPS_DECIDER_H_
