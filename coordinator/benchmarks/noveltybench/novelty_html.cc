// NoveltyBench's sections of report.html (BenchmarkResults::AddHtmlSections): the leaderboard, the
// temperature ablation, distinct against utility, the means by sampling mode, dataset and (when the
// prompts carry one) category, and a sample viewer showing a prompt's generations coloured by
// partition class.
//
// Every number comes from the snapshot (the reducer's means; nothing is scored again). The viewer's
// generations are fetched the way samples.jsonl's are (ForEachWholeUnit: from the snapshot's unit
// source when it has one), for a bounded set of prompts only, so the page stays small on a large sweep.
#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/json_util.h"
#include "common/status_macros.h"
#include "coordinator/benchmarks/item_groups_html.h"
#include "coordinator/benchmarks/noveltybench/noveltybench.h"
#include "coordinator/benchmarks/repeat_interval.h"
#include "coordinator/benchmarks/unit_source.h"
#include "coordinator/report/html/svg_chart.h"
#include "coordinator/report/text_table.h"

namespace noveltygrid {
namespace {

// The viewer shows the first prompts (row order) whose generations, over every model, temperature and
// mode, fit this many -- at most kMaxViewedPrompts prompts: ~4 MB of page at worst.
constexpr size_t kMaxViewedPrompts = 100;
constexpr size_t kMaxViewedGenerations = 10000;
constexpr size_t kGenerationBytes = 300;
constexpr size_t kPromptBytes = 1000;
constexpr size_t kOptionBytes = 60;
constexpr size_t kCategoryBytes = 18;

// One of the two headline figures.
struct Metric {
  const char* key;    // its summary.json name, in chart ids
  const char* title;  // axis and column text
  double NoveltyWeightedValue::*field;
};
constexpr Metric kUtility{"mean_utility", "mean utility", &NoveltyWeightedValue::utility};
constexpr Metric kDistinct{"mean_distinct", "mean distinct (classes)", &NoveltyWeightedValue::distinct};

// A cell's headline (as the leaderboard ranks it): the curated+wildchat value where there is one, else
// the first mode's means.
NoveltyWeightedValue Headline(const NoveltySweepCell& cell) {
  return cell.leaderboard_value.value_or(NoveltyWeightedValue{cell.means.mean_distinct, cell.means.mean_utility});
}

// The 95% half-width of `metric` across repeats (0 without repeats).
double HalfWidth(const std::vector<NoveltyWeightedValue>& by_repeat, const Metric& metric) {
  if (by_repeat.size() < 2) return 0;
  std::vector<double> values;
  for (const NoveltyWeightedValue& v : by_repeat) values.push_back(v.*metric.field);
  return IntervalOf(values).half_width;
}

bool HasRepeats(const NoveltySnapshot& snap) {
  return std::any_of(snap.cells.begin(), snap.cells.end(), [](const auto& c) { return c.by_repeat.size() > 1; });
}

bool Weighted(const NoveltySnapshot& snap) {
  return std::any_of(snap.leaderboard.begin(), snap.leaderboard.end(), [](const auto& b) { return b.weighted; });
}

std::string FiguresNote(const NoveltySnapshot& snap) {
  std::string note = absl::StrCat("Mode ", snap.modes.front(), ", every dataset");
  if (Weighted(snap)) absl::StrAppend(&note, "; the curated+wildchat leaderboard value where both have rows");
  absl::StrAppend(&note, ".");
  if (HasRepeats(snap)) absl::StrAppend(&note, " Error bars: ", kRepeatIntervalMethod, ".");
  return note;
}

// A model id short enough for a bar's label (the legend has it whole).
std::string ShortModel(const std::string& model) {
  const size_t slash = model.rfind('/');
  return Abbreviate(slash == std::string::npos ? model : model.substr(slash + 1), kCategoryBytes);
}

std::string LeaderboardChart(const NoveltySnapshot& snap, const ReportContext& context, const Metric& metric) {
  ChartSpec spec =
      context.NewChart(absl::StrCat("noveltybench-leaderboard-", metric.key),
                       absl::StrCat("NoveltyBench: ", metric.title, " at best temperature"), ChartKind::kBar);
  spec.y_label = metric.title;
  spec.caption = FiguresNote(snap);
  for (size_t i = 0; i < snap.leaderboard.size(); ++i) {
    const NoveltyBest& best = snap.leaderboard[i];
    const double y = NoveltyWeightedValue{best.distinct, best.utility}.*metric.field;
    spec.categories.push_back(ShortModel(best.model));
    ChartSeries series{best.model, {}, context.ColorOf(best.model)};
    series.points.push_back(ChartPoint{
        static_cast<double>(i), y, HalfWidth(best.by_repeat, metric),
        absl::StrFormat("%s at T=%s: %s %.3f", best.model, FormatTemperature(best.temperature), metric.title, y)});
    spec.series.push_back(std::move(series));
  }
  return RenderChart(spec);
}

// A temperature as the config writes it, sorting by value.
// `value` with "+- half-width" when there are repeats, sorting by the value.
HtmlCell FigureCell(double value, double half_width, bool repeats) {
  HtmlCell cell = NumberCell(value, 2);
  if (repeats) cell.html = absl::StrFormat("%.2f &plusmn; %.2f", value, half_width);
  return cell;
}

std::string LeaderboardTable(const NoveltySnapshot& snap) {
  const bool repeats = HasRepeats(snap);
  HtmlTable table;
  table.id = "noveltybench-leaderboard-table";
  table.sortable = true;
  table.header = {"model", "best temperature", "mean utility", "mean distinct", "prompts"};
  for (const NoveltyBest& best : snap.leaderboard) {
    const NoveltySweepCell* cell = nullptr;
    for (const NoveltySweepCell& c : snap.cells) {
      if (c.model == best.model && c.temperature == best.temperature) cell = &c;
    }
    table.rows.push_back({TextCell(best.model), TemperatureCell(best.temperature),
                          FigureCell(best.utility, HalfWidth(best.by_repeat, kUtility), repeats),
                          FigureCell(best.distinct, HalfWidth(best.by_repeat, kDistinct), repeats),
                          NumberCell(cell == nullptr ? 0 : cell->means.prompts, 0)});
  }
  return RenderTable(table);
}

// One series per model (its palette colour) with a point per cell that has scored rows, `point` of it.
template <typename Point>
std::vector<ChartSeries> SeriesPerModel(const NoveltySnapshot& snap, const ReportContext& context, Point point) {
  std::vector<ChartSeries> out;
  for (const std::string& model : snap.models) {
    ChartSeries series{model, {}, context.ColorOf(model)};
    for (const NoveltySweepCell& cell : snap.cells) {
      if (cell.model == model && (cell.means.prompts > 0 || cell.leaderboard_value)) {
        series.points.push_back(point(cell));
      }
    }
    out.push_back(std::move(series));
  }
  return out;
}

std::string AblationChart(const NoveltySnapshot& snap, const ReportContext& context, const Metric& metric) {
  ChartSpec spec =
      context.NewChart(absl::StrCat("ablation-noveltybench-", metric.key),
                       absl::StrCat("NoveltyBench: ", metric.title, " against temperature"), ChartKind::kLine);
  spec.x_label = "temperature";
  spec.y_label = metric.title;
  spec.caption = FiguresNote(snap);
  // Every model has its series (a model whose units all failed: an empty line).
  spec.series = SeriesPerModel(snap, context, [&metric](const NoveltySweepCell& cell) {
    const double y = Headline(cell).*metric.field;
    return ChartPoint{cell.temperature, y, HalfWidth(cell.by_repeat, metric),
                      absl::StrFormat("%s at T=%s: %.3f", cell.model, FormatTemperature(cell.temperature), y)};
  });
  return RenderChart(spec);
}

std::string ScatterChart(const NoveltySnapshot& snap, const ReportContext& context) {
  ChartSpec spec = context.NewChart("noveltybench-distinct-utility", "NoveltyBench: mean utility against mean distinct",
                                    ChartKind::kScatter);
  spec.x_label = kDistinct.title;
  spec.y_label = kUtility.title;
  spec.caption = absl::StrCat("One point per model and temperature. ", FiguresNote(snap));
  for (ChartSeries& series : SeriesPerModel(snap, context, [](const NoveltySweepCell& cell) {
         const NoveltyWeightedValue v = Headline(cell);
         return ChartPoint{v.distinct, v.utility, 0,
                           absl::StrFormat("%s at T=%s: distinct %.2f, utility %.2f", cell.model,
                                           FormatTemperature(cell.temperature), v.distinct, v.utility)};
       })) {
    if (!series.points.empty()) spec.series.push_back(std::move(series));  // a scatter has no empty lines
  }
  return RenderChart(spec);
}

// A table of every cell's means per group (`names`: the sweep's modes or datasets; `groups`: the cell's
// means of each), three columns a group; `errors` adds the cell's failed units.
std::string GroupTable(const NoveltySnapshot& snap, const std::string& id, const std::vector<std::string>& names,
                       std::vector<NoveltyGroupMeans> NoveltySweepCell::*groups_of, bool errors) {
  HtmlTable table;
  table.id = id;
  table.sortable = true;
  table.header = {"model", "temperature"};
  for (const std::string& name : names) {
    table.header.push_back(absl::StrCat(name, " utility"));
    table.header.push_back(absl::StrCat(name, " distinct"));
    table.header.push_back(absl::StrCat(name, " prompts"));
  }
  if (errors) table.header.push_back("failed units");
  for (const NoveltySweepCell& cell : snap.cells) {
    std::vector<HtmlCell> row = {TextCell(cell.model), TemperatureCell(cell.temperature)};
    const std::vector<NoveltyGroupMeans>& groups = cell.*groups_of;
    for (const std::string& name : names) {
      auto it = std::find_if(groups.begin(), groups.end(), [&](const NoveltyGroupMeans& g) { return g.name == name; });
      if (it == groups.end()) {
        row.insert(row.end(), {MissingCell(), MissingCell(), MissingCell()});
      } else {
        row.insert(row.end(), {NumberCell(it->means.mean_utility, 2), NumberCell(it->means.mean_distinct, 2),
                               NumberCell(it->means.prompts, 0)});
      }
    }
    if (errors) row.push_back(NumberCell(cell.errors, 0));
    table.rows.push_back(std::move(row));
  }
  return absl::StrCat("<div class=\"scroll\">", RenderTable(table), "</div>");
}

std::string BreakdownHtml(const NoveltySnapshot& snap) {
  return absl::StrCat(
      "<h3>By sampling mode</h3><p class=\"note\">Every dataset's rows; failed units are left out of the means "
      "(and counted over every mode).</p>",
      GroupTable(snap, "noveltybench-modes-table", snap.modes, &NoveltySweepCell::by_mode, true),
      "<h3>By dataset</h3><p class=\"note\">Mode ", HtmlEscape(snap.modes.front()), "'s rows.</p>",
      GroupTable(snap, "noveltybench-datasets-table", snap.datasets, &NoveltySweepCell::by_dataset, false));
}

// The means per prompt category of every cell, and a chart of each model's mean utility per category at
// its best temperature. Only for sweeps whose prompts carry categories.
std::string CategoryHtml(const NoveltySnapshot& snap, const ReportContext& context) {
  std::vector<ChartedCell> charted;
  std::vector<const NoveltySweepCell*> best_cells;
  for (const NoveltyBest& best : snap.leaderboard) {
    charted.push_back({best.model, best.temperature});
    best_cells.push_back(FindCell(snap.cells, best.model, best.temperature));
  }
  ChartSpec spec = context.NewChart("noveltybench-by-category", "Mean utility per category at best temperature");
  spec.y_label = kUtility.title;
  spec.caption = absl::StrCat("Mode ", snap.modes.front(), ", every dataset.");
  const std::string chart =
      GroupedBarChart(std::move(spec), context, snap.categories, charted, 2,
                      [&](size_t c, const std::string& category) -> std::optional<double> {
                        const std::vector<NoveltyGroupMeans>& groups = best_cells[c]->by_category;
                        auto it = std::find_if(groups.begin(), groups.end(),
                                               [&](const NoveltyGroupMeans& g) { return g.name == category; });
                        if (it == groups.end()) return std::nullopt;
                        return it->means.mean_utility;
                      });
  return absl::StrCat(
      "<h3>By category</h3><p class=\"note\">Mode ", HtmlEscape(snap.modes.front()),
      "'s rows per prompt <code>category</code> (", HtmlEscape(kNoGroup),
      ": prompts without one); summary.json holds them as <code>by_category</code>.</p>", chart,
      GroupTable(snap, "noveltybench-categories-table", snap.categories, &NoveltySweepCell::by_category, false));
}

// The units the viewer shows: each viewed prompt's repeat-0 rows in row order, the prompts in order of
// first appearance.
struct ViewedUnits {
  std::vector<std::string> prompt_ids;     // the picker's keys
  std::map<std::string, size_t> position;  // prompt id -> its view
  std::vector<const NoveltyRowResult*> rows;
  size_t total_prompts = 0;
};

ViewedUnits SelectViewedUnits(const NoveltySnapshot& snap) {
  std::vector<std::string> order;
  std::map<std::string, size_t> units_of;
  for (const NoveltyRowResult& row : snap.rows) {
    if (row.result.unit.repeat != 0) continue;
    if (units_of[row.result.unit.item_id]++ == 0) order.push_back(row.result.unit.item_id);
  }
  ViewedUnits viewed;
  viewed.total_prompts = order.size();
  const size_t k = static_cast<size_t>(std::max(1, snap.settings.k()));
  size_t generations = 0;
  for (const std::string& id : order) {
    generations += units_of[id] * k;
    if (viewed.prompt_ids.size() == kMaxViewedPrompts ||
        (!viewed.prompt_ids.empty() && generations > kMaxViewedGenerations)) {
      break;
    }
    viewed.position[id] = viewed.prompt_ids.size();
    viewed.prompt_ids.push_back(id);
  }
  for (const NoveltyRowResult& row : snap.rows) {
    if (row.result.unit.repeat == 0 && viewed.position.count(row.result.unit.item_id) > 0) viewed.rows.push_back(&row);
  }
  return viewed;
}

// One unit's generations: a heading, then the list coloured by partition class.
std::string UnitSamples(const NoveltySnapshot& snap, const NoveltyRowResult& row, const UnitResult& whole) {
  const UnitSpec& u = row.result.unit;
  std::string heading = HtmlEscape(u.model);
  if (snap.temperatures.size() > 1) absl::StrAppend(&heading, " \xC2\xB7 T=", FormatTemperature(u.temperature));
  if (snap.modes.size() > 1) absl::StrAppend(&heading, " \xC2\xB7 ", HtmlEscape(u.mode));
  std::string meta = row.score.has_value() ? absl::StrFormat("%d class%s, utility %.2f", row.score->distinct,
                                                             row.score->distinct == 1 ? "" : "es", row.score->utility)
                                           : absl::StrCat("failed: ", HtmlEscape(row.error));
  std::string out =
      absl::StrCat("<h4>", heading, " \xC2\xB7 <span class=\"meta\">", meta, "</span></h4><ol class=\"samples\">");
  const std::vector<int>* partition =
      row.score.has_value() && whole.novelty.has_value() ? &whole.novelty->partition : nullptr;
  for (size_t i = 0; i < whole.answers.size(); ++i) {
    const std::string text = HtmlEscape(Abbreviate(whole.answers[i].answer, kGenerationBytes));
    if (partition == nullptr || i >= partition->size() || i >= whole.novelty->quality.size()) {
      absl::StrAppend(&out, "<li style=\"border-color:#bbb\"><span class=\"meta\">unscored</span> ", text, "</li>");
      continue;
    }
    const std::optional<int>& quality = whole.novelty->quality[i];
    absl::StrAppend(&out, "<li style=\"border-color:", PaletteColor((*partition)[i]), "\"><span class=\"meta\">class ",
                    (*partition)[i] + 1, " \xC2\xB7 quality ", quality.has_value() ? absl::StrCat(*quality) : "-",
                    "</span> ", text, "</li>");
  }
  return out + "</ol>";
}

absl::StatusOr<std::string> SampleViewer(const NoveltySnapshot& snap) {
  const ViewedUnits viewed = SelectViewedUnits(snap);
  std::vector<PickerView> views(viewed.prompt_ids.size());
  std::vector<const UnitResult*> units;
  for (const NoveltyRowResult* row : viewed.rows) units.push_back(&row->result);
  size_t next = 0;
  absl::Status fetched = ForEachWholeUnit(units, snap.source, [&](const UnitResult& whole) {
    const NoveltyRowResult& row = *viewed.rows[next++];
    const UnitSpec& u = row.result.unit;
    PickerView& view = views[viewed.position.at(u.item_id)];
    if (view.key.empty()) {
      view.key = u.item_id;
      view.label = absl::StrCat(u.item_id, ": ", Abbreviate(u.item_text, kOptionBytes));
      view.html = absl::StrCat("<h3>", HtmlEscape(u.item_id), " \xC2\xB7 <span class=\"meta\">", HtmlEscape(u.dataset),
                               "</span></h3><p>", HtmlEscape(Abbreviate(u.item_text, kPromptBytes)), "</p>");
    }
    absl::StrAppend(&view.html, UnitSamples(snap, row, whole));
    return absl::OkStatus();
  });
  if (!fetched.ok()) {
    return absl::Status(fetched.code(), absl::StrCat("NoveltyBench sample viewer: ", fetched.message()));
  }
  std::string note = absl::StrFormat(
      "Each generation is cut to %d bytes (the full text is in samples.jsonl). The left border's colour is the "
      "generation's partition class (functionally equivalent generations share a class); quality is 1..10 where "
      "scored (class openers), \"-\" elsewhere.",
      kGenerationBytes);
  if (viewed.prompt_ids.size() < viewed.total_prompts) {
    absl::StrAppend(
        &note, absl::StrFormat(" Showing the first %d of %d prompts.", viewed.prompt_ids.size(), viewed.total_prompts));
  }
  if (HasRepeats(snap)) absl::StrAppend(&note, " The first repeat's generations are shown.");
  return absl::StrCat("<p class=\"note\">", HtmlEscape(note), "</p>",
                      RenderPicker("prompt-picker", "sample-view", "prompt", "Prompt", views));
}

}  // namespace

absl::Status NoveltyBenchResults::AddHtmlSections(const ReportContext& context, HtmlPage& page) const {
  const NoveltySnapshot& snap = snapshot_;
  if (snap.rows.empty()) {
    page.AddSection(HtmlSection{"noveltybench-leaderboard", "NoveltyBench leaderboard",
                                "<p class=\"note\">No NoveltyBench results yet.</p>"});
    return absl::OkStatus();
  }
  page.AddSection(
      HtmlSection{"noveltybench-leaderboard", "NoveltyBench leaderboard",
                  absl::StrCat("<div class=\"charts\">", LeaderboardChart(snap, context, kUtility),
                               LeaderboardChart(snap, context, kDistinct), "</div>", LeaderboardTable(snap))});
  page.AddSection(HtmlSection{"noveltybench-ablation", "NoveltyBench temperature ablation",
                              absl::StrCat("<div class=\"charts\">", AblationChart(snap, context, kUtility),
                                           AblationChart(snap, context, kDistinct), "</div>")});
  page.AddSection(
      HtmlSection{"noveltybench-scatter", "NoveltyBench: distinct against utility", ScatterChart(snap, context)});
  if (snap.categories.empty()) {
    page.AddSection(HtmlSection{"noveltybench-breakdown", "NoveltyBench by mode and dataset", BreakdownHtml(snap)});
  } else {
    page.AddSection(HtmlSection{"noveltybench-breakdown", "NoveltyBench by mode, dataset and category",
                                absl::StrCat(BreakdownHtml(snap), CategoryHtml(snap, context))});
  }
  ASSIGN_OR_RETURN(std::string viewer, SampleViewer(snap));
  page.AddSection(HtmlSection{"noveltybench-samples", "NoveltyBench samples", std::move(viewer)});
  return absl::OkStatus();
}

}  // namespace noveltygrid
