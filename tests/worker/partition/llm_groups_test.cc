// The llm-groups partitioner: one judge request per prompt listing every generation in an order
// shuffled by the seed, the classes put back in generation order, a strict parse with bounded
// re-asks, the short-text rule and the greedy rule over the classes, and the cache in front.
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/noveltybench/partition.h"
#include "common/noveltybench/prompts.h"
#include "common/storage/memory_store.h"
#include "common/text.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/worker/partition/fake_models.h"
#include "tests/worker/partition/test_generations.h"
#include "worker/cache/equivalence_cache.h"
#include "worker/partition/async_partition.h"
#include "worker/partition/equivalence_decider.h"
#include "worker/partition/llm_groups_decider.h"
#include "worker/sim/sim_judge_model.h"

namespace noveltygrid::nbtest {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

const std::string& Template() {
  static const std::string* const kTemplate = new std::string(noveltybench::DefaultNoveltyPrompts().groups_judge);
  return *kTemplate;
}

// The responses a groups prompt lists, in the order shown.
std::vector<std::string> Listed(const std::string& prompt) {
  std::vector<std::string> responses;
  for (std::optional<std::string> r; (r = ExtractLastTag(prompt, absl::StrCat("response", responses.size() + 1)));) {
    responses.push_back(*std::move(r));
  }
  return responses;
}

// The idea a generation of GenerationSets carries: the text after its opener, without its closer;
// short texts are their own idea.
std::string IdeaOf(const std::string& text) {
  for (const char* idea : {"doorstop for", "garden border from", "bed warmer", "paperweight", "succulents"}) {
    if (text.find(idea) != std::string::npos && text.size() > 20) return idea;
  }
  return text;
}

// A judge that groups the listed responses by idea, numbering groups in order of first appearance.
std::string GroupByIdea(const ChatRequest& request, int) {
  std::map<std::string, int> groups;
  std::vector<std::string> labels;
  for (const std::string& r : Listed(request.messages.back().content)) {
    const auto [it, added] = groups.emplace(IdeaOf(r), static_cast<int>(groups.size()) + 1);
    labels.push_back(absl::StrCat(it->second));
  }
  return absl::StrCat("Here you go: <groups>", absl::StrJoin(labels, ", "), "</groups>");
}

class SameIdea : public noveltybench::Equivalence {
 public:
  bool Equivalent(std::string_view, std::string_view a, std::string_view b) const override {
    return IdeaOf(std::string(a)) == IdeaOf(std::string(b));
  }
};

TEST(LlmGroupsDeciderTest, ParsesExactlyOneGroupNumberPerResponse) {
  EXPECT_THAT(*LlmGroupsDecider::ParseGroups("<groups>1, 2, 1</groups>", 3), ElementsAre(1, 2, 1));
  EXPECT_THAT(*LlmGroupsDecider::ParseGroups("<groups>[1,1,3]</groups>", 3), ElementsAre(1, 1, 3));
  EXPECT_THAT(*LlmGroupsDecider::ParseGroups("e.g. <groups>1, 1</groups>; mine: <groups> 2,1 ,2 </groups>", 3),
              ElementsAre(2, 1, 2));
  EXPECT_THAT(LlmGroupsDecider::ParseGroups("1, 2, 1", 3).status().message(), HasSubstr("no <groups>"));
  EXPECT_THAT(LlmGroupsDecider::ParseGroups("<groups>1, 2</groups>", 3).status().message(),
              HasSubstr("2 numbers for 3 responses"));
  EXPECT_THAT(LlmGroupsDecider::ParseGroups("<groups>1, 2, 4</groups>", 3).status().message(),
              HasSubstr("'4' in <groups> is not a group number from 1 to 3"));
  for (const char* bad : {"<groups>0, 1, 2</groups>", "<groups>1, 2.0, 1</groups>", "<groups>1, , 2</groups>",
                          "<groups>1; 2; 1</groups>", "<groups>a, b, a</groups>", "<groups></groups>"}) {
    EXPECT_FALSE(LlmGroupsDecider::ParseGroups(bad, 3).ok()) << bad;
  }
}

TEST(LlmGroupsDeciderTest, TheListOrderIsAPermutationFixedBySeedAndPrompt) {
  ManualExecutor executor;
  FakeChat judge("judge", &executor, GroupByIdea);
  const LlmGroupsDecider a(&judge, Template(), /*seed=*/1, 2);
  const LlmGroupsDecider b(&judge, Template(), /*seed=*/2, 2);
  const std::vector<size_t> order = a.PresentationOrder("p", 10);
  EXPECT_EQ(std::set<size_t>(order.begin(), order.end()).size(), 10u);
  EXPECT_EQ(*std::max_element(order.begin(), order.end()), 9u);
  EXPECT_EQ(order, a.PresentationOrder("p", 10));
  EXPECT_NE(order, b.PresentationOrder("p", 10));
  EXPECT_NE(order, a.PresentationOrder("q", 10));
  std::vector<size_t> identity(10);
  for (size_t i = 0; i < 10; ++i) identity[i] = i;
  EXPECT_NE(order, identity);
}

TEST(LlmGroupsDeciderTest, OneRequestListsTheShuffledGenerationsAndTheClassesComeBackInOrder) {
  ManualExecutor executor;
  FakeChat judge("judge", &executor, GroupByIdea);
  LlmGroupsDecider decider(&judge, Template(), /*seed=*/42, 2);
  int sets_with_several_classes = 0;
  for (const std::vector<std::string>& generations : GenerationSets(20, 10)) {
    judge.requests.clear();
    const PartitionOutcome outcome = Partition(executor, generations, decider);
    ASSERT_TRUE(outcome.partition.ok()) << outcome.partition.status();
    EXPECT_EQ(*outcome.partition, noveltybench::GreedyPartition(kPrompt, generations, SameIdea()));
    sets_with_several_classes += noveltybench::DistinctCount(*outcome.partition) > 1;
    ASSERT_EQ(judge.requests.size(), 1u);
    const ChatRequest& request = judge.requests.front();
    ASSERT_EQ(request.messages.size(), 1u);
    EXPECT_EQ(request.temperature, 0);
    EXPECT_EQ(request.seed, 42u);
    const std::vector<size_t> order = decider.PresentationOrder(kPrompt, generations.size());
    std::vector<std::string> shown;
    for (size_t i : order) shown.push_back(generations[i]);
    noveltybench::NoveltyPrompts prompts;
    prompts.groups_judge = Template();
    EXPECT_EQ(request.messages[0].content, noveltybench::GroupsJudgePrompt(prompts, kPrompt, shown));
    EXPECT_EQ(Listed(request.messages[0].content), shown);
    const CallCounters& calls = outcome.calls.at("judge:judge");
    EXPECT_EQ(calls.requests, 1);
    EXPECT_EQ(calls.prompt_tokens, 10);
  }
  EXPECT_GT(sets_with_several_classes, 10);
}

TEST(LlmGroupsDeciderTest, TheShortTextRuleComesFirstAndSkipsTheCallWhenItDecidesEverything) {
  ManualExecutor executor;
  // A judge that puts everything in one group: only the short-text rule can keep texts apart.
  FakeChat judge("judge", &executor, [](const ChatRequest& request, int) {
    const size_t n = Listed(request.messages.back().content).size();
    return absl::StrCat("<groups>", absl::StrJoin(std::vector<int>(n, 1), ","), "</groups>");
  });
  LlmGroupsDecider decider(&judge, Template(), 0, 2);
  PartitionOutcome outcome = Partition(executor, {"A doorstop", "Paperweight", "doorstop"}, decider);
  ASSERT_TRUE(outcome.partition.ok());
  EXPECT_THAT(*outcome.partition, ElementsAre(0, 1, 0));
  EXPECT_TRUE(judge.requests.empty());
  EXPECT_TRUE(outcome.calls.empty());

  outcome =
      Partition(executor, {"Doorstop.", "Paperweight", "A long answer about using the brick as a doorstop"}, decider);
  ASSERT_TRUE(outcome.partition.ok());
  EXPECT_THAT(*outcome.partition, ElementsAre(0, 1, 0));  // the judge joins the long one; the rule splits the short
  EXPECT_EQ(judge.requests.size(), 1u);

  judge.requests.clear();
  outcome = Partition(executor, {"A single long answer about bricks and doors"}, decider);
  ASSERT_TRUE(outcome.partition.ok());
  EXPECT_THAT(*outcome.partition, ElementsAre(0));
  EXPECT_TRUE(judge.requests.empty());
}

TEST(LlmGroupsDeciderTest, AnUnparseableReplyIsAskedAgainTwiceThenTheErrorIsRecorded) {
  ManualExecutor executor;
  int calls = 0;
  int good_after = 2;
  FakeChat judge("judge", &executor, [&](const ChatRequest& request, int choice) {
    return calls++ < good_after ? std::string("<groups>1, 2</groups>") : GroupByIdea(request, choice);
  });
  LlmGroupsDecider decider(&judge, Template(), 0, 2);
  const std::vector<std::string> generations = GenerationSets(1, 6).front();
  PartitionOutcome outcome = Partition(executor, generations, decider);
  ASSERT_TRUE(outcome.partition.ok()) << outcome.partition.status();
  EXPECT_EQ(outcome.calls["judge:judge"].requests, 3);
  EXPECT_EQ(outcome.calls["judge:judge"].retries, 2);
  EXPECT_EQ(outcome.calls["judge:judge"].errors, 0);

  calls = 0;
  good_after = 3;
  outcome = Partition(executor, generations, decider);
  ASSERT_FALSE(outcome.partition.ok());
  EXPECT_THAT(outcome.partition.status().message(), HasSubstr("grouping the 6 generations failed after 3 attempts"));
  EXPECT_THAT(outcome.partition.status().message(), HasSubstr("2 numbers for 6 responses"));
  EXPECT_THAT(outcome.partition.status().message(), HasSubstr("<groups>1, 2</groups>"));
  EXPECT_EQ(outcome.calls["judge:judge"].requests, 3);
  EXPECT_EQ(outcome.calls["judge:judge"].errors, 1);

  judge.fail = [](const ChatRequest&) { return absl::ResourceExhaustedError("429 after 6 retries"); };
  judge.requests.clear();
  outcome = Partition(executor, generations, decider);
  ASSERT_FALSE(outcome.partition.ok());
  EXPECT_THAT(outcome.partition.status().message(), HasSubstr("429 after 6 retries"));
  EXPECT_EQ(judge.requests.size(), 1u);  // a failed call is not asked again
}

TEST(LlmGroupsDeciderTest, TheCacheAnswersASecondRunUnderItsOwnScope) {
  ManualExecutor executor;
  InMemoryStore store;
  EquivalenceCache cache(&store);
  FakeChat judge("judge", &executor, GroupByIdea);
  LlmGroupsDecider decider(&judge, Template(), 3, 2);
  const std::vector<std::string> generations = GenerationSets(1, 8, /*seed=*/11).front();
  const PartitionOutcome first = Partition(executor, generations, decider, &cache);
  ASSERT_TRUE(first.partition.ok());
  EXPECT_EQ(judge.requests.size(), 1u);
  const PartitionOutcome second = Partition(executor, generations, decider, &cache);
  ASSERT_TRUE(second.partition.ok());
  EXPECT_EQ(*second.partition, *first.partition);
  EXPECT_EQ(judge.requests.size(), 1u);
  EXPECT_EQ(second.calls.at("judge:judge").cache_hits, 1);
  EXPECT_EQ(second.calls.at("judge:judge").requests, 0);
  EXPECT_EQ(decider.CacheScope(kPrompt)->kind, "llm-groups");

  // Another seed lists the generations in another order: its own entry, asked again.
  LlmGroupsDecider reseeded(&judge, Template(), 4, 2);
  ASSERT_TRUE(Partition(executor, generations, reseeded, &cache).partition.ok());
  EXPECT_EQ(judge.requests.size(), 2u);
  // A foreign value under the key is a miss.
  ASSERT_TRUE(store.MultiSet({{EquivalenceCache::GroupsKey(*decider.CacheScope(kPrompt), generations), "1,x"}}).ok());
  EXPECT_FALSE(cache.GetGroups(*decider.CacheScope(kPrompt), generations).has_value());
}

// The simulated judge over HTTP-free plumbing: in the order shown, a response joins the first group
// whose first response its pairwise similarity score exceeds 50 with; the partition is then the greedy
// rule (short-text rule first) over those groups, in generation order.
TEST(LlmGroupsDeciderTest, TheSimulatedJudgeGroupsByItsPairwiseScoresInTheOrderShown) {
  ManualExecutor executor;
  absl::StatusOr<std::unique_ptr<SimJudgeModel>> judge = SimJudgeModel::Create("sim:judge", &executor);
  ASSERT_TRUE(judge.ok());
  LlmGroupsDecider decider(judge->get(), Template(), 0, 2);
  int sets_where_the_order_matters = 0;
  for (const std::vector<std::string>& generations : GenerationSets(8, 10, /*seed=*/5)) {
    const PartitionOutcome outcome = Partition(executor, generations, decider);
    ASSERT_TRUE(outcome.partition.ok()) << outcome.partition.status();
    EXPECT_EQ(outcome.calls.at("judge:sim:judge").requests, 1);
    // The oracle: group ids by the judge's rule over the shown order, kept per generation.
    const std::vector<size_t> order = decider.PresentationOrder(kPrompt, generations.size());
    std::vector<size_t> firsts;                     // generation index of each group's first response
    std::vector<size_t> group(generations.size());  // by generation index
    for (size_t g : order) {
      size_t joined = firsts.size();
      for (size_t c = 0; c < firsts.size() && joined == firsts.size(); ++c) {
        if (SimJudgeModel::ScoreSimilarity(generations[firsts[c]], generations[g]) > 50) joined = c;
      }
      if (joined == firsts.size()) firsts.push_back(g);
      group[g] = joined;
    }
    const std::vector<int> expected =
        noveltybench::GreedyPartitionByIndex(generations, [&](size_t a, size_t b) { return group[a] == group[b]; });
    EXPECT_EQ(*outcome.partition, expected);
    sets_where_the_order_matters +=
        expected != noveltybench::GreedyPartitionByIndex(generations, [&](size_t a, size_t b) {
          return SimJudgeModel::ScoreSimilarity(generations[a], generations[b]) > 50;
        });
  }
  std::printf("sets whose groups depend on the order shown: %d of 8\n", sets_where_the_order_matters);
}

TEST(LlmGroupsDeciderTest, PairwiseDecidersCannotGroupAndThisOneCannotScore) {
  ManualExecutor executor;
  FakeChat judge("judge", &executor, GroupByIdea);
  DeciderOptions options;
  options.partitioner = kPartitionerLlmGroups;
  options.judge = &judge;
  EXPECT_THAT(MakeEquivalenceDecider(options).status().message(), HasSubstr("needs a groups judge template"));
  options.groups_judge = Template();
  absl::StatusOr<std::unique_ptr<EquivalenceDecider>> made = MakeEquivalenceDecider(options);
  ASSERT_TRUE(made.ok()) << made.status();
  EXPECT_TRUE((*made)->classes_at_once());
  EXPECT_EQ((*made)->stats_key(), "judge:judge");
  std::optional<DeciderReply> scored;
  (*made)->Score(kPrompt, {{"a", "b"}}, [&scored](DeciderReply r) { scored = std::move(r); });
  ASSERT_TRUE(scored.has_value());
  EXPECT_FALSE(scored->scores.ok());

  options.partitioner = kPartitionerLlm;
  options.equivalence_judge = noveltybench::DefaultNoveltyPrompts().equivalence_judge;
  made = MakeEquivalenceDecider(options);
  ASSERT_TRUE(made.ok());
  EXPECT_FALSE((*made)->classes_at_once());
  std::optional<GroupsReply> grouped;
  (*made)->Group(kPrompt, {"a", "b"}, [&grouped](GroupsReply r) { grouped = std::move(r); });
  ASSERT_TRUE(grouped.has_value());
  EXPECT_TRUE(absl::IsUnimplemented(grouped->labels.status()));
}

}  // namespace
}  // namespace noveltygrid::nbtest
