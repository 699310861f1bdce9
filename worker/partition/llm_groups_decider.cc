#include "worker/partition/llm_groups_decider.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/hashing.h"
#include "common/text.h"
#include "worker/partition/judge_call.h"

namespace noveltygrid {

LlmGroupsDecider::LlmGroupsDecider(ChatModel* judge, std::string groups_template, uint64_t seed, int judge_retries)
    : EquivalenceDecider(kPartitionerLlmGroups, "judge", judge->id(), /*threshold=*/0),
      judge_(judge),
      prompts_([&groups_template] {
        noveltybench::NoveltyPrompts prompts;
        prompts.groups_judge = std::move(groups_template);
        return prompts;
      }()),
      seed_(seed),
      judge_retries_(judge_retries) {}

std::optional<EquivalenceScope> LlmGroupsDecider::CacheScope(std::string_view prompt) const {
  return JudgeScope(prompts_.groups_judge, prompt, seed_);
}

std::vector<size_t> LlmGroupsDecider::PresentationOrder(std::string_view prompt, size_t k) const {
  std::vector<std::pair<uint64_t, size_t>> keyed;
  keyed.reserve(k);
  for (size_t i = 0; i < k; ++i) {
    keyed.emplace_back(StableHasher().Add("llm-groups-order").Add(seed_).Add(prompt).Add(uint64_t{i}).Finish(), i);
  }
  std::sort(keyed.begin(), keyed.end());
  std::vector<size_t> order;
  order.reserve(k);
  for (const auto& [key, index] : keyed) order.push_back(index);
  return order;
}

absl::StatusOr<std::vector<int>> LlmGroupsDecider::ParseGroups(const std::string& reply, size_t k) {
  const std::optional<std::string> body = ExtractLastTag(reply, "groups");
  if (!body.has_value()) return absl::InvalidArgumentError("no <groups></groups> tags");
  absl::string_view list(body->data(), body->size());
  if (list.size() >= 2 && list.front() == '[' && list.back() == ']') list = list.substr(1, list.size() - 2);
  std::vector<int> labels;
  for (absl::string_view piece : absl::StrSplit(list, ',')) {
    const std::string_view item(piece.data(), piece.size());
    const std::optional<long long> value = ParsePythonInt(item);
    if (!value.has_value() || *value < 1 || *value > static_cast<long long>(k)) {
      return absl::InvalidArgumentError(
          absl::StrCat("'", std::string(StripWhitespace(item)), "' in <groups> is not a group number from 1 to ", k));
    }
    labels.push_back(static_cast<int>(*value));
  }
  if (labels.size() != k) {
    return absl::InvalidArgumentError(absl::StrCat("<groups> holds ", labels.size(), " numbers for ", k, " responses"));
  }
  return labels;
}

void LlmGroupsDecider::Group(const std::string& prompt, std::vector<std::string> generations, GroupsCallback done) {
  const size_t k = generations.size();
  std::vector<size_t> order = PresentationOrder(prompt, k);
  std::vector<std::string> shown;
  shown.reserve(k);
  for (size_t index : order) shown.push_back(std::move(generations[index]));
  auto labels = std::make_shared<std::vector<int>>();
  AskJudge(
      judge_, noveltybench::GroupsJudgePrompt(prompts_, prompt, shown), seed_, judge_retries_,
      [labels, k](const std::string& reply) {
        absl::StatusOr<std::vector<int>> parsed = ParseGroups(reply, k);
        if (!parsed.ok()) return parsed.status();
        *labels = *std::move(parsed);
        return absl::OkStatus();
      },
      [labels, order = std::move(order), k, done = std::move(done)](JudgeOutcome outcome) mutable {
        GroupsReply reply;
        reply.calls = outcome.calls;
        if (!outcome.status.ok()) {
          reply.labels = absl::Status(outcome.status.code(),
                                      absl::StrCat("grouping the ", k, " generations ", outcome.status.message()));
        } else {
          std::vector<int> in_generation_order(k);
          for (size_t j = 0; j < k; ++j) in_generation_order[order[j]] = (*labels)[j];
          reply.labels = std::move(in_generation_order);
        }
        std::move(done)(std::move(reply));
      });
}

void LlmGroupsDecider::Score(const std::string&, std::vector<TextPair>, DeciderCallback done) {
  std::move(done)(DeciderReply{
      absl::InternalError("partitioner 'llm-groups' classes a whole set at once (Group); it does not score pairs"),
      CallCounters{}});
}

}  // namespace noveltygrid
