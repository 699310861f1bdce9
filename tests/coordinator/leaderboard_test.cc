#include "coordinator/benchmarks/aidanbench/aidan_results.h"
#include "coordinator/benchmarks/noveltybench/novelty_sweep_results.h"
#include "coordinator/report/text_table.h"
#include "gtest/gtest.h"
#include "tests/coordinator/aidan_test_units.h"

namespace noveltygrid {
namespace {

using testing_units::MakeUnit;
using testing_units::Preset;

AidanSnapshot TwoModels() {
  AidanReducer reducer(Preset("reference-2025"), {"openai/gpt-4o", "b"}, {0.7, 1.0});
  reducer.Add(MakeUnit("openai/gpt-4o", 0.7, 0, {{80, 1.0}, {80, 0.3}}));
  reducer.Add(MakeUnit("b", 0.7, 1, {{80, 1.0}}));
  reducer.Add(MakeUnit("b", 1.0, 2, {{80, 1.0}, {80, 0.5}, {80, 0.25}, {80, 0.1}}));
  return reducer.Snapshot();
}

TEST(LeaderboardTest, OneRowPerModelBestFirstWithAColumnPerTemperature) {
  EXPECT_EQ(FormatLeaderboard(TwoModels(), false),
            "AidanBench leaderboard (valid answers at best temperature)\n"
            "preset: reference-2025\n"
            "\n"
            "model          best temp  valid  novelty     T=0.7     T=1.0\n"
            "------------------------------------------------------------\n"
            "b                    1.0      3     1.75  1 / 1.00  3 / 1.75\n"
            "openai/gpt-4o        0.7      2     1.30  2 / 1.30         -\n");
}

TEST(LeaderboardTest, SimulatedRunsSaySo) {
  const std::string text = FormatLeaderboard(TwoModels(), true);
  EXPECT_EQ(text.substr(0, text.find("preset")),
            "AidanBench leaderboard (valid answers at best temperature)\n"
            "SIMULATED MODELS -- numbers measure the built-in simulator, not a real LLM\n");
}

TEST(LeaderboardTest, EmptySnapshot) {
  AidanReducer reducer(Preset("paper-2024"), {"m"}, {0.7});
  EXPECT_EQ(FormatLeaderboard(reducer.Snapshot(), false),
            "AidanBench leaderboard (valid answers at best temperature)\npreset: paper-2024\n\n"
            "(no results yet)\n");
}

}  // namespace
}  // namespace noveltygrid
