// The AidanBench loop against scripted fake models: extraction, judge retries and visible errors,
// novelty math, both presets' stop rules, the iteration and time caps, and judge/embed concurrency.
#include "worker/engines/aidanbench_engine.h"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>

#include "absl/status/status.h"
#include "common/aidan_scoring.h"
#include "common/clock.h"
#include "common/embedding.h"
#include "common/executor.h"
#include "common/hashing.h"
#include "gtest/gtest.h"

namespace noveltygrid {
namespace {

// Runs tasks only when the test says so, so the test sees what is in flight.
class ManualExecutor : public Executor {
 public:
  void Schedule(Task task) override { queue_.push_back(std::move(task)); }
  size_t pending() const { return queue_.size(); }
  void RunOne() {
    Task t = std::move(queue_.front());
    queue_.pop_front();
    std::move(t)();
  }
  void RunAll() {
    while (!queue_.empty()) RunOne();
  }

 private:
  std::deque<Task> queue_;
};

// A chat model whose reply is a function of the prompt; records every request.
class ScriptedChat : public ChatModel {
 public:
  ScriptedChat(std::string id, Executor* executor, std::function<std::string(const std::string&)> reply)
      : id_(std::move(id)), executor_(executor), reply_(std::move(reply)) {}
  const std::string& id() const override { return id_; }
  void Complete(ChatRequest request, ChatCallback done) override {
    requests.push_back(request);
    std::string text = reply_(request.messages.back().content);
    executor_->Schedule([text, done = std::move(done)]() mutable {
      ChatReply reply;
      reply.choices.push_back(text);
      std::move(done)(std::move(reply));
    });
  }
  std::vector<ChatRequest> requests;

 private:
  std::string id_;
  Executor* executor_;
  std::function<std::string(const std::string&)> reply_;
};

// Embeds by a table from text to vector; unknown text gets a fresh orthogonal axis.
class TableEmbedder : public Embedder {
 public:
  explicit TableEmbedder(Executor* executor) : executor_(executor) {}
  const std::string& id() const override { return id_; }
  int dimensions() const override { return 64; }
  void Embed(std::vector<std::string> texts, EmbedCallback done) override {
    ++calls;
    std::vector<Embedding> out;
    for (const std::string& t : texts) {
      auto it = table.find(t);
      if (it != table.end()) {
        out.push_back(it->second);
      } else {
        Embedding e(64, 0.0f);
        e[table.size() % 64] = 1.0f;  // a fresh axis per distinct text
        table[t] = e;
        out.push_back(e);
      }
    }
    executor_->Schedule([out = std::move(out), done = std::move(done), tokens = tokens, hedges = hedges]() mutable {
      std::move(done)(EmbedReply{std::move(out), tokens, 0, hedges});
    });
  }
  std::map<std::string, Embedding> table;
  int calls = 0;
  int64_t tokens = 0;  // reported per call (hedged duplicates' included, as EmbedReply has them)
  int hedges = 0;      // reported per call

 private:
  std::string id_ = "table";
  Executor* executor_;
};

AidanPreset Reference() { return *FindAidanPreset("reference-2025"); }
AidanPreset Paper() { return *FindAidanPreset("paper-2024"); }

struct Harness {
  ManualExecutor executor;
  int counter = 0;
  // Generator: "<answer>idea N</answer>" with N counting up, unless overridden.
  std::function<std::string(const std::string&)> generate = [this](const std::string&) {
    return "Sure.\n<answer>idea " + std::to_string(++counter) + "</answer>";
  };
  std::function<std::string(const std::string&)> judge = [](const std::string&) {
    return "<coherence_score>80</coherence_score>";
  };
  ScriptedChat generator{"gen", &executor, [this](const std::string& p) { return generate(p); }};
  ScriptedChat judge_model{"judge", &executor, [this](const std::string& p) { return judge(p); }};
  TableEmbedder embedder{&executor};
  AidanEngineOptions options;
  std::optional<UnitResult> result;
  CallStats calls;
  int observed = 0;

  Harness() {
    options.preset = Reference();
    options.templates = &DefaultPromptTemplates();
  }

  UnitResult Run(double temperature = 0.7, UnitCheckpoint checkpoint = {}) {
    UnitSpec unit;
    unit.id = "u1";
    unit.model = "gen";
    unit.temperature = temperature;
    unit.item_id = "q1";
    unit.item_text = "What is a use of a brick?";
    RunAidanLoop(
        options, {&generator, &judge_model, &embedder}, unit, std::move(checkpoint),
        [this](const StepEvent&) {
          ++observed;
          return true;
        },
        [this](UnitResult r, CallStats c) {
          result = std::move(r);
          calls = std::move(c);
        });
    executor.RunAll();
    EXPECT_TRUE(result.has_value());
    return *result;
  }
};

TEST(ExtractAnswer, TakesTheLastTagStripped) {
  EXPECT_EQ(ExtractAnswer("<answer>a</answer> then <answer>\n b \n</answer>"), "b");
}

TEST(ExtractAnswer, WholeReplyWhenNoTag) { EXPECT_EQ(ExtractAnswer("  just text \n"), "just text"); }

TEST(ExtractAnswer, MultilineBody) { EXPECT_EQ(ExtractAnswer("<answer>line1\nline2</answer>"), "line1\nline2"); }

TEST(ExtractAnswer, EmptyTagGivesEmptyAnswer) { EXPECT_EQ(ExtractAnswer("<answer>  </answer>"), ""); }

TEST(ExtractAnswer, InvalidUtf8IsReplaced) {
  EXPECT_EQ(ExtractAnswer("<answer>caf\xC3 ok\xFF</answer>"), "caf\xEF\xBF\xBD ok\xEF\xBF\xBD");
}

TEST(ParseCoherenceScore, EdgeCases) {
  EXPECT_EQ(ParseCoherenceScore("<coherence_score>75</coherence_score>", 100), 75);
  EXPECT_EQ(ParseCoherenceScore("<coherence_score>10</coherence_score> <coherence_score> 42 </coherence_score>", 100),
            42);
  EXPECT_EQ(ParseCoherenceScore("no tag at all, 75", 100), std::nullopt);
  EXPECT_EQ(ParseCoherenceScore("<coherence_score>7.5</coherence_score>", 100), std::nullopt);
  EXPECT_EQ(ParseCoherenceScore("<coherence_score>high</coherence_score>", 100), std::nullopt);
  EXPECT_EQ(ParseCoherenceScore("<coherence_score>101</coherence_score>", 100), std::nullopt);
  EXPECT_EQ(ParseCoherenceScore("<coherence_score>11</coherence_score>", 10), std::nullopt);
  EXPECT_EQ(ParseCoherenceScore("<coherence_score>9</coherence_score>", 10), 9);
}

TEST(AidanNovelty, FirstAnswerIsOneAndMaxCosineCounts) {
  EXPECT_DOUBLE_EQ(AidanNovelty({1, 0}, {}), 1.0);
  // cos with (1,0) is 0.6, with (0,1) is 0.8: novelty = 1 - 0.8.
  EXPECT_NEAR(AidanNovelty({0.6f, 0.8f}, {{1, 0}, {0, 1}}), 0.2, 1e-6);
  // Unnormalised vectors are normalised.
  EXPECT_NEAR(AidanNovelty({3, 4}, {{10, 0}}), 0.4, 1e-6);
  // A zero vector has cosine 0 with everything.
  EXPECT_DOUBLE_EQ(AidanNovelty({0, 0}, {{1, 0}}), 1.0);
}

// With the squared norms known the novelty is the same to the bit as the three-products cosine gives
// (answers.jsonl is compared byte for byte): random 1536-dimensional vectors, and a zero one.
TEST(AidanNovelty, KnownNormsGiveTheSameBitsAsTheFullCosine) {
  uint64_t state = 42;
  auto next = [&state] { return static_cast<float>(static_cast<int64_t>(Mix64(++state) % 2001) - 1000) / 997.0f; };
  std::vector<Embedding> earlier(12, Embedding(1536));
  for (Embedding& e : earlier) {
    for (float& x : e) x = next();
  }
  earlier[5].assign(1536, 0.0f);
  std::vector<double> squared;
  for (const Embedding& e : earlier) squared.push_back(SquaredNorm(e));
  for (int trial = 0; trial < 20; ++trial) {
    Embedding candidate(1536);
    for (float& x : candidate) x = next();
    double full_max = -1.0;
    for (const Embedding& e : earlier) full_max = std::max(full_max, CosineSimilarity(candidate, e));
    double candidate_squared = -1;
    const double novelty = AidanNovelty(candidate, earlier, squared, &candidate_squared);
    EXPECT_EQ(novelty, 1.0 - full_max) << trial;  // exact: == on doubles
    EXPECT_EQ(candidate_squared, SquaredNorm(candidate)) << trial;
    EXPECT_EQ(AidanNovelty(candidate, earlier), novelty);
  }
}

TEST(AidanLoop, StopsAtFirstRepetitionAndStoresIt) {
  Harness h;
  h.generate = [&h](const std::string&) {
    ++h.counter;
    return "<answer>" + std::string(h.counter <= 3 ? "idea " + std::to_string(h.counter) : "idea 1") + "</answer>";
  };
  UnitResult r = h.Run();
  ASSERT_EQ(r.answers.size(), 4u);
  EXPECT_EQ(r.stop_reason, kStopRepetitive);
  EXPECT_DOUBLE_EQ(r.answers[0].novelty, 1.0);
  EXPECT_DOUBLE_EQ(r.answers[3].novelty, 0.0);
  EXPECT_TRUE(r.answers[2].valid);
  EXPECT_FALSE(r.answers[3].valid);
  EXPECT_EQ(h.observed, 4);
  EXPECT_EQ(h.calls["generate:gen"].requests, 4);
  EXPECT_EQ(h.embedder.calls, 4);
}

TEST(AidanLoop, GenerationPromptCarriesPreviousAnswersAndTemperature) {
  Harness h;
  h.options.max_iterations = 3;
  UnitResult r = h.Run(1.3);
  ASSERT_EQ(h.generator.requests.size(), 3u);
  for (const ChatRequest& req : h.generator.requests) {
    EXPECT_DOUBLE_EQ(req.temperature, 1.3);
    EXPECT_EQ(req.max_tokens, 4000);
    ASSERT_EQ(req.messages.size(), 1u);
    EXPECT_EQ(req.messages[0].role, "user");
  }
  EXPECT_EQ(h.generator.requests[0].messages[0].content,
            DefaultPromptTemplates().GenerationPrompt("What is a use of a brick?", {}));
  EXPECT_EQ(h.generator.requests[2].messages[0].content,
            DefaultPromptTemplates().GenerationPrompt("What is a use of a brick?", {"idea 1", "idea 2"}));
  EXPECT_EQ(r.stop_reason, kStopIterationCap);
  EXPECT_EQ(r.max_iterations, 3);
  EXPECT_EQ(r.answers.size(), 3u);
}

TEST(AidanLoop, TimeCapLetsTheIterationInFlightFinishThenStops) {
  Harness h;
  FakeClock clock;
  h.options.clock = &clock;
  h.options.max_unit_seconds = 25;
  h.generate = [&h, &clock](const std::string&) {
    clock.Advance(absl::Seconds(10));  // every generation takes ten seconds
    return "<answer>idea " + std::to_string(++h.counter) + "</answer>";
  };
  UnitResult r = h.Run();
  // Iterations start at 0 s, 10 s and 20 s; at 30 s the cap has passed and no fourth one starts.
  EXPECT_EQ(r.stop_reason, kStopTimeCap);
  EXPECT_EQ(r.answers.size(), 3u);
  EXPECT_TRUE(r.error.empty());
  EXPECT_TRUE(r.answers.back().valid) << "the last answer before the cap counts";
}

TEST(AidanLoop, ReferencePresetStopsAtCoherence15ButCountsItValid) {
  Harness h;
  h.judge = [&h](const std::string&) {
    return h.counter >= 3 ? "<coherence_score>15</coherence_score>" : "<coherence_score>16</coherence_score>";
  };
  UnitResult r = h.Run();
  ASSERT_EQ(r.answers.size(), 3u);
  EXPECT_EQ(r.stop_reason, kStopIncoherent);
  EXPECT_TRUE(r.answers[2].valid) << "the scorer uses < 15 where the loop uses <= 15";
}

TEST(AidanLoop, ReferencePresetNoveltyThreshold) {
  AidanPreset p = Reference();
  StepRecord a;
  a.coherence = 90;
  a.novelty = 0.15;
  EXPECT_FALSE(AidanShouldStop(p, a));
  a.novelty = 0.1499;
  EXPECT_TRUE(AidanShouldStop(p, a));
  a.novelty = 0.5;
  a.coherence = 16;
  EXPECT_FALSE(AidanShouldStop(p, a));
  a.coherence = 15;
  EXPECT_TRUE(AidanShouldStop(p, a));
}

TEST(AidanLoop, PaperPresetUsesTheOneToTenJudge) {
  Harness h;
  h.options.preset = Paper();
  h.judge = [&h](const std::string& prompt) {
    EXPECT_NE(prompt.find("1 to 10"), std::string::npos);
    return h.counter >= 2 ? "<coherence_score>3</coherence_score>" : "<coherence_score>4</coherence_score>";
  };
  UnitResult r = h.Run();
  ASSERT_EQ(r.answers.size(), 2u);
  EXPECT_EQ(r.stop_reason, kStopIncoherent);
  EXPECT_TRUE(r.answers[0].valid);
  EXPECT_FALSE(r.answers[1].valid);
  StepRecord a;
  a.coherence = 8;
  a.novelty = 0.1;
  EXPECT_FALSE(AidanShouldStop(Paper(), a));
  a.novelty = 0.099;
  EXPECT_TRUE(AidanShouldStop(Paper(), a));
}

TEST(AidanLoop, JudgeRetriesThenRecordsAVisibleError) {
  Harness h;
  h.options.judge_retries = 2;
  h.judge = [](const std::string&) { return "I think it is fine. <coherence_score>7.5</coherence_score>"; };
  UnitResult r = h.Run();
  ASSERT_EQ(r.answers.size(), 1u);
  EXPECT_EQ(r.stop_reason, kStopError);
  EXPECT_NE(r.error.find("3 attempts"), std::string::npos) << r.error;
  EXPECT_NE(r.answers[0].error.find("7.5"), std::string::npos) << r.answers[0].error;
  EXPECT_FALSE(r.answers[0].valid);
  EXPECT_EQ(h.judge_model.requests.size(), 3u);
  EXPECT_EQ(h.calls["judge:judge"].retries, 2);
  EXPECT_EQ(h.calls["judge:judge"].errors, 1);
}

TEST(AidanLoop, EmbedHedgesAreCountedWithTheirTokens) {
  Harness h;
  h.options.max_iterations = 2;
  h.embedder.tokens = 9;
  h.embedder.hedges = 2;
  h.Run();
  const CallCounters& embed = h.calls["embed:table"];
  EXPECT_EQ(embed.requests, 2);
  EXPECT_EQ(embed.hedges, 4);
  EXPECT_EQ(embed.prompt_tokens, 18);  // as the embedder reports them: not multiplied again
  EXPECT_EQ(embed.retries, 0);
}

TEST(AidanLoop, JudgeRecoversWithinRetries) {
  Harness h;
  h.options.max_iterations = 1;
  int attempts = 0;
  h.judge = [&attempts](const std::string&) {
    return ++attempts < 2 ? std::string("no tag") : std::string("<coherence_score>70</coherence_score>");
  };
  UnitResult r = h.Run();
  ASSERT_EQ(r.answers.size(), 1u);
  EXPECT_EQ(r.answers[0].coherence, 70);
  EXPECT_TRUE(r.answers[0].error.empty());
  EXPECT_EQ(r.stop_reason, kStopIterationCap);
}

TEST(AidanLoop, EmptyAnswerEndsTheLoopAsIncoherentWithoutJudging) {
  Harness h;
  h.generate = [](const std::string&) { return "<answer>   </answer>"; };
  UnitResult r = h.Run();
  ASSERT_EQ(r.answers.size(), 1u);
  EXPECT_EQ(r.answers[0].coherence, 0);
  EXPECT_EQ(r.stop_reason, kStopIncoherent);
  EXPECT_TRUE(h.judge_model.requests.empty());
}

TEST(AidanLoop, JudgeAndEmbedAreInFlightTogether) {
  Harness h;
  h.options.max_iterations = 1;
  UnitSpec unit;
  unit.item_text = "Q?";
  bool done = false;
  RunAidanLoop(h.options, {&h.generator, &h.judge_model, &h.embedder}, unit, {}, nullptr,
               [&done](UnitResult, CallStats) { done = true; });
  ASSERT_EQ(h.executor.pending(), 1u);  // the generation reply
  h.executor.RunOne();
  // Both the judge request and the embedding request were sent before either reply ran.
  EXPECT_EQ(h.judge_model.requests.size(), 1u);
  EXPECT_EQ(h.embedder.calls, 1);
  EXPECT_EQ(h.executor.pending(), 2u);
  h.executor.RunAll();
  EXPECT_TRUE(done);
}

TEST(AidanLoop, ResumesFromCheckpointWithoutRepeatingCalls) {
  Harness first;
  first.options.max_iterations = 2;
  std::vector<Embedding> embeddings;
  UnitSpec unit;
  unit.item_text = "What is a use of a brick?";
  UnitCheckpoint checkpoint;
  RunAidanLoop(
      first.options, {&first.generator, &first.judge_model, &first.embedder}, unit, {},
      [&checkpoint](const StepEvent& s) {
        checkpoint.answers.push_back(s.answer());
        checkpoint.embeddings.push_back(s.embedding());
        return true;
      },
      [](UnitResult, CallStats) {});
  first.executor.RunAll();
  ASSERT_EQ(checkpoint.answers.size(), 2u);

  Harness resumed;
  resumed.counter = 2;
  resumed.embedder.table = first.embedder.table;
  resumed.options.max_iterations = 4;
  UnitResult r = resumed.Run(0.7, checkpoint);
  EXPECT_EQ(r.answers.size(), 4u);
  EXPECT_EQ(resumed.generator.requests.size(), 2u);
  EXPECT_EQ(r.answers[2].answer, "idea 3");
  EXPECT_EQ(r.answers[2].answer_num, 3);
}

TEST(AidanLoop, LlmNoveltyJudgeComparesWithEveryEarlierAnswer) {
  Harness h;
  h.options.llm_novelty = true;
  h.options.max_iterations = 3;
  h.judge = [](const std::string& prompt) {
    if (prompt.find("<answer1>") != std::string::npos) return std::string("<similarity_score>40</similarity_score>");
    return std::string("<coherence_score>80</coherence_score>");
  };
  UnitResult r = h.Run();
  ASSERT_EQ(r.answers.size(), 3u);
  EXPECT_DOUBLE_EQ(*r.answers[0].llm_novelty, 1.0);
  EXPECT_DOUBLE_EQ(*r.answers[2].llm_novelty, 0.6);
  // 3 coherence calls + 0 + 1 + 2 similarity calls.
  EXPECT_EQ(h.judge_model.requests.size(), 6u);
}

}  // namespace
}  // namespace noveltygrid

namespace noveltygrid {
namespace {
TEST(AidanLoop, ObserverCanAbandonTheUnit) {
  Harness h;
  UnitSpec unit;
  unit.item_text = "Q?";
  std::optional<UnitResult> result;
  int steps = 0;
  RunAidanLoop(
      h.options, {&h.generator, &h.judge_model, &h.embedder}, unit, {},
      [&steps](const StepEvent&) { return ++steps < 2; },
      [&result](UnitResult r, CallStats) { result = std::move(r); });
  h.executor.RunAll();
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(result->stop_reason, kStopCancelled);
  EXPECT_EQ(result->answers.size(), 2u);
  EXPECT_EQ(h.generator.requests.size(), 2u);
}
}  // namespace
}  // namespace noveltygrid

namespace noveltygrid {
namespace {
TEST(AidanLoop, ACheckpointEndingInAnErrorIsRetriedNotResumedFrom) {
  Harness h;
  h.options.max_iterations = 3;
  UnitCheckpoint checkpoint;
  StepRecord ok;
  ok.answer_num = 1;
  ok.answer = "idea 1";
  ok.coherence = 80;
  ok.novelty = 1.0;
  StepRecord failed = ok;
  failed.answer_num = 2;
  failed.answer = "idea 2";
  failed.error = "coherence judge failed after 3 attempts";
  checkpoint.answers = {ok, failed};
  checkpoint.embeddings = {Embedding(64, 0.0f), Embedding(64, 0.0f)};
  checkpoint.embeddings[0][63] = 1.0f;
  checkpoint.embeddings[1][62] = 1.0f;
  h.counter = 1;
  UnitResult r = h.Run(0.7, checkpoint);
  ASSERT_EQ(r.answers.size(), 3u);
  EXPECT_EQ(r.stop_reason, kStopIterationCap);
  EXPECT_TRUE(r.answers[1].error.empty());
  EXPECT_EQ(r.answers[1].answer, "idea 2");
  EXPECT_EQ(h.generator.requests.size(), 2u) << "answer 2 is generated again, answer 1 is not";
}
}  // namespace
}  // namespace noveltygrid
