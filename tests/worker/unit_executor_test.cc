// UnitExecutor (worker/unit_executor.h): a lease goes to the runner of its unit's benchmark
// (worker/benchmarks/), which builds the unit's models and runs it to its end; a unit this worker cannot
// run does not start. Everything runs on the test's thread (ManualExecutor) with the simulated models.
#include "worker/unit_executor.h"

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/config.h"
#include "common/unit_settings.h"
#include "gtest/gtest.h"
#include "proto/wire.h"
#include "tests/worker/partition/fake_models.h"
#include "worker/model_registry.h"
#include "worker/sim/sim_models.h"

namespace noveltygrid {
namespace {

using nbtest::ManualExecutor;

SweepConfig Quickstart() {
  absl::StatusOr<SweepConfig> config = LoadSweepConfig(NOVELTYGRID_SOURCE_DIR "/examples/quickstart.yaml");
  EXPECT_TRUE(config.ok()) << config.status();
  return config.value_or(SweepConfig{});
}

class UnitExecutorTest : public ::testing::Test {
 protected:
  UnitExecutorTest()
      : builtins_(SimBuiltinModels()),
        models_(ModelContext{&executor_, nullptr, &builtins_}),
        unit_executor_(RunnerContext{&models_, nullptr, nullptr}) {}

  // A lease of `benchmark` for `model` on the quickstart's first question (or prompt), with the settings
  // the coordinator would attach.
  v1::Lease LeaseOf(const std::string& benchmark, const std::string& model) {
    const SweepConfig config = Quickstart();
    UnitSpec unit;
    unit.id = "unit-1";
    unit.benchmark = benchmark;
    unit.model = model;
    unit.temperature = 0.7;
    v1::Lease lease;
    if (benchmark == kNoveltyBench) {
      unit.item_id = config.noveltybench->datasets[0].prompts[0].id;
      unit.item_text = config.noveltybench->datasets[0].prompts[0].text;
      unit.mode = kModeStandard;
      *lease.mutable_novelty() = MakeNoveltySettings(config);
    } else {
      unit.item_id = config.aidanbench->questions[0].id;
      unit.item_text = config.aidanbench->questions[0].text;
      *lease.mutable_aidan() = MakeAidanSettings(config);
    }
    ToProto(unit, lease.mutable_unit());
    return lease;
  }

  // Starts `lease` fresh; counts steps and keeps the result.
  absl::Status Start(const v1::Lease& lease) {
    return unit_executor_.Start(
        lease, UnitCheckpoint{},
        [this](const StepEvent&) {
          ++steps_;
          return true;
        },
        [this](UnitResult result, CallStats) {
          ++done_;
          result_ = std::move(result);
        },
        [] { return true; });
  }

  ManualExecutor executor_;
  const BuiltinModels builtins_;
  ModelRegistry models_;
  UnitExecutor unit_executor_;
  int steps_ = 0;
  int done_ = 0;
  std::optional<UnitResult> result_;
};

TEST_F(UnitExecutorTest, AnAidanBenchLeaseRunsItsLoopToItsEnd) {
  ASSERT_TRUE(Start(LeaseOf(kAidanBench, "sim:collapse")).ok());
  executor_.RunAll();
  ASSERT_EQ(done_, 1);
  ASSERT_TRUE(result_.has_value());
  EXPECT_TRUE(result_->stop_reason == kStopIncoherent || result_->stop_reason == kStopRepetitive)
      << result_->stop_reason << " " << result_->error;
  EXPECT_FALSE(result_->answers.empty());
  EXPECT_EQ(steps_, static_cast<int>(result_->answers.size()));
  EXPECT_EQ(result_->unit.benchmark, kAidanBench);
}

// The runner converts a sweep's templates once and shares them between its loops; a lease with other
// templates (another sweep) gets its own, while loops of the first are still running, and a lease with
// the first ones again gets those.
TEST_F(UnitExecutorTest, EachAidanBenchLeaseIsPromptedWithItsOwnTemplates) {
  v1::Lease plain = LeaseOf(kAidanBench, "sim:explorer");
  v1::Lease reworded = plain;
  v1::PromptTemplates* templates = reworded.mutable_aidan()->mutable_templates();
  templates->set_previous_answer_item(absl::StrCat("(earlier) ", templates->previous_answer_item()));
  templates->set_generation_base(absl::StrCat("Reworded. ", templates->generation_base()));
  // Two rounds, each with both leases in flight at once: answers[round][0] plain, [round][1] reworded.
  std::vector<std::vector<std::vector<std::string>>> answers(2, std::vector<std::vector<std::string>>(2));
  for (int round = 0; round < 2; ++round) {
    for (int which = 0; which < 2; ++which) {
      v1::Lease lease = which == 0 ? plain : reworded;
      lease.set_lease_id(absl::StrCat("lease-", round, "-", which));
      std::vector<std::string>* into = &answers[round][which];
      ASSERT_TRUE(unit_executor_
                      .Start(
                          lease, UnitCheckpoint{}, [](const StepEvent&) { return true; },
                          [into](UnitResult result, CallStats) {
                            for (const StepRecord& step : result.answers) into->push_back(step.answer);
                          },
                          [] { return true; })
                      .ok());
    }
    executor_.RunAll();
    ASSERT_GT(answers[round][0].size(), 1u);
    ASSERT_GT(answers[round][1].size(), 1u);
  }
  ASSERT_NE(answers[0][0], answers[0][1]) << "the sim's answers do not depend on the templates: nothing is tested";
  EXPECT_EQ(answers[1][0], answers[0][0]);
  EXPECT_EQ(answers[1][1], answers[0][1]);
}

TEST_F(UnitExecutorTest, ANoveltyBenchLeaseMakesKGenerationsAndPartitionsThem) {
  const v1::Lease lease = LeaseOf(kNoveltyBench, "sim:explorer");
  ASSERT_TRUE(Start(lease).ok());
  executor_.RunAll();
  ASSERT_EQ(done_, 1);
  ASSERT_TRUE(result_.has_value());
  EXPECT_EQ(result_->stop_reason, kStopComplete) << result_->error;
  EXPECT_EQ(static_cast<int>(result_->answers.size()), lease.novelty().k());
  ASSERT_TRUE(result_->novelty.has_value());
  EXPECT_EQ(result_->novelty->partition.size(), result_->answers.size());
}

TEST_F(UnitExecutorTest, AUnitOfABenchmarkThisWorkerDoesNotKnowDoesNotStart) {
  v1::Lease lease = LeaseOf(kAidanBench, "sim:collapse");
  lease.mutable_unit()->set_benchmark("nosuchbench");
  const absl::Status started = Start(lease);
  EXPECT_EQ(started.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(started.message().find("nosuchbench"), std::string::npos) << started;
  executor_.RunAll();
  EXPECT_EQ(done_, 0);
}

TEST_F(UnitExecutorTest, AModelThisWorkerCannotBuildDoesNotStart) {
  const absl::Status started = Start(LeaseOf(kAidanBench, "sim:nope"));
  EXPECT_FALSE(started.ok());
  EXPECT_NE(started.message().find("sim:nope"), std::string::npos) << started;
  executor_.RunAll();
  EXPECT_EQ(done_, 0);
}

TEST_F(UnitExecutorTest, CheckBenchmarkModelsBuildsEachBenchmarksHelpers) {
  SweepConfig config = Quickstart();
  EXPECT_TRUE(unit_executor_.CheckBenchmarkModels(config).ok());
  config.judge = "sim:nope";
  const absl::Status aidan = unit_executor_.CheckBenchmarkModels(config);
  EXPECT_NE(aidan.message().find("sim:nope"), std::string::npos) << aidan;
  config = Quickstart();
  config.noveltybench->settings.set_quality_model("sim:no-reward");
  const absl::Status novelty = unit_executor_.CheckBenchmarkModels(config);
  EXPECT_NE(novelty.message().find("sim:no-reward"), std::string::npos) << novelty;
}

}  // namespace
}  // namespace noveltygrid
