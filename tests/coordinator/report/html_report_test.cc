// report.html as the results writer writes it: beside summary.json, with the calls section and, when
// asked, the comparison with an external leaderboard.
#include "coordinator/report/html_report.h"

#include <filesystem>
#include <fstream>
#include <string>

#include "coordinator/benchmarks/aidanbench/aidan_reducer.h"
#include "gtest/gtest.h"
#include "tests/common/test_files.h"
#include "tests/coordinator/aidan_test_units.h"
#include "tests/coordinator/report/html_test_util.h"
#include "tests/coordinator/results_folder_util.h"

namespace noveltygrid {
namespace {

using html_test::Chart;
using html_test::Count;
using testing_files::TempDir;
using testing_units::Slurp;

std::unique_ptr<BenchmarkResults> SweepResults() {
  AidanReducer reducer(testing_units::Preset("reference-2025"), {"sim:explorer", "sim:collapse"}, {0.0, 0.7, 1.0});
  for (UnitResult& u : testing_units::SweepUnits()) {
    const CallStats calls = {{"generate:" + u.unit.model, CallCounters{1, 0, 2, 0, 100, 10}}};
    reducer.Add(std::move(u), calls);
  }
  return reducer.Results();
}

TEST(HtmlReportTest, WrittenBesideTheSummaryWithCallsAndCost) {
  TempDir dir;
  std::unique_ptr<BenchmarkResults> results = SweepResults();
  ResultsOptions options;
  options.simulated_models = {"sim:explorer", "sim:collapse"};
  options.prices["sim:explorer"] = ModelPrice{1.0, 2.0};
  options.prices["sim:collapse"] = ModelPrice{1.0, 2.0};
  ASSERT_TRUE(WriteSweepResults(dir.path().string(), {results.get()}, options).ok());
  const std::string html = Slurp(dir.path() / kReportFileName);
  EXPECT_NE(html.find("<section id=\"aidanbench-leaderboard\">"), std::string::npos);
  EXPECT_NE(html.find("<section id=\"calls\">"), std::string::npos);
  EXPECT_NE(html.find("Simulated models: numbers measure the built-in simulator"), std::string::npos);
  // Every model priced: the scatter is against dollars, one point per model.
  const std::string scatter = Chart(html, "cost-score-aidanbench");
  EXPECT_NE(scatter.find("generation cost (USD)"), std::string::npos);
  EXPECT_EQ(Count(scatter, "<circle"), 2);
  EXPECT_NE(html.find("Total cost at the configured prices"), std::string::npos);
  EXPECT_EQ(html.find("<section id=\"correlation\">"), std::string::npos) << "no leaderboard given";
}

TEST(HtmlReportTest, UnpricedModelsAreComparedOnTokens) {
  TempDir dir;
  std::unique_ptr<BenchmarkResults> results = SweepResults();
  ASSERT_TRUE(WriteSweepResults(dir.path().string(), {results.get()}, ResultsOptions{}).ok());
  const std::string html = Slurp(dir.path() / kReportFileName);
  EXPECT_NE(Chart(html, "cost-score-aidanbench").find("generation tokens"), std::string::npos);
  EXPECT_EQ(html.find("simulated models"), std::string::npos);
}

TEST(HtmlReportTest, AnExternalLeaderboardAddsTheCorrelationScatter) {
  TempDir dir;
  const std::filesystem::path csv = dir.path() / "board.csv";
  std::ofstream(csv) << "model,score\nsim:explorer,10\nsim:collapse,3\nother,5\n";
  std::unique_ptr<BenchmarkResults> results = SweepResults();
  ResultsOptions options;
  options.correlate = CorrelateOptions{};
  options.correlate->leaderboard_path = csv.string();
  const std::filesystem::path out = dir.path() / "out";
  ASSERT_TRUE(WriteSweepResults(out.string(), {results.get()}, options).ok());
  // Two models in common are too few to correlate: the section says so and the page stands.
  std::string html = Slurp(out / kReportFileName);
  EXPECT_NE(html.find("<section id=\"correlation\">"), std::string::npos);
  EXPECT_NE(html.find("No correlation with"), std::string::npos);
  EXPECT_TRUE(Chart(html, "correlation").empty());

  std::ofstream(csv) << "model,score\nsim:explorer,10\nsim:collapse,3\nthird,5\n";
  AidanReducer reducer(testing_units::Preset("reference-2025"), {"sim:explorer", "sim:collapse", "third"}, {0.7});
  for (UnitResult& u : testing_units::SweepUnits()) {
    if (u.unit.temperature == 0.7) reducer.Add(std::move(u));
  }
  reducer.Add(testing_units::MakeUnit("third", 0.7, 100, {{90, 1}, {80, 0.9}, {5, 1}}, kStopIncoherent));
  ASSERT_TRUE(WriteSweepResults(out.string(), {reducer.Results().get()}, options).ok());
  html = Slurp(out / kReportFileName);
  const std::string scatter = Chart(html, "correlation");
  ASSERT_FALSE(scatter.empty());
  EXPECT_EQ(Count(scatter, "<g class=\"series\""), 3);
  EXPECT_NE(html.find("Spearman"), std::string::npos);
}

}  // namespace
}  // namespace noveltygrid
