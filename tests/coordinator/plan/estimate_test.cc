// The cost model on hand-made committed units: AidanBench's quadratic prompts from the loop-length
// prior (configured, the model's own, the other models'), NoveltyBench's per-unit calls, dollars from
// prices, and the defaults when nothing is committed.
#include "coordinator/plan/estimate.h"

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace noveltygrid {
namespace {

UnitSpec Unit(const std::string& benchmark, const std::string& model, const std::string& mode = "") {
  UnitSpec unit;
  unit.id = absl::StrCat(benchmark, model, mode);
  unit.benchmark = benchmark;
  unit.model = model;
  unit.mode = mode;
  unit.item_text = "Name a use for a brick.";
  return unit;
}

// An AidanBench unit of `n` iterations whose generate prompts are 100 tokens plus 50 per earlier answer.
std::pair<UnitResult, CallStats> AidanUnit(const std::string& model, int n) {
  UnitResult result;
  result.unit = Unit(kAidanBench, model);
  result.answers.resize(n);
  result.stop_reason = kStopIncoherent;
  CallStats calls;
  calls["generate:" + model] = CallCounters{n, 0, 0, 0, 100 * n + 50 * n * (n - 1) / 2, 50 * n};
  calls["judge:sim:judge"] = CallCounters{n, 0, 0, 0, 300 * n, 5 * n};
  return {result, calls};
}

SweepConfig Config() {
  SweepConfig config;
  config.models = {{"m1"}, {"m2"}, {"m3"}};
  config.aidanbench = AidanBenchConfig{};
  config.noveltybench = NoveltyBenchConfig{};
  config.prices["m1"] = ModelPrice{1, 2};  // USD per million tokens
  return config;
}

TEST(CostModelTest, AidanPromptsGrowQuadraticallyWithTheLearnedLoopLength) {
  CostModel model(Config());
  for (int n : {2, 6}) {
    auto [result, calls] = AidanUnit("m1", n);
    model.Learn(result, calls);
  }
  const CostEstimate e = model.Estimate(Unit(kAidanBench, "m1"));
  // Mean n = 4, mean n(n-1)/2 = (1 + 15) / 2 = 8: prompt 100 * 4 + 50 * 8.
  EXPECT_DOUBLE_EQ(e.calls.at("generate:m1").requests, 4);
  EXPECT_DOUBLE_EQ(e.calls.at("generate:m1").prompt_tokens, 800);
  EXPECT_DOUBLE_EQ(e.calls.at("generate:m1").completion_tokens, 200);
  EXPECT_DOUBLE_EQ(e.calls.at("judge:sim:judge").requests, 4);
  EXPECT_DOUBLE_EQ(e.dollars, (800 * 1 + 200 * 2) / 1e6);
}

TEST(CostModelTest, AModelWithoutCommittedUnitsLearnsFromTheOthersOrItsConfiguredPrior) {
  SweepConfig config = Config();
  config.aidanbench->expected_iterations["m3"] = 10;
  CostModel model(config);
  auto [result, calls] = AidanUnit("m1", 4);
  model.Learn(result, calls);
  const CostEstimate other = model.Estimate(Unit(kAidanBench, "m2"));  // m1's loop length and rates
  EXPECT_DOUBLE_EQ(other.calls.at("generate:m2").prompt_tokens, 100 * 4 + 50 * 6);
  EXPECT_EQ(other.calls.count("generate:m1"), 0u);
  EXPECT_DOUBLE_EQ(other.dollars, 0);                                  // m2 has no price
  const CostEstimate prior = model.Estimate(Unit(kAidanBench, "m3"));  // 10 iterations: 100 * 10 + 50 * 45
  EXPECT_DOUBLE_EQ(prior.calls.at("generate:m3").requests, 10);
  EXPECT_DOUBLE_EQ(prior.calls.at("generate:m3").prompt_tokens, 3250);
  EXPECT_DOUBLE_EQ(prior.calls.at("judge:sim:judge").requests, 10);
}

TEST(CostModelTest, TheIterationCapBoundsThePrior) {
  SweepConfig config = Config();
  config.aidanbench->expected_iterations[""] = 10;
  config.aidanbench->settings.set_max_iterations(3);
  const CostEstimate e = CostModel(config).Estimate(Unit(kAidanBench, "m1"));
  EXPECT_DOUBLE_EQ(e.calls.at("generate:m1").requests, 3);
}

TEST(CostModelTest, NothingCommittedUsesTheDefaults) {
  const CostModel model(Config());
  const CostEstimate aidan = model.Estimate(Unit(kAidanBench, "m1"));
  EXPECT_DOUBLE_EQ(aidan.calls.at("generate:m1").requests, kDefaultIterations);
  EXPECT_GT(aidan.calls.at("generate:m1").prompt_tokens, 0);
  const CostEstimate novelty = model.Estimate(Unit(kNoveltyBench, "m1", kModeStandard));
  EXPECT_DOUBLE_EQ(novelty.calls.at("generate:m1").requests, 1);  // n = k in one request
  EXPECT_DOUBLE_EQ(model.Estimate(Unit(kNoveltyBench, "m1", kModeInContext)).calls.at("generate:m1").requests, 10);
}

TEST(CostModelTest, NoveltyUnitsCostWhatCommittedUnitsOfTheModelAndModeCostOnAverage) {
  CostModel model(Config());
  for (int64_t tokens : {100, 300}) {
    UnitResult result;
    result.unit = Unit(kNoveltyBench, "m1", kModeStandard);
    result.stop_reason = kStopComplete;
    CallStats calls;
    calls["generate:m1"] = CallCounters{1, 0, 0, 0, 10, tokens};
    calls["classify:sim:classifier"] = CallCounters{4, 0, 0, 0, tokens, 0};
    model.Learn(result, calls);
  }
  const CostEstimate own = model.Estimate(Unit(kNoveltyBench, "m1", kModeStandard));
  EXPECT_DOUBLE_EQ(own.calls.at("generate:m1").completion_tokens, 200);
  EXPECT_DOUBLE_EQ(own.calls.at("classify:sim:classifier").requests, 4);
  const CostEstimate other = model.Estimate(Unit(kNoveltyBench, "m2", kModeInContext));  // falls back to m1's
  EXPECT_DOUBLE_EQ(other.calls.at("generate:m2").completion_tokens, 200);
  EXPECT_GT(other.seconds, 0);
}

TEST(CostModelTest, FailedUnitsTeachNothing) {
  CostModel model(Config());
  auto [result, calls] = AidanUnit("m1", 50);
  result.stop_reason = kStopError;
  model.Learn(result, calls);
  EXPECT_DOUBLE_EQ(model.Estimate(Unit(kAidanBench, "m1")).calls.at("generate:m1").requests, kDefaultIterations);
}

}  // namespace
}  // namespace noveltygrid
