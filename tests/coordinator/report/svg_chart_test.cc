#include "coordinator/report/html/svg_chart.h"

#include <limits>
#include <regex>
#include <string>

#include "gtest/gtest.h"
#include "tests/coordinator/report/html_test_util.h"

namespace noveltygrid {
namespace {

using html_test::Count;

TEST(NiceTicksTest, CoverTheRangeInNiceSteps) {
  const std::vector<double> t = NiceTicks(3, 2644, 5);
  ASSERT_GE(t.size(), 3u);
  EXPECT_LE(t.front(), 3);
  EXPECT_GE(t.back(), 2644);
  EXPECT_DOUBLE_EQ(t[1] - t[0], 1000);
  const std::vector<double> small = NiceTicks(0.4, 1.0, 6);
  EXPECT_DOUBLE_EQ(small.front(), 0.4);
  EXPECT_NEAR(small[1] - small[0], 0.2, 1e-12);  // 0.4, 0.6, 0.8, 1.0
  EXPECT_GE(small.back(), 1.0 - 1e-12);
}

TEST(NiceTicksTest, DegenerateRangesStillGiveTwoTicks) {
  EXPECT_GE(NiceTicks(5, 5, 5).size(), 2u);
  EXPECT_GE(NiceTicks(0, 0, 5).size(), 2u);
  EXPECT_EQ(NiceTicks(std::numeric_limits<double>::quiet_NaN(), 1, 5), (std::vector<double>{0, 1}));
  // Values a unit in the last place apart (once an endless loop: the step could not move a double).
  const std::vector<double> tiny = NiceTicks(0.3, 0.1 + 0.2, 5);
  EXPECT_GE(tiny.size(), 2u);
  EXPECT_LE(tiny.size(), 100u);
  EXPECT_LE(tiny.front(), 0.3);
  EXPECT_GE(tiny.back(), 0.1 + 0.2);
  EXPECT_LE(NiceTicks(1e300, 1.0000000000001e300, 5).size(), 100u);
}

TEST(TickTextTest, AsManyDecimalsAsTheStepNeeds) {
  EXPECT_EQ(TickText(1000, 500), "1000");
  EXPECT_EQ(TickText(0.4, 0.1), "0.4");
  EXPECT_EQ(TickText(0.25, 0.25), "0.25");
}

ChartSpec TwoSeries() {
  ChartSpec spec;
  spec.id = "ablation-test";
  spec.title = "Valid <answers>";
  spec.series = {{"sim:a", {{0.4, 10}, {0.7, 12, 1.5}}}, {"m&b", {{0.4, 3}, {0.7, 4}}}};
  return spec;
}

TEST(RenderChartTest, OneSeriesGroupPerSeriesWithEscapedLabels) {
  const std::string html = RenderChart(TwoSeries());
  EXPECT_NE(html.find("<figure class=\"chart\" data-chart=\"ablation-test\">"), std::string::npos);
  EXPECT_EQ(Count(html, "<g class=\"series\""), 2);
  EXPECT_NE(html.find("data-series=\"m&amp;b\""), std::string::npos);
  EXPECT_NE(html.find("Valid &lt;answers&gt;"), std::string::npos);
  EXPECT_EQ(html.find("m&b"), std::string::npos);
  EXPECT_EQ(Count(html, "<polyline"), 2);
  EXPECT_EQ(Count(html, "class=\"err\""), 1);  // only the point with an error
  EXPECT_EQ(html.find("simulated models"), std::string::npos);
}

TEST(RenderChartTest, SimulatedChartsSaySo) {
  ChartSpec spec = TwoSeries();
  spec.simulated_note = "simulated models";
  EXPECT_NE(RenderChart(spec).find("simulated models"), std::string::npos);
}

TEST(RenderChartTest, LinePointsAreJoinedInXOrder) {
  ChartSpec spec;
  spec.series = {{"s", {{3, 1}, {1, 1}, {2, 1}}}};
  const std::string html = RenderChart(spec);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(html, m, std::regex("points=\"(\\d+),\\d+ (\\d+),\\d+ (\\d+),\\d+\"")));
  EXPECT_LT(std::stoi(m[1]), std::stoi(m[2]));
  EXPECT_LT(std::stoi(m[2]), std::stoi(m[3]));
}

TEST(RenderChartTest, BarsNameTheirCategoriesAndSkipTheLegendWhenAsked) {
  ChartSpec spec;
  spec.kind = ChartKind::kBar;
  spec.categories = {"first", "second"};
  spec.series = {{"first", {{0, 5}}}, {"second", {{1, 7}}}};
  spec.legend = false;
  const std::string html = RenderChart(spec);
  EXPECT_EQ(Count(html, "<rect"), 2);
  EXPECT_NE(html.find(">first</text>"), std::string::npos);
  EXPECT_NE(html.find(">second</text>"), std::string::npos);
  EXPECT_EQ(html.find("class=\"legend\""), std::string::npos);
  EXPECT_EQ(Count(HtmlLegend(spec.series), "<span>"), 2);
}

TEST(PaletteColorTest, CyclesAndKeepsIndexesStable) {
  EXPECT_EQ(PaletteColor(0), PaletteColor(12));
  EXPECT_NE(PaletteColor(0), PaletteColor(1));
  EXPECT_EQ(PaletteColor(-1), PaletteColor(11));
}

}  // namespace
}  // namespace noveltygrid
