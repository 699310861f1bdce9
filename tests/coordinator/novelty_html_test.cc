// NoveltyBench's sections of report.html (coordinator/benchmarks/noveltybench/novelty_html.cc), rendered
// from reducer snapshots of hand-made units and checked on the HTML.
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "coordinator/benchmarks/noveltybench/noveltybench.h"
#include "coordinator/benchmarks/unit_source.h"
#include "coordinator/report/html/html_page.h"
#include "coordinator/report/html/svg_chart.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/coordinator/novelty_test_units.h"

namespace noveltygrid::testing_units {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// Committed units by id, as a coordinator's commit log holds them.
class FakeUnitSource : public UnitSource {
 public:
  explicit FakeUnitSource(const std::vector<UnitResult>& units) {
    for (const UnitResult& u : units) units_[u.unit.id] = u;
  }
  absl::Status ForEachUnit(const std::vector<std::string>& ids,
                           const std::function<absl::Status(UnitResult)>& fn) const override {
    for (const std::string& id : ids) {
      if (units_.count(id) == 0) return absl::NotFoundError(id);
      if (absl::Status s = fn(units_.at(id)); !s.ok()) return s;
    }
    return absl::OkStatus();
  }

 private:
  std::map<std::string, UnitResult> units_;
};

NoveltySnapshot Snapshot(std::vector<UnitResult> units, NoveltySettings settings = HandSettings(),
                         const UnitSource* source = nullptr) {
  NoveltyReducer reducer(std::move(settings), HandModels(), HandTemperatures(), HandModes(), HandDatasets(), source);
  for (UnitResult& u : units) reducer.Add(std::move(u));
  return reducer.Snapshot();
}

ReportContext Context(std::vector<std::string> models = HandModels(), std::vector<std::string> simulated = {}) {
  ReportContext context;
  context.models = std::move(models);
  context.simulated = std::move(simulated);
  return context;
}

// The NoveltyBench sections alone (no page around them).
std::string Sections(const NoveltySnapshot& snap, const ReportContext& context = Context()) {
  HtmlPage page("t", "", "");
  const absl::Status status = NoveltyBenchResults(snap).AddHtmlSections(context, page);
  EXPECT_TRUE(status.ok()) << status;
  const std::string full = page.Render();
  // The sections sit between the page's <main> and </main>.
  const size_t begin = full.find("<main>"), end = full.find("</main>");
  EXPECT_NE(end, std::string::npos);
  return full.substr(begin, end - begin);
}

// The <figure> of chart `id` ("" when absent).
std::string Chart(const std::string& html, const std::string& id) {
  const size_t begin = html.find(absl::StrCat("data-chart=\"", id, "\""));
  if (begin == std::string::npos) return "";
  return html.substr(begin, html.find("</figure>", begin) - begin);
}

// The <g class="series"> of `label` in a chart.
std::string Series(const std::string& chart, const std::string& label) {
  const size_t begin = chart.find(absl::StrCat("data-series=\"", label, "\""));
  if (begin == std::string::npos) return "";
  return chart.substr(begin, chart.find("</g>", begin) - begin);
}

int Count(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++n;
  return n;
}

// A quickstart-like unit: k generations of `bytes` bytes in classes 0,1,2,3,0,1,... (openers scored).
UnitResult SyntheticUnit(const std::string& model, double temperature, const std::string& mode, int prompt, int index,
                         int k, size_t bytes) {
  std::vector<int> partition;
  std::vector<std::optional<int>> quality;
  for (int i = 0; i < k; ++i) {
    partition.push_back(i % 4);
    quality.push_back(i < 4 ? std::optional<int>(3 + i) : std::nullopt);
  }
  UnitResult u = MakeNoveltyUnit(model, temperature, mode, "curated", index, partition, quality);
  u.unit.item_id = absl::StrCat("p", prompt);
  u.unit.item_text = absl::StrCat("Prompt number ", prompt, ": invent a name for a bakery that only opens at night.");
  for (StepRecord& a : u.answers) a.answer = std::string(bytes, 'g');
  return u;
}

// `models` x `temperatures` x `modes` x `prompts` synthetic units.
std::vector<UnitResult> Sweep(const std::vector<std::string>& models, const std::vector<double>& temperatures,
                              const std::vector<std::string>& modes, int prompts, int k, size_t bytes) {
  std::vector<UnitResult> units;
  for (const std::string& model : models) {
    for (double t : temperatures) {
      for (const std::string& mode : modes) {
        for (int p = 0; p < prompts; ++p) {
          units.push_back(SyntheticUnit(model, t, mode, p, static_cast<int>(units.size()), k, bytes));
        }
      }
    }
  }
  return units;
}

NoveltySettings SettingsWithK(int k) {
  NoveltySettings s = HandSettings();
  s.set_k(k);
  return s;
}

TEST(NoveltyHtmlTest, AblationChartsHaveOneSeriesPerModel) {
  const std::string html = Sections(Snapshot(HandNoveltyUnits()));
  for (const char* id : {"ablation-noveltybench-mean_utility", "ablation-noveltybench-mean_distinct"}) {
    const std::string chart = Chart(html, id);
    ASSERT_FALSE(chart.empty()) << id;
    EXPECT_EQ(Count(chart, "<g class=\"series\""), 2) << id;
    EXPECT_EQ(Count(Series(chart, "m"), "<circle"), 2) << id << ": m has cells at 1.0 and 0.7";
    EXPECT_EQ(Count(Series(chart, "n"), "<circle"), 1) << id;
    EXPECT_THAT(chart, Not(HasSubstr("class=\"err\""))) << "no repeats, no error bars";
  }
}

TEST(NoveltyHtmlTest, OneTemperatureStillGivesTheAblationWithOnePointPerModel) {
  const std::string html =
      Sections(Snapshot({MakeNoveltyUnit("m", 1.0, kModeStandard, "curated", 0, {0, 1}, {6, 3}),
                         MakeNoveltyUnit("n", 1.0, kModeStandard, "curated", 1, {0, 0}, {3, std::nullopt})}));
  for (const char* id : {"ablation-noveltybench-mean_utility", "ablation-noveltybench-mean_distinct"}) {
    const std::string chart = Chart(html, id);
    ASSERT_FALSE(chart.empty()) << id;
    EXPECT_EQ(Count(chart, "<g class=\"series\""), 2) << id;
    EXPECT_EQ(Count(Series(chart, "m"), "<circle"), 1) << id;
    EXPECT_EQ(Count(Series(chart, "n"), "<circle"), 1) << id;
  }
}

TEST(NoveltyHtmlTest, AModelWhoseUnitsAllFailedKeepsItsAblationSeriesButNoPoints) {
  const std::string html =
      Sections(Snapshot({MakeNoveltyUnit("m", 1.0, kModeStandard, "curated", 0, {0, 1}, {6, 3}),
                         MakeFailedNoveltyUnit("n", 1.0, kModeStandard, "curated", 1, 1, "HTTP 503")}));
  const std::string ablation = Chart(html, "ablation-noveltybench-mean_utility");
  EXPECT_EQ(Count(ablation, "<g class=\"series\""), 2);
  EXPECT_EQ(Count(Series(ablation, "n"), "<circle"), 0);
  const std::string scatter = Chart(html, "noveltybench-distinct-utility");
  EXPECT_EQ(Count(scatter, "<g class=\"series\""), 1) << "a scatter draws no empty series";
  EXPECT_THAT(html, HasSubstr("failed: HTTP 503"));
}

TEST(NoveltyHtmlTest, LeaderboardScatterAndTablesKeepEachModelsColour) {
  // "x" comes first in the sweep, so m and n take palette colours 1 and 2 in every chart.
  const std::string html = Sections(Snapshot(HandNoveltyUnits()), Context({"x", "m", "n"}));
  for (const char* id : {"noveltybench-leaderboard-mean_utility", "noveltybench-leaderboard-mean_distinct"}) {
    const std::string chart = Chart(html, id);
    ASSERT_FALSE(chart.empty()) << id;
    EXPECT_EQ(Count(chart, "<rect"), 2) << id;
    EXPECT_THAT(Series(chart, "m"), HasSubstr(absl::StrCat("fill=\"", PaletteColor(1), "\""))) << id;
    EXPECT_THAT(Series(chart, "n"), HasSubstr(absl::StrCat("fill=\"", PaletteColor(2), "\""))) << id;
  }
  const std::string scatter = Chart(html, "noveltybench-distinct-utility");
  EXPECT_EQ(Count(Series(scatter, "m"), "<circle"), 2);
  EXPECT_THAT(Series(scatter, "n"), HasSubstr(PaletteColor(2)));
  EXPECT_THAT(html, HasSubstr("id=\"noveltybench-leaderboard-table\" class=\"sortable\""));
  // m's best (1.0) is the curated+wildchat value, 7350 / 1100.
  const std::string table = html.substr(html.find("id=\"noveltybench-leaderboard-table\""));
  EXPECT_THAT(table.substr(0, table.find("</table>")), HasSubstr(">6.68</td>"));
  EXPECT_THAT(html, HasSubstr("<th>paraphrase utility</th>"));
  EXPECT_THAT(html, HasSubstr("<th>wildchat distinct</th>"));
  EXPECT_THAT(html, HasSubstr("id=\"noveltybench-datasets-table\""));
}

TEST(NoveltyHtmlTest, RepeatsDrawErrorBars) {
  std::vector<UnitResult> units;
  for (int repeat = 0; repeat < 3; ++repeat) {
    for (const std::string& model : HandModels()) {
      UnitResult u = MakeNoveltyUnit(model, 1.0, kModeStandard, "curated", repeat, {0, repeat % 2},
                                     {6 + repeat, repeat % 2 ? std::optional<int>(2) : std::nullopt});
      u.unit.repeat = repeat;
      u.unit.item_id = "p0";
      units.push_back(std::move(u));
    }
  }
  const std::string html = Sections(Snapshot(std::move(units)));
  for (const char* id : {"noveltybench-leaderboard-mean_utility", "ablation-noveltybench-mean_utility",
                         "ablation-noveltybench-mean_distinct"}) {
    EXPECT_EQ(Count(Chart(html, id), "class=\"err\""), 2) << id;
  }
  EXPECT_THAT(html, HasSubstr("&plusmn;"));
  EXPECT_EQ(Count(html, "<option"), 1);
  EXPECT_EQ(Count(html, "<ol class=\"samples\">"), 2 * 2) << "repeat 0 of each model, in the view and its template";
}

TEST(NoveltyHtmlTest, PickerHasOneOptionPerPromptAndShowsFailures) {
  const NoveltySnapshot snap = Snapshot(HandNoveltyUnits());
  std::set<std::string> prompts;
  for (const NoveltyRowResult& row : snap.rows) prompts.insert(row.result.unit.item_id);
  const std::string html = Sections(snap);
  ASSERT_THAT(html, HasSubstr("<select id=\"prompt-picker\" data-view=\"sample-view\" data-name=\"prompt\">"));
  EXPECT_EQ(Count(html, "<option"), static_cast<int>(prompts.size()));
  for (const std::string& id : prompts) {
    EXPECT_THAT(html, HasSubstr(absl::StrCat("<option value=\"", id, "\">"))) << id;
    EXPECT_THAT(html, HasSubstr(absl::StrCat("<template data-prompt=\"", id, "\">"))) << id;
  }
  EXPECT_THAT(html, HasSubstr("failed: generation by m failed: HTTP 503"));
  EXPECT_THAT(html, HasSubstr("full text is in samples.jsonl"));
  EXPECT_THAT(html, Not(HasSubstr("Showing the first")));
}

TEST(NoveltyHtmlTest, GenerationsCarryTheirClassColourAndQuality) {
  const std::string html =
      Sections(Snapshot({MakeNoveltyUnit("m", 1.0, kModeStandard, "curated", 0, {0, 1}, {6, 3}),
                         MakeNoveltyUnit("m", 1.0, kModeStandard, "curated", 1, {0, 0}, {3, std::nullopt})}));
  EXPECT_THAT(html, HasSubstr(absl::StrCat("<li style=\"border-color:", PaletteColor(0),
                                           "\"><span class=\"meta\">class 1 \xC2\xB7 quality 6</span> generation 1 "
                                           "of m/1/standard/curated/0</li>")));
  EXPECT_THAT(html, HasSubstr(absl::StrCat("<li style=\"border-color:", PaletteColor(1),
                                           "\"><span class=\"meta\">class 2 \xC2\xB7 quality 3</span>")));
  EXPECT_THAT(html, HasSubstr(absl::StrCat("<li style=\"border-color:", PaletteColor(0),
                                           "\"><span class=\"meta\">class 1 \xC2\xB7 quality -</span> generation 2 "
                                           "of m/1/standard/curated/1</li>")));
}

TEST(NoveltyHtmlTest, AtMostAHundredPromptsAreViewed) {
  const std::string html = Sections(Snapshot(Sweep({"m"}, {1.0}, {kModeStandard}, 150, 2, 40), SettingsWithK(2)));
  EXPECT_EQ(Count(html, "<option"), 100);
  EXPECT_THAT(html, HasSubstr("<option value=\"p99\">"));
  EXPECT_THAT(html, Not(HasSubstr("<option value=\"p100\">")));
  EXPECT_THAT(html, HasSubstr("Showing the first 100 of 150 prompts."));
}

TEST(NoveltyHtmlTest, TextIsEscapedAndLongGenerationsAreCut) {
  UnitResult u = MakeNoveltyUnit("m", 1.0, kModeStandard, "curated", 0, {0, 1}, {6, 3});
  u.unit.item_text = "Say <b>hi</b> & \"bye\"";
  u.answers[0].answer = "<script>alert(1)</script>";
  u.answers[1].answer = std::string(1000, 'x');
  const std::string html = Sections(Snapshot({std::move(u)}));
  EXPECT_THAT(html, HasSubstr("&lt;script&gt;alert(1)&lt;/script&gt;"));
  EXPECT_THAT(html, Not(HasSubstr("<script")));
  EXPECT_THAT(html, HasSubstr("Say &lt;b&gt;hi&lt;/b&gt; &amp; &quot;bye&quot;"));
  EXPECT_THAT(html, Not(HasSubstr("<b>")));
  EXPECT_THAT(html, HasSubstr(std::string(300, 'x') + "...</li>"));
  EXPECT_THAT(html, Not(HasSubstr(std::string(301, 'x'))));
}

TEST(NoveltyHtmlTest, GenerationsAreFetchedFromTheUnitSource) {
  const std::vector<UnitResult> units = HandNoveltyUnits();
  FakeUnitSource source(units);
  const NoveltySnapshot snap = Snapshot(units, HandSettings(), &source);
  ASSERT_TRUE(snap.rows.front().result.answers.empty()) << "the reducer keeps no generations given a source";
  const std::string html = Sections(snap);
  EXPECT_THAT(html, HasSubstr("generation 2 of m/1/standard/wildchat/2</li>"));
  EXPECT_THAT(html, HasSubstr("generation 1 of n/1/standard/curated/6</li>"));
}

TEST(NoveltyHtmlTest, ChartsAreMarkedWhenModelsAreSimulated) {
  const std::string plain = Sections(Snapshot(HandNoveltyUnits()));
  const std::string simulated = Sections(Snapshot(HandNoveltyUnits()), Context(HandModels(), {"m"}));
  EXPECT_EQ(Count(plain, "simulated models"), 0);
  EXPECT_EQ(Count(simulated, "simulated: m</text>"), 5) << "leaderboard x2, ablation x2, scatter name m";
  const std::string all = Sections(Snapshot(HandNoveltyUnits()), Context(HandModels(), HandModels()));
  EXPECT_EQ(Count(all, "simulated models</text>"), 5);
}

TEST(NoveltyHtmlTest, NoResultsGiveOneSectionSayingSo) {
  const std::string html = Sections(Snapshot({}));
  EXPECT_EQ(Count(html, "<section"), 1);
  EXPECT_THAT(html, HasSubstr("No NoveltyBench results yet."));
}

TEST(NoveltyHtmlTest, QuickstartSizedSweepStaysWellUnder500KB) {
  // examples/quickstart.yaml: 4 models x 1 temperature x 2 modes x 20 prompts, k = 10, ~100-byte generations.
  const std::vector<std::string> models = {"sim:explorer", "sim:steady", "sim:chaotic", "sim:collapse"};
  const std::string html = Sections(
      Snapshot(Sweep(models, {1.0}, {kModeStandard, kModeInContext}, 20, 10, 100), SettingsWithK(10)), Context(models));
  std::cout << "NoveltyBench sections of a quickstart-sized sweep: " << html.size() << " bytes\n";
  EXPECT_LT(html.size(), 500u * 1000);
  EXPECT_EQ(Count(html, "<option"), 20);
}

TEST(NoveltyHtmlTest, ThousandUnitsOfLongGenerationsStayUnder10MB) {
  const std::vector<std::string> models = {"a", "b", "c", "d", "e"};
  const std::string html =
      Sections(Snapshot(Sweep(models, {0.7, 1.0}, {kModeStandard}, 100, 10, 2000), SettingsWithK(10)), Context(models));
  std::cout << "NoveltyBench sections of 1,000 units with 2,000-byte generations: " << html.size() << " bytes\n";
  EXPECT_LT(html.size(), 10u * 1000 * 1000);
  EXPECT_EQ(Count(html, "<option"), 100);
}

}  // namespace
}  // namespace noveltygrid::testing_units
