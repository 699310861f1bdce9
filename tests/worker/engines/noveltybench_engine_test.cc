// The NoveltyBench unit's generation phase against a recording fake generator (and the simulated
// models): the request shapes of every sampling mode, n = k against k requests, seeds, resuming from a
// checkpoint, concurrent replies, generation failures and cancellation.
#include "worker/engines/noveltybench_engine.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "common/executor.h"
#include "common/noveltybench/prompts.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/worker/engines/noveltybench_test_harness.h"
#include "worker/sim/sim_chat_model.h"
#include "worker/sim/sim_judge_model.h"
#include "worker/sim/sim_scorers.h"

namespace noveltygrid::nbtest {
namespace {

// ---- request shapes ----

TEST(NoveltyEngineTest, StandardAsksOnceForKChoices) {
  Harness h;
  Outcome o = h.Run();
  ASSERT_EQ(o.result.stop_reason, kStopComplete) << o.result.error;
  ASSERT_EQ(h.generator.requests.size(), 1u);
  const ChatRequest& request = h.generator.requests[0];
  EXPECT_EQ(request.n, 5);
  EXPECT_EQ(request.seed, 42u);
  EXPECT_DOUBLE_EQ(request.temperature, 0.9);
  EXPECT_EQ(request.max_tokens, 300);
  ASSERT_EQ(request.messages.size(), 1u);
  EXPECT_EQ(request.messages[0].role, "user");
  EXPECT_EQ(request.messages[0].content, kPrompt);
  ASSERT_EQ(o.result.answers.size(), 5u);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(o.result.answers[i].answer_num, i + 1);
    EXPECT_EQ(o.result.answers[i].answer, Generate(request, i));
  }
  ASSERT_EQ(h.samples.size(), 5u);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(h.samples[i].answer_num, i + 1);
  EXPECT_EQ(o.calls["generate:gen"].requests, 1);
  EXPECT_EQ(o.calls["generate:gen"].prompt_tokens, 10);
  EXPECT_EQ(o.calls["generate:gen"].completion_tokens, 25);
}

TEST(NoveltyEngineTest, WithoutAskNStandardAsksKRequestsWithTheirOwnSeeds) {
  Harness h;
  h.settings.set_ask_n(false);
  Outcome o = h.Run();
  ASSERT_EQ(o.result.stop_reason, kStopComplete) << o.result.error;
  ASSERT_EQ(h.generator.requests.size(), 5u);
  std::set<uint64_t> seeds;
  for (const ChatRequest& r : h.generator.requests) {
    EXPECT_EQ(r.n, 1);
    ASSERT_EQ(r.messages.size(), 1u);
    EXPECT_EQ(r.messages[0].content, kPrompt);
    seeds.insert(r.seed);
  }
  EXPECT_EQ(seeds.size(), 5u) << "each request needs its own seed";
  EXPECT_EQ(h.generator.requests[0].seed, 42u);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(o.result.answers[i].answer, Generate(h.generator.requests[i], 0));
  EXPECT_EQ(o.calls["generate:gen"].requests, 5);
}

TEST(NoveltyEngineTest, SystemPromptModeSendsTheSystemMessageFirst) {
  Harness h;
  h.unit.mode = kModeSystemPrompt;
  h.Run();
  ASSERT_EQ(h.generator.requests.size(), 1u);
  EXPECT_EQ(h.generator.requests[0].n, 5);
  ASSERT_EQ(h.generator.requests[0].messages.size(), 2u);
  EXPECT_EQ(h.generator.requests[0].messages[0].role, "system");
  EXPECT_EQ(h.generator.requests[0].messages[0].content, noveltybench::DefaultNoveltyPrompts().system_prompt);
  EXPECT_EQ(h.generator.requests[0].messages[1].role, "user");
  EXPECT_EQ(h.generator.requests[0].messages[1].content, kPrompt);

  Harness custom;
  custom.unit.mode = kModeSystemPrompt;
  custom.settings.set_system_prompt("Be original.");
  custom.settings.set_ask_n(false);
  custom.Run();
  ASSERT_EQ(custom.generator.requests.size(), 5u);
  EXPECT_EQ(custom.generator.requests[4].messages[0].content, "Be original.");
}

TEST(NoveltyEngineTest, InContextModeIsOneConversation) {
  Harness h;
  h.unit.mode = kModeInContext;
  Outcome o = h.Run();
  ASSERT_EQ(o.result.stop_reason, kStopComplete) << o.result.error;
  ASSERT_EQ(h.generator.requests.size(), 5u);
  const std::string followup = noveltybench::DefaultNoveltyPrompts().in_context_followup;
  for (size_t i = 0; i < 5; ++i) {
    const ChatRequest& r = h.generator.requests[i];
    EXPECT_EQ(r.n, 1);
    ASSERT_EQ(r.messages.size(), 1 + 2 * i);
    EXPECT_EQ(r.messages[0].role, "user");
    EXPECT_EQ(r.messages[0].content, kPrompt);
    for (size_t j = 0; j < i; ++j) {
      EXPECT_EQ(r.messages[1 + 2 * j].role, "assistant");
      EXPECT_EQ(r.messages[1 + 2 * j].content, o.result.answers[j].answer);
      EXPECT_EQ(r.messages[2 + 2 * j].role, "user");
      EXPECT_EQ(r.messages[2 + 2 * j].content, followup);
    }
  }

  Harness custom;
  custom.unit.mode = kModeInContext;
  custom.settings.set_in_context_followup("Another, please.");
  custom.Run();
  EXPECT_EQ(custom.generator.requests[2].messages[4].content, "Another, please.");
}

TEST(NoveltyEngineTest, ParaphraseModeAnswersOneParaphraseEach) {
  Harness h;
  h.unit.mode = kModeParaphrase;
  h.unit.paraphrases = {"p0", "p1", "p2", "p3", "p4", "p5 (unused)"};
  Outcome o = h.Run();
  ASSERT_EQ(o.result.stop_reason, kStopComplete) << o.result.error;
  ASSERT_EQ(h.generator.requests.size(), 5u);
  for (int i = 0; i < 5; ++i) {
    const ChatRequest& r = h.generator.requests[i];
    EXPECT_EQ(r.n, 1);
    ASSERT_EQ(r.messages.size(), 1u);
    EXPECT_EQ(r.messages[0].content, absl::StrCat("p", i));
  }
  // Quality is judged against the prompt itself, as the reference scores (prompt, generation).
  ASSERT_EQ(h.reward.batches.size(), 1u);
  EXPECT_EQ(h.reward.batches[0][0].prompt, kPrompt);
}

TEST(NoveltyEngineTest, TooFewParaphrasesIsAnErrorBeforeAnyCall) {
  Harness h;
  h.unit.mode = kModeParaphrase;
  h.unit.paraphrases = {"p0", "p1"};
  Outcome o = h.Run();
  EXPECT_EQ(o.result.stop_reason, kStopError);
  EXPECT_THAT(o.result.error, HasSubstr("paraphrase mode needs 5 paraphrases"));
  EXPECT_THAT(o.result.error, HasSubstr("'brick'"));
  EXPECT_THAT(o.result.error, HasSubstr("gives it 2"));
  EXPECT_TRUE(h.generator.requests.empty());
  EXPECT_TRUE(o.result.answers.empty());
  EXPECT_FALSE(o.result.novelty.has_value());
}

TEST(NoveltyEngineTest, UnusableUnitsAreRefusedBeforeAnyCall) {
  Harness mode;
  mode.unit.mode = "";
  EXPECT_THAT(mode.Run().result.error, HasSubstr("unknown sampling mode ''"));
  EXPECT_TRUE(mode.generator.requests.empty());

  Harness judge;
  judge.settings.set_partitioner("llm");
  EXPECT_THAT(judge.Run().result.error, HasSubstr("needs a judge model"));

  Harness quality;
  quality.settings.set_quality("stars");
  EXPECT_THAT(quality.Run().result.error, HasSubstr("unknown quality 'stars'"));
  EXPECT_TRUE(quality.generator.requests.empty());
}

// ---- resuming ----

// `resumed` ran from the first two of five answers: only the three it lacked are reported again, and the
// result (`again`) has the fresh run's (`full`) answers, partition and quality.
void ExpectResumedLikeFresh(const Harness& resumed, const Outcome& again, const Outcome& full) {
  ASSERT_EQ(resumed.samples.size(), 3u);
  EXPECT_EQ(resumed.samples[0].answer_num, 3);
  EXPECT_EQ(Texts(again.result.answers), Texts(full.result.answers));
  ASSERT_TRUE(again.result.novelty.has_value() && full.result.novelty.has_value());
  EXPECT_EQ(again.result.novelty->partition, full.result.novelty->partition);
  EXPECT_EQ(again.result.novelty->quality, full.result.novelty->quality);
}

class NoveltyResumeTest : public ::testing::TestWithParam<std::string> {};

TEST_P(NoveltyResumeTest, AsksOnlyTheMissingGenerationsAndMatchesAFreshRun) {
  auto configure = [](Harness& h) {
    h.settings.set_ask_n(false);
    h.unit.mode = GetParam();
    h.unit.paraphrases = {"p0", "p1", "p2", "p3", "p4"};
  };
  Harness fresh;
  configure(fresh);
  Outcome full = fresh.Run();
  ASSERT_EQ(full.result.stop_reason, kStopComplete) << full.result.error;

  Harness resumed;
  configure(resumed);
  Outcome again = resumed.Run(Prefix(full.result.answers, 2));
  ASSERT_EQ(again.result.stop_reason, kStopComplete) << again.result.error;
  ASSERT_EQ(resumed.generator.requests.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    const ChatRequest& want = fresh.generator.requests[i + 2];
    const ChatRequest& got = resumed.generator.requests[i];
    EXPECT_EQ(got.seed, want.seed) << i;
    EXPECT_EQ(got.n, want.n) << i;
    ASSERT_EQ(got.messages.size(), want.messages.size()) << i;
    for (size_t m = 0; m < got.messages.size(); ++m) EXPECT_EQ(got.messages[m].content, want.messages[m].content);
  }
  ASSERT_NO_FATAL_FAILURE(ExpectResumedLikeFresh(resumed, again, full));
  EXPECT_EQ(again.result.novelty->reward, full.result.novelty->reward);
}

INSTANTIATE_TEST_SUITE_P(Modes, NoveltyResumeTest,
                         ::testing::Values(std::string(kModeStandard), std::string(kModeSystemPrompt),
                                           std::string(kModeInContext), std::string(kModeParaphrase)),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           name.erase(std::remove(name.begin(), name.end(), '-'), name.end());
                           return name;
                         });

// A resumed n = k unit repeats the fresh request (n = k, the sweep seed) and keeps only the choices it
// lacks, so the result does not depend on where the first worker died.
TEST(NoveltyEngineTest, AResumedNEqualsKUnitRepeatsTheFreshRequestAndMatchesIt) {
  Harness fresh;
  Outcome full = fresh.Run();
  ASSERT_EQ(fresh.generator.requests.size(), 1u);
  Harness resumed;
  Outcome again = resumed.Run(Prefix(full.result.answers, 2));
  ASSERT_EQ(again.result.stop_reason, kStopComplete) << again.result.error;
  ASSERT_EQ(resumed.generator.requests.size(), 1u);
  EXPECT_EQ(resumed.generator.requests[0].n, 5);
  EXPECT_EQ(resumed.generator.requests[0].seed, fresh.generator.requests[0].seed);
  ASSERT_NO_FATAL_FAILURE(ExpectResumedLikeFresh(resumed, again, full));
}

TEST(NoveltyEngineTest, AFullCheckpointSkipsGeneration) {
  Harness fresh;
  Outcome full = fresh.Run();
  Harness resumed;
  Outcome again = resumed.Run(full.result.answers);
  ASSERT_EQ(again.result.stop_reason, kStopComplete) << again.result.error;
  EXPECT_TRUE(resumed.generator.requests.empty());
  EXPECT_TRUE(resumed.samples.empty());
  EXPECT_EQ(again.result.novelty->partition, full.result.novelty->partition);
}

TEST(NoveltyEngineTest, ConcurrentRepliesGiveTheSameRecordsAsASerialRun) {
  auto run = [](Executor& executor, std::vector<int>* reported) {
    absl::StatusOr<std::unique_ptr<SimChatModel>> generator = SimChatModel::Create("sim:explorer", &executor);
    absl::StatusOr<std::unique_ptr<SimJudgeModel>> judge = SimJudgeModel::Create("sim:judge", &executor);
    EXPECT_TRUE(generator.ok() && judge.ok());
    SimPairClassifier classifier(&executor);
    NoveltySettings settings = DefaultNoveltySettings();
    settings.set_ask_n(false);
    settings.set_quality("llm");
    settings.set_quality_model("sim:judge");
    UnitSpec unit;
    unit.id = "u-threads";
    unit.model = "sim:explorer";
    unit.temperature = 1.0;
    unit.item_text = kPrompt;
    unit.mode = kModeStandard;
    NoveltyModels models;
    models.generator = generator->get();
    models.classifier = &classifier;
    models.quality_judge = judge->get();
    absl::Notification done;
    UnitResult result;
    RunNoveltyUnit(
        settings, models, unit, {},
        [reported](absl::Span<const StepRecord> samples, const CallStats&) {
          reported->push_back(samples.back().answer_num);  // never concurrent for one unit
          return true;
        },
        [&](UnitResult r, CallStats) {
          result = std::move(r);
          done.Notify();
        });
    if (auto* manual = dynamic_cast<ManualExecutor*>(&executor)) manual->RunAll();
    EXPECT_TRUE(done.WaitForNotificationWithTimeout(absl::Seconds(60))) << "the unit never finished";
    return result;
  };
  ManualExecutor serial;
  std::vector<int> serial_order;
  const UnitResult expected = run(serial, &serial_order);
  ASSERT_EQ(expected.stop_reason, kStopComplete) << expected.error;
  for (int attempt = 0; attempt < 5; ++attempt) {
    ThreadPool pool(4);
    std::vector<int> order;
    const UnitResult got = run(pool, &order);
    ASSERT_EQ(got.stop_reason, kStopComplete) << got.error;
    EXPECT_THAT(order, ElementsAre(1, 2, 3, 4, 5, 6, 7, 8, 9, 10));
    EXPECT_EQ(Texts(got.answers), Texts(expected.answers));
    EXPECT_EQ(got.novelty->partition, expected.novelty->partition);
    EXPECT_EQ(got.novelty->quality, expected.novelty->quality);
  }
}

// ---- failures and cancellation ----

TEST(NoveltyEngineTest, AGeneratorErrorStopsTheUnitKeepingEarlierGenerations) {
  Harness h;
  h.settings.set_ask_n(false);
  h.generator.fail = [](const ChatRequest& r) {
    return r.seed == 42 ? absl::OkStatus() : absl::UnavailableError("provider down");
  };
  Outcome o = h.Run();
  EXPECT_EQ(o.result.stop_reason, kStopError);
  EXPECT_THAT(o.result.error, HasSubstr("generation by gen failed: "));
  EXPECT_THAT(o.result.error, HasSubstr("provider down"));
  ASSERT_EQ(o.result.answers.size(), 1u);  // generation 1 arrived first and was reported
  EXPECT_EQ(h.samples.size(), 1u);
  EXPECT_FALSE(o.result.novelty.has_value());
  EXPECT_TRUE(h.classifier.batches.empty());
  EXPECT_EQ(o.calls["generate:gen"].errors, 1);
}

TEST(NoveltyEngineTest, TooFewChoicesIsAGenerationError) {
  Harness h;
  FakeChat stingy("gen", &h.executor, Generate);
  // A generator that answers every request with one choice, whatever n asks for.
  struct OneChoice : ChatModel {
    ChatModel* inner;
    const std::string& id() const override { return inner->id(); }
    void Complete(ChatRequest request, ChatCallback done) override {
      request.n = 1;
      inner->Complete(std::move(request), std::move(done));
    }
  } one_choice;
  one_choice.inner = &stingy;
  h.models.generator = &one_choice;
  Outcome o = h.Run();
  EXPECT_EQ(o.result.stop_reason, kStopError);
  EXPECT_THAT(o.result.error, HasSubstr("generation by gen failed: asked for 5 choices, got 1"));
}

TEST(NoveltyEngineTest, CancellingStopsAtTheDeclinedSample) {
  Harness h;
  h.settings.set_ask_n(false);
  h.keep_going = [](const StepRecord& sample) { return sample.answer_num < 3; };
  Outcome o = h.Run();
  EXPECT_EQ(o.result.stop_reason, kStopCancelled);
  EXPECT_EQ(o.result.answers.size(), 3u);
  EXPECT_EQ(h.samples.size(), 3u) << "no sample after the declined one";
  EXPECT_TRUE(h.classifier.batches.empty());
  EXPECT_TRUE(h.reward.batches.empty());
  EXPECT_FALSE(o.result.novelty.has_value());
}

TEST(NoveltyEngineTest, ALostLeaseStopsBeforeThePartition) {
  Harness h;
  h.still_leased = [] { return false; };
  Outcome o = h.Run();
  EXPECT_EQ(o.result.stop_reason, kStopCancelled);
  EXPECT_EQ(o.result.answers.size(), 5u) << "the generations were made before the check";
  EXPECT_EQ(h.lease_checks, 1);
  EXPECT_TRUE(h.classifier.batches.empty());
  EXPECT_TRUE(h.reward.batches.empty());
  EXPECT_FALSE(o.result.novelty.has_value());
}

TEST(NoveltyEngineTest, ALeaseLostDuringThePartitionStopsBeforeQuality) {
  Harness h;
  int asked = 0;
  h.still_leased = [&asked] { return ++asked == 1; };  // leased before the partition, lost after it
  Outcome o = h.Run();
  EXPECT_EQ(o.result.stop_reason, kStopCancelled);
  EXPECT_EQ(h.lease_checks, 2);
  EXPECT_FALSE(h.classifier.batches.empty());
  EXPECT_TRUE(h.reward.batches.empty()) << "no quality calls for a unit that is no longer ours";

  Harness kept;
  kept.still_leased = [] { return true; };
  Outcome complete = kept.Run();
  EXPECT_EQ(complete.result.stop_reason, kStopComplete) << complete.result.error;
  EXPECT_EQ(kept.lease_checks, 2);
  EXPECT_FALSE(kept.reward.batches.empty());
}

}  // namespace
}  // namespace noveltygrid::nbtest
