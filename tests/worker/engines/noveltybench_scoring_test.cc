// The NoveltyBench unit after generation: the partition (equal to GreedyPartition with the same
// decision), the equivalence cache, quality from a reward model or an LLM judge, and the failures of
// those calls.
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/noveltybench/partition.h"
#include "common/noveltybench/prompts.h"
#include "common/noveltybench/scoring.h"
#include "common/storage/memory_store.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/worker/engines/noveltybench_test_harness.h"
#include "worker/cache/equivalence_cache.h"
#include "worker/engines/noveltybench_engine.h"
#include "worker/sim/sim_chat_model.h"
#include "worker/sim/sim_judge_model.h"
#include "worker/sim/sim_scorers.h"
#include "worker/sim/sim_scoring.h"

namespace noveltygrid::nbtest {
namespace {

// ---- partition, cache, quality ----

// `o` failed in its scoring with an error holding `error`, after one failed `call` (e.g. "judge:judge"):
// it keeps its five generations and has no outcome.
void ExpectScoringError(Outcome o, const std::string& error, const std::string& call) {
  EXPECT_EQ(o.result.stop_reason, kStopError);
  EXPECT_THAT(o.result.error, HasSubstr(error));
  EXPECT_EQ(o.result.answers.size(), 5u);
  EXPECT_FALSE(o.result.novelty.has_value());
  EXPECT_EQ(o.calls[call].errors, 1);
}

TEST(NoveltyEngineTest, PartitionIsGreedyPartitionWithTheSameDecision) {
  Harness h;
  h.settings.set_k(10);
  h.settings.set_ask_n(false);
  Outcome o = h.Run();
  ASSERT_EQ(o.result.stop_reason, kStopComplete) << o.result.error;
  const std::vector<int> expected =
      noveltybench::GreedyPartition(kPrompt, Texts(o.result.answers), RuleEquivalence(SameIdea, 0.102));
  EXPECT_EQ(o.result.novelty->partition, expected);
  EXPECT_GT(noveltybench::DistinctCount(expected), 1);
  EXPECT_LT(noveltybench::DistinctCount(expected), 10);
  EXPECT_EQ(o.calls["classify:clf"].requests, static_cast<int64_t>(h.classifier.batches.size()));
}

TEST(NoveltyEngineTest, SimulatedModelsEndToEnd) {
  ManualExecutor executor;
  absl::StatusOr<std::unique_ptr<SimChatModel>> generator = SimChatModel::Create("sim:steady", &executor);
  ASSERT_TRUE(generator.ok());
  SimPairClassifier classifier(&executor);
  SimRewardModel reward(&executor);
  NoveltySettings settings = DefaultNoveltySettings();  // the defaults: k = 10, classifier 0.102, reward quality
  UnitSpec unit;
  unit.id = "u-sim";
  unit.model = "sim:steady";
  unit.temperature = 1.0;
  unit.item_id = "brick";
  unit.item_text = kPrompt;
  unit.mode = kModeStandard;
  NoveltyModels models;
  models.generator = generator->get();
  models.classifier = &classifier;
  models.reward = &reward;
  std::optional<UnitResult> result;
  RunNoveltyUnit(settings, models, unit, {}, nullptr, [&result](UnitResult r, CallStats) { result = std::move(r); });
  executor.RunAll();
  ASSERT_TRUE(result.has_value());
  ASSERT_EQ(result->stop_reason, kStopComplete) << result->error;
  ASSERT_EQ(result->answers.size(), 10u);
  const std::vector<std::string> texts = Texts(result->answers);
  const std::vector<int> expected =
      noveltybench::GreedyPartition(kPrompt, texts, RuleEquivalence(SimSameIdeaProbability, 0.102));
  EXPECT_EQ(result->novelty->partition, expected);
  const std::vector<bool> openers = noveltybench::ClassOpeners(expected);
  for (size_t i = 0; i < texts.size(); ++i) {
    if (openers[i]) {
      const double r = SimReward(kPrompt, texts[i]);
      EXPECT_EQ(result->novelty->reward[i], r);
      EXPECT_EQ(result->novelty->quality[i], noveltybench::QualityFromReward(r));
    } else {
      EXPECT_FALSE(result->novelty->quality[i].has_value());
      EXPECT_FALSE(result->novelty->reward[i].has_value());
    }
  }
}

// Replies on a thread pool arrive in any order and on several threads at once; samples are still
// reported in order, one at a time, and the records equal those of the single-threaded run.
TEST(NoveltyEngineTest, CachedDecisionsSaveTheClassifierOnASecondRun) {
  InMemoryStore store;
  EquivalenceCache cache(&store);
  Harness first;
  first.settings.set_k(10);
  first.models.cache = &cache;
  Outcome a = first.Run();
  ASSERT_EQ(a.result.stop_reason, kStopComplete) << a.result.error;
  ASSERT_FALSE(first.classifier.batches.empty());

  Harness second;
  second.settings.set_k(10);
  second.models.cache = &cache;
  Outcome b = second.Run();
  ASSERT_EQ(b.result.stop_reason, kStopComplete) << b.result.error;
  EXPECT_TRUE(second.classifier.batches.empty()) << "every decision was cached";
  EXPECT_EQ(b.calls["classify:clf"].requests, 0);
  EXPECT_GT(b.calls["classify:clf"].cache_hits, 0);
  EXPECT_EQ(b.result.novelty->partition, a.result.novelty->partition);
}

TEST(NoveltyEngineTest, RewardQualityUsesTheReferenceBucketsForClassOpenersOnly) {
  Harness h;
  h.settings.set_k(10);
  // Rewards by idea: A on a bucket edge (-6.0 -> 3), B just above it (-5.99 -> 4), C high (10).
  FakeReward reward("rm", &h.executor, [](const std::string&, const std::string& response) {
    const char idea = response[5];
    return idea == 'A' ? -6.0 : idea == 'B' ? -5.99 : 0.5;
  });
  h.models.reward = &reward;
  Outcome o = h.Run();
  ASSERT_EQ(o.result.stop_reason, kStopComplete) << o.result.error;
  const NoveltyOutcome& n = *o.result.novelty;
  const std::vector<bool> openers = noveltybench::ClassOpeners(n.partition);
  ASSERT_EQ(reward.batches.size(), 1u);
  EXPECT_EQ(static_cast<int>(reward.batches[0].size()), noveltybench::DistinctCount(n.partition));
  size_t item = 0;
  for (size_t i = 0; i < 10; ++i) {
    if (!openers[i]) {
      EXPECT_FALSE(n.quality[i].has_value());
      EXPECT_FALSE(n.reward[i].has_value());
      continue;
    }
    EXPECT_EQ(reward.batches[0][item++].response, o.result.answers[i].answer);
    const char idea = o.result.answers[i].answer[5];
    EXPECT_EQ(n.quality[i], idea == 'A' ? 3 : idea == 'B' ? 4 : 10) << o.result.answers[i].answer;
    EXPECT_EQ(n.reward[i], idea == 'A' ? -6.0 : idea == 'B' ? -5.99 : 0.5);
  }
  EXPECT_EQ(o.calls["reward:rm"].requests, 1);
}

TEST(NoveltyEngineTest, LlmQualityIsTheJudgesScoreWithZeroCountedAsOne) {
  Harness h;
  h.settings.set_quality("llm");
  FakeChat judge("judge", &h.executor, [](const ChatRequest& r, int) {
    return r.messages[0].content.find("<answer>idea A") != std::string::npos
               ? "<coherence_score>0</coherence_score>"
               : "ok <coherence_score>7</coherence_score>";
  });
  h.models.reward = nullptr;
  h.models.quality_judge = &judge;
  Outcome o = h.Run();
  ASSERT_EQ(o.result.stop_reason, kStopComplete) << o.result.error;
  const NoveltyOutcome& n = *o.result.novelty;
  const std::vector<bool> openers = noveltybench::ClassOpeners(n.partition);
  EXPECT_EQ(static_cast<int>(judge.requests.size()), noveltybench::DistinctCount(n.partition));
  for (size_t i = 0; i < openers.size(); ++i) {
    EXPECT_FALSE(n.reward[i].has_value());
    if (!openers[i]) {
      EXPECT_FALSE(n.quality[i].has_value());
      continue;
    }
    EXPECT_EQ(n.quality[i], o.result.answers[i].answer[5] == 'A' ? 1 : 7);
  }
  const ChatRequest& first = judge.requests[0];
  EXPECT_EQ(first.messages[0].content, noveltybench::QualityJudgePrompt(noveltybench::DefaultNoveltyPrompts(), kPrompt,
                                                                        o.result.answers[0].answer));
  EXPECT_EQ(first.temperature, 0);
  EXPECT_EQ(o.calls["judge:judge"].requests, static_cast<int64_t>(judge.requests.size()));
}

TEST(NoveltyEngineTest, LlmQualityWithTheSimulatedJudgeAndDefaultWording) {
  Harness h;
  h.settings.set_quality("llm");
  absl::StatusOr<std::unique_ptr<SimJudgeModel>> judge = SimJudgeModel::Create("sim:judge", &h.executor);
  ASSERT_TRUE(judge.ok());
  h.models.reward = nullptr;
  h.models.quality_judge = judge->get();
  Outcome o = h.Run();
  ASSERT_EQ(o.result.stop_reason, kStopComplete) << o.result.error;
  for (const std::optional<int>& q : o.result.novelty->quality) {
    if (q.has_value()) {
      EXPECT_GE(*q, 1);
      EXPECT_LE(*q, 10);
    }
  }
}

TEST(NoveltyEngineTest, AnUnparseableQualityReplyIsAskedTwiceMoreThenFails) {
  for (int bad_replies : {2, 3}) {
    Harness h;
    h.settings.set_quality("llm");
    int replies = 0;
    FakeChat judge("judge", &h.executor, [&replies, bad_replies](const ChatRequest&, int) {
      return replies++ < bad_replies ? std::string("Quite good.") : "<coherence_score>8</coherence_score>";
    });
    // One class only, so the replies above belong to one judged generation.
    FakeClassifier same("clf", &h.executor, [](const std::string&, const std::string&) { return 1.0; });
    h.models.classifier = &same;
    h.models.reward = nullptr;
    h.models.quality_judge = &judge;
    Outcome o = h.Run();
    EXPECT_EQ(o.calls["judge:judge"].requests, 3) << bad_replies;
    EXPECT_EQ(o.calls["judge:judge"].retries, 2) << bad_replies;
    if (bad_replies == 2) {
      ASSERT_EQ(o.result.stop_reason, kStopComplete) << o.result.error;
      EXPECT_EQ(o.result.novelty->quality[0], 8);
    } else {
      ExpectScoringError(o, "quality by judge: generation 1 after 3 attempts", "judge:judge");
      EXPECT_THAT(o.result.error, HasSubstr("Quite good."));
    }
  }
}

TEST(NoveltyEngineTest, LlmGroupsPartitionsWithOneJudgeCallAndItsOwnWording) {
  Harness h;
  h.settings.set_partitioner(kPartitionerLlmGroups);
  h.settings.set_groups_prompt("Group for {prompt}: {responses} -> <groups>");
  absl::StatusOr<std::unique_ptr<SimJudgeModel>> judge = SimJudgeModel::Create("sim:judge", &h.executor);
  ASSERT_TRUE(judge.ok());
  h.models.classifier = nullptr;
  h.models.equivalence_judge = judge->get();
  Outcome o = h.Run();
  ASSERT_EQ(o.result.stop_reason, kStopComplete) << o.result.error;
  EXPECT_EQ(o.calls["judge:sim:judge"].requests, 1);
  EXPECT_EQ(o.calls["judge:sim:judge"].errors, 0);
  EXPECT_TRUE(noveltybench::ValidatePartition(o.result.novelty->partition).ok());

  Harness garbled;
  garbled.settings.set_partitioner(kPartitionerLlmGroups);
  FakeChat says_nothing("judge", &garbled.executor, [](const ChatRequest& r, int) {
    EXPECT_THAT(r.messages[0].content, HasSubstr("<response5>"));  // the default wording, all five listed
    return std::string("They all look alike to me.");
  });
  garbled.models.classifier = nullptr;
  garbled.models.equivalence_judge = &says_nothing;
  ExpectScoringError(garbled.Run(), "partition by judge: grouping the 5 generations failed after 3 attempts",
                     "judge:judge");
  EXPECT_EQ(says_nothing.requests.size(), 3u);
}

// A failing classifier fails the partition (and no quality is asked for), a failing reward model the
// quality.
TEST(NoveltyEngineTest, AScorerErrorIsAPartitionOrAQualityError) {
  Harness clf;
  clf.classifier.failure = absl::InternalError("reply has 2 entries for 3 pairs");
  ExpectScoringError(clf.Run(), "partition by clf: reply has 2 entries for 3 pairs", "classify:clf");
  EXPECT_TRUE(clf.reward.batches.empty());

  Harness rm;
  rm.reward.failure = absl::DeadlineExceededError("reward endpoint timed out");
  const Outcome o = rm.Run();
  ExpectScoringError(o, "quality by rm: ", "reward:rm");
  EXPECT_THAT(o.result.error, HasSubstr("reward endpoint timed out"));
}

}  // namespace
}  // namespace noveltygrid::nbtest
