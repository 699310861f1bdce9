// AidanBench's sections of report.html, from a reducer's snapshot (coordinator/benchmarks/aidanbench/aidan_html.cc).
#include <regex>
#include <string>
#include <vector>

#include "coordinator/benchmarks/aidanbench/aidan_reducer.h"
#include "coordinator/benchmarks/aidanbench/aidan_results.h"
#include "coordinator/report/html/html_page.h"
#include "gtest/gtest.h"
#include "tests/coordinator/aidan_test_units.h"
#include "tests/coordinator/report/html_test_util.h"

namespace noveltygrid {
namespace {

using html_test::Count;

using html_test::Chart;

std::string Render(const std::vector<std::string>& models, const std::vector<double>& temperatures,
                   std::vector<UnitResult> units, const std::vector<std::string>& simulated = {}) {
  AidanReducer reducer(testing_units::Preset("reference-2025"), models, temperatures);
  for (UnitResult& u : units) reducer.Add(std::move(u));
  std::unique_ptr<BenchmarkResults> results = reducer.Results();
  ReportContext context{models, simulated};
  HtmlPage page("t", "s", "");
  EXPECT_TRUE(results->AddHtmlSections(context, page).ok());
  return page.Render();
}

TEST(AidanHtmlTest, AblationChartsHaveOneSeriesPerModel) {
  const std::string html = Render({"sim:explorer", "sim:collapse"}, {0.0, 0.7, 1.0}, testing_units::SweepUnits());
  for (const char* id : {"ablation-aidanbench-valid_answers", "ablation-aidanbench-novelty_sum"}) {
    const std::string chart = Chart(html, id);
    ASSERT_FALSE(chart.empty()) << id;
    EXPECT_EQ(Count(chart, "<g class=\"series\""), 2) << id;
    EXPECT_NE(chart.find("data-series=\"sim:explorer\""), std::string::npos);
    EXPECT_EQ(Count(chart, "<circle"), 6) << "one point per (model, temperature)";
  }
  EXPECT_EQ(Chart(html, "ablation-aidanbench-valid_answers").find("simulated models"), std::string::npos);
}

TEST(AidanHtmlTest, ChartsOfSimulatedModelsAreLabelled) {
  const std::string html = Render({"sim:explorer", "sim:collapse"}, {0.0, 0.7, 1.0}, testing_units::SweepUnits(),
                                  {"sim:explorer", "sim:collapse"});
  EXPECT_EQ(Count(html, "<figure class=\"chart\""), Count(html, ">simulated models</text>"));
}

TEST(AidanHtmlTest, QuestionPickerHasEveryQuestionAndItsLoops) {
  const std::string html = Render({"sim:explorer", "sim:collapse"}, {0.0, 0.7, 1.0}, testing_units::SweepUnits());
  EXPECT_NE(html.find("<select id=\"question-picker\""), std::string::npos);
  EXPECT_EQ(Count(html, "<template data-question="), 3);
  for (const char* q : {"q0", "q1", "q2"})
    EXPECT_NE(html.find("<option value=\"" + std::string(q) + "\""), std::string::npos);
  const size_t view = html.find("<div id=\"iteration-plot\" data-question=\"q0\">");
  ASSERT_NE(view, std::string::npos);
  const std::string first = html.substr(view, html.find("<template", view) - view);
  // 2 models x 3 temperatures: six loops in each of the three plots, one ending answer each.
  EXPECT_EQ(Count(Chart(first, "iteration-coherence"), "<polyline"), 6);
  EXPECT_EQ(Count(Chart(first, "iteration-mmr"), "<polyline"), 6);
  EXPECT_EQ(Count(first, "(stopped: incoherent"), 6);
}

TEST(AidanHtmlTest, ManyLoopsPerQuestionShowEachModelsBestTemperature) {
  std::vector<UnitResult> units;
  std::vector<std::string> models = {"a", "b", "c"};
  std::vector<double> temps = {0.1, 0.3, 0.5, 0.7, 0.9};
  int index = 0;
  for (const std::string& m : models) {
    for (double t : temps) units.push_back(testing_units::MakeUnit(m, t, 3 * index++, {{90, 1}, {80, 0.9}, {70, 0.1}}));
  }
  const std::string html = Render(models, temps, units);
  const size_t view = html.find("<div id=\"iteration-plot\"");
  ASSERT_NE(view, std::string::npos);
  const std::string first = html.substr(view, html.find("<template", view) - view);
  EXPECT_EQ(Count(Chart(first, "iteration-novelty"), "<polyline"), 3);
  EXPECT_NE(html.find("too many to read"), std::string::npos);
}

TEST(AidanHtmlTest, AtMostTwoHundredQuestionsAreDrawn) {
  std::vector<UnitResult> units;
  for (int i = 0; i < 205; ++i) {
    units.push_back(testing_units::MakeUnit("m", 0.7, i, {{90, 1}, {5, 1}}, kStopIncoherent));
    units.back().unit.item_id = absl::StrCat("question-", i);
  }
  const std::string html = Render({"m"}, {0.7}, units);
  EXPECT_EQ(Count(html, "<template data-question="), 200);
  EXPECT_NE(html.find("The first 200 questions; 5 more"), std::string::npos);
  const size_t table = html.find("id=\"aidanbench-questions-table\"");
  EXPECT_EQ(Count(html.substr(table, html.find("</table>", table) - table), "<tr>"), 206) << "the table has them all";
}

TEST(AidanHtmlTest, TableHasARowPerLoopAndTextIsEscaped) {
  std::vector<UnitResult> units = {testing_units::MakeUnit("m", 0.7, 0, {{90, 1}, {10, 1}}, kStopIncoherent)};
  units[0].unit.item_text = "<script>alert(1)</script>";
  units[0].answers.back().answer = "</li><script>x</script>";
  const std::string html = Render({"m"}, {0.7}, units);
  EXPECT_EQ(Count(html, "<script>"), 1) << "the page's own script only";
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  const size_t table = html.find("id=\"aidanbench-questions-table\"");
  ASSERT_NE(table, std::string::npos);
  EXPECT_EQ(Count(html.substr(table, html.find("</table>", table) - table), "<tr>"), 2);  // header + one loop
}

TEST(AidanHtmlTest, LeaderboardShowsIntervalsOnlyWithRepeats) {
  std::vector<UnitResult> units;
  for (int repeat = 0; repeat < 3; ++repeat) {
    UnitResult u =
        testing_units::MakeUnit("m", 0.7, repeat * 3, std::vector<std::pair<double, double>>(2 + repeat, {90, 1}));
    u.unit.repeat = repeat;
    units.push_back(u);
  }
  const std::string with = Render({"m"}, {0.7}, units);
  EXPECT_NE(Chart(with, "aidanbench-leaderboard-valid").find("class=\"err\""), std::string::npos);
  EXPECT_NE(with.find("error bars: 95% t-interval"), std::string::npos);
  const std::string without = Render({"m"}, {0.7}, {testing_units::MakeUnit("m", 0.7, 0, {{90, 1}})});
  EXPECT_EQ(Chart(without, "aidanbench-leaderboard-valid").find("class=\"err\""), std::string::npos);
  EXPECT_EQ(without.find("+-"), std::string::npos);
}

}  // namespace
}  // namespace noveltygrid
