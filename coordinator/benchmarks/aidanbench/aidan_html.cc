// AidanBench's sections of report.html (coordinator/report/html_report.h): the paper's figures for a
// sweep -- total score per model (Figure 2), score against temperature (Figure 6), coherence, novelty
// and MMR per answer of one question (Figures 3-5), the per-question table (Table 1) -- how the loops
// stopped, and the totals by question domain when the questions carry one.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/aidan_scoring.h"
#include "common/json_util.h"
#include "common/status_macros.h"
#include "coordinator/benchmarks/aidanbench/aidan_results.h"
#include "coordinator/benchmarks/item_groups_html.h"
#include "coordinator/benchmarks/repeat_interval.h"
#include "coordinator/benchmarks/unit_source.h"
#include "coordinator/report/html/svg_chart.h"
#include "coordinator/report/text_table.h"

namespace noveltygrid {
namespace {

// Bounds that keep a large sweep's page small: the iteration plots show at most this many loops per
// question (each model's best temperature beyond it) for at most this many questions, the per-question
// table at most this many rows, and each question the text of one answer per loop plotted, cut to this
// many bytes.
constexpr size_t kMaxLoopsPerQuestion = 12;
constexpr size_t kMaxQuestions = 200;
constexpr size_t kMaxTableRows = 5000;
constexpr size_t kAnswerTextBytes = 280;

std::string Temp(double t) { return FormatTemperature(t); }

std::string RepeatCaption(bool repeats) {
  return repeats ? "Means over repeats; error bars: 95% t-interval across repeats." : "";
}

HtmlSection LeaderboardSection(const AidanSnapshot& s, const ReportContext& context) {
  ChartSpec valid = context.NewChart("aidanbench-leaderboard-valid", "Valid answers at each model's best temperature");
  ChartSpec novelty =
      context.NewChart("aidanbench-leaderboard-novelty", "Novelty sum at each model's best temperature");
  valid.kind = novelty.kind = ChartKind::kBar;
  valid.y_label = "valid answers";
  novelty.y_label = "novelty sum";
  HtmlTable table;
  table.sortable = true;
  table.header = {"rank", "model", "best temperature", "valid answers", "novelty sum", "mean coherence"};
  bool repeats = false;
  for (size_t i = 0; i < s.leaderboard.size(); ++i) {
    const AidanBest& best = s.leaderboard[i];
    const RepeatInterval v = IntervalOf(PerRepeatValidAnswers(best.by_repeat));
    const RepeatInterval n = IntervalOf(PerRepeatNoveltySum(best.by_repeat));
    repeats |= best.by_repeat.size() > 1;
    const std::string tip = absl::StrCat(best.model, " at T=", Temp(best.temperature));
    const double x = static_cast<double>(i);
    const int valid_decimals = v.n > 1 ? 1 : 0;  // a count, unless it is a mean over repeats
    valid.categories.push_back(best.model);
    novelty.categories.push_back(best.model);
    valid.series.push_back(
        {best.model,
         {{x, v.mean, v.half_width, absl::StrCat(tip, ": ", FormatIntervalOrMean(v, valid_decimals))}},
         context.ColorOf(best.model)});
    novelty.series.push_back({best.model,
                              {{x, n.mean, n.half_width, absl::StrCat(tip, ": ", FormatIntervalOrMean(n, 2))}},
                              context.ColorOf(best.model)});
    const double coherence = best.totals.valid_answers > 0 ? best.totals.coherence_sum / best.totals.valid_answers : 0;
    table.rows.push_back({NumberCell(static_cast<double>(i + 1), 0), TextCell(best.model),
                          TemperatureCell(best.temperature),
                          HtmlCell{HtmlEscape(FormatIntervalOrMean(v, valid_decimals)), v.mean, "num"},
                          HtmlCell{HtmlEscape(FormatIntervalOrMean(n, 2)), n.mean, "num"}, NumberCell(coherence, 3)});
  }
  valid.caption = novelty.caption = RepeatCaption(repeats);
  std::string html = absl::StrCat(
      "<p>Answers before the first incoherent or repetitive one, summed over the questions (preset ",
      HtmlEscape(s.preset.name), "); the best temperature has the most valid answers.</p><div class=\"charts\">",
      RenderChart(valid), RenderChart(novelty), "</div>", RenderTable(table));
  return HtmlSection{"aidanbench-leaderboard", "AidanBench leaderboard", std::move(html)};
}

HtmlSection AblationSection(const AidanSnapshot& s, const ReportContext& context) {
  struct Figure {
    const char* field;
    const char* title;
    const char* y_label;
    std::function<std::vector<double>(const std::vector<AidanTotals>&)> per_repeat;
  };
  const std::vector<Figure> figures = {
      {"valid_answers", "Valid answers against temperature", "valid answers", PerRepeatValidAnswers},
      {"novelty_sum", "Novelty sum against temperature", "novelty sum", PerRepeatNoveltySum},
      {"mean_coherence", "Mean coherence of valid answers against temperature", "mean coherence (0-1)",
       [](const std::vector<AidanTotals>& by_repeat) {
         std::vector<double> out;
         for (const AidanTotals& t : by_repeat)
           out.push_back(t.valid_answers > 0 ? t.coherence_sum / t.valid_answers : 0);
         return out;
       }},
  };
  bool repeats = false;
  for (const AidanCell& cell : s.cells) repeats |= cell.by_repeat.size() > 1;
  std::string charts;
  for (const Figure& f : figures) {
    ChartSpec spec = context.NewChart(absl::StrCat("ablation-aidanbench-", f.field), f.title);
    spec.x_label = "temperature";
    spec.y_label = f.y_label;
    spec.caption = RepeatCaption(repeats);
    for (const std::string& model : s.models) {
      ChartSeries series{model, {}, context.ColorOf(model)};
      for (const AidanCell& cell : s.cells) {
        if (cell.model != model) continue;
        const RepeatInterval i = IntervalOf(f.per_repeat(cell.by_repeat));
        series.points.push_back({cell.temperature, i.mean, i.half_width,
                                 absl::StrCat(model, " T=", Temp(cell.temperature), ": ", FormatIntervalOrMean(i, 3))});
      }
      spec.series.push_back(std::move(series));
    }
    absl::StrAppend(&charts, RenderChart(spec));
  }
  return HtmlSection{"aidanbench-ablation", "AidanBench temperature ablation",
                     absl::StrCat("<div class=\"charts\">", charts, "</div>")};
}

HtmlSection StopsSection(const AidanSnapshot& s, const ReportContext& context) {
  std::vector<std::string> reasons;  // first-seen order, so the legend is stable
  std::map<std::pair<std::string, std::string>, int> counts;
  for (const UnitResult& u : s.units) {
    if (std::find(reasons.begin(), reasons.end(), u.stop_reason) == reasons.end()) reasons.push_back(u.stop_reason);
    ++counts[{u.unit.model, u.stop_reason}];
  }
  ChartSpec spec = context.NewChart("aidanbench-stops", "Why the loops stopped, per model");
  spec.kind = ChartKind::kBar;
  spec.categories = s.models;
  spec.y_label = "loops";
  for (size_t r = 0; r < reasons.size(); ++r) {
    ChartSeries series{reasons[r], {}, static_cast<int>(context.models.size() + r)};
    for (size_t m = 0; m < s.models.size(); ++m) {
      const auto it = counts.find({s.models[m], reasons[r]});
      const int n = it == counts.end() ? 0 : it->second;
      series.points.push_back(
          {static_cast<double>(m), static_cast<double>(n), 0, absl::StrCat(s.models[m], ": ", n, " ", reasons[r])});
    }
    spec.series.push_back(std::move(series));
  }
  return HtmlSection{"aidanbench-stops", "AidanBench stop reasons", RenderChart(spec)};
}

HtmlSection QuestionTableSection(const AidanSnapshot& s) {
  const std::vector<AidanQuestionRow> rows = QuestionRows(s);
  const bool repeats = std::any_of(rows.begin(), rows.end(), [](const AidanQuestionRow& r) { return r.repeat != 0; });
  HtmlTable table;
  table.id = "aidanbench-questions-table";
  table.sortable = true;
  table.header = {"model", "temperature"};
  if (repeats) table.header.push_back("repeat");
  for (const char* h : {"question", "iterations", "valid", "avg coherence", "avg novelty", "avg MMR", "stop"}) {
    table.header.push_back(h);
  }
  auto optional = [](const std::optional<double>& v) { return v ? NumberCell(*v, 4) : MissingCell(); };
  for (size_t i = 0; i < rows.size() && i < kMaxTableRows; ++i) {
    const AidanQuestionRow& r = rows[i];
    std::vector<HtmlCell> row = {TextCell(r.model), TemperatureCell(r.temperature)};
    if (repeats) row.push_back(NumberCell(r.repeat, 0));
    row.push_back(TextCell(absl::StrCat(r.question_id, " ", Abbreviate(r.question, 90))));
    row.push_back(NumberCell(static_cast<double>(r.iterations), 0));
    row.push_back(NumberCell(static_cast<double>(r.valid_answers), 0));
    row.push_back(optional(r.avg_coherence));
    row.push_back(optional(r.avg_novelty));
    row.push_back(optional(r.avg_mmr));
    row.push_back(TextCell(r.error.empty() ? r.stop_reason : absl::StrCat(r.stop_reason, ": ", r.error)));
    table.rows.push_back(std::move(row));
  }
  std::string html =
      "<p>The paper's Table 1 for every loop: answers stored, valid answers, and averages over the valid ones "
      "(coherence on the 0-1 scale, MMR with &lambda; = 0.5). Click a column to sort.</p>";
  if (rows.size() > kMaxTableRows) {
    absl::StrAppend(&html, "<p class=\"note\">The first ", kMaxTableRows, " of ", rows.size(),
                    " loops; summary.json (\"questions\") holds them all.</p>");
  }
  absl::StrAppend(&html, "<div class=\"scroll\">", RenderTable(table), "</div>");
  return HtmlSection{"aidanbench-questions", "AidanBench per question", std::move(html)};
}

// Valid answers, novelty sum and questions per domain (and subdomain) of every cell, and a chart of each
// model's valid answers per domain at its best temperature. Only for sweeps whose questions carry domains.
HtmlSection DomainSection(const AidanSnapshot& s, const ReportContext& context) {
  std::set<std::string> domains;
  bool subdomains = false;
  for (const AidanCell& cell : s.cells) {
    for (const auto& [name, domain] : cell.by_domain) {
      domains.insert(name);
      subdomains |= !domain.by_subdomain.empty();
    }
  }
  HtmlTable table;
  table.id = "aidanbench-domains-table";
  table.sortable = true;
  table.header = {"model", "temperature", "domain"};
  if (subdomains) table.header.push_back("subdomain");
  for (const char* h : {"questions", "valid answers", "novelty sum", "mean coherence"}) table.header.push_back(h);
  auto add_row = [&](const AidanCell& cell, const std::string& domain, const std::string& subdomain,
                     const AidanTotals& t) {
    std::vector<HtmlCell> row = {TextCell(cell.model), TemperatureCell(cell.temperature), TextCell(domain)};
    if (subdomains) row.push_back(TextCell(subdomain));
    row.push_back(NumberCell(static_cast<double>(t.questions), 0));
    row.push_back(NumberCell(static_cast<double>(t.valid_answers), 0));
    row.push_back(NumberCell(t.novelty_sum, 2));
    row.push_back(t.valid_answers > 0 ? NumberCell(t.coherence_sum / t.valid_answers, 3) : MissingCell());
    table.rows.push_back(std::move(row));
  };
  for (const AidanCell& cell : s.cells) {
    for (const auto& [name, domain] : cell.by_domain) {
      add_row(cell, name, "all", domain.totals);
      for (const auto& [sub, totals] : domain.by_subdomain) add_row(cell, name, sub, totals);
    }
  }
  std::vector<ChartedCell> charted;
  std::vector<const AidanCell*> best_cells;
  for (const AidanBest& best : s.leaderboard) {
    charted.push_back({best.model, best.temperature});
    best_cells.push_back(FindCell(s.cells, best.model, best.temperature));
  }
  ChartSpec spec =
      context.NewChart("aidanbench-by-domain", "Valid answers per domain at each model's best temperature");
  spec.y_label = "valid answers";
  const std::string chart = GroupedBarChart(std::move(spec), context, {domains.begin(), domains.end()}, charted, 0,
                                            [&](size_t c, const std::string& domain) -> std::optional<double> {
                                              auto it = best_cells[c]->by_domain.find(domain);
                                              if (it == best_cells[c]->by_domain.end()) return std::nullopt;
                                              return static_cast<double>(it->second.totals.valid_answers);
                                            });
  std::string html = absl::StrCat(
      "<p>The totals of each model and temperature split by the questions' <code>domain</code>",
      subdomains ? " and <code>subdomain</code> (\"all\": the whole domain)" : "", "; questions without one are under ",
      HtmlEscape(kNoGroup), ". summary.json holds them as <code>by_domain</code>.</p>", chart, "<div class=\"scroll\">",
      RenderTable(table), "</div>");
  return HtmlSection{"aidanbench-domains", "AidanBench by domain", std::move(html)};
}

// What the iteration plots need of one answer.
struct AnswerPoint {
  int answer_num = 0;
  double coherence = 0;
  double novelty = 0;
  double mmr = 0;
};

// One loop: its answers' scores in loop order and the answer that ended it (the text of the others is
// not kept: a large sweep's answers need not fit in memory).
struct Loop {
  std::string model;
  double temperature = 0;
  std::string stop_reason;
  std::vector<AnswerPoint> points;
  StepRecord last;
};

struct QuestionLoops {
  std::string id;
  std::string text;
  std::vector<Loop> loops;
};

// `temperatures`: how many the sweep has (the series name theirs when there are several).
std::string IterationView(const QuestionLoops& q, const ReportContext& context, size_t temperatures) {
  struct Plot {
    const char* id;
    const char* title;
    const char* y_label;
    double AnswerPoint::*value;
  };
  const Plot plots[] = {
      {"iteration-coherence", "Coherence per answer", "coherence", &AnswerPoint::coherence},
      {"iteration-novelty", "Novelty per answer", "novelty", &AnswerPoint::novelty},
      {"iteration-mmr", "MMR (\xCE\xBB = 0.5) per answer", "MMR", &AnswerPoint::mmr},
  };
  std::string charts;
  std::vector<ChartSeries> legend;
  std::string answers = "<ol class=\"answers\">";
  for (const Plot& p : plots) {
    ChartSpec spec = context.NewChart(p.id, p.title);
    spec.x_label = "answer number";
    spec.y_label = p.y_label;
    spec.width = 400;
    spec.height = 240;
    spec.legend = false;  // one legend above the three
    for (const Loop& loop : q.loops) {
      ChartSeries series{temperatures > 1 ? absl::StrCat(loop.model, " T=", Temp(loop.temperature)) : loop.model,
                         {},
                         context.ColorOf(loop.model)};
      series.markers = false;
      for (const AnswerPoint& a : loop.points) series.points.push_back({static_cast<double>(a.answer_num), a.*p.value});
      spec.series.push_back(std::move(series));
    }
    absl::StrAppend(&charts, RenderChart(spec));
    if (legend.empty()) legend = spec.series;
  }
  for (const Loop& loop : q.loops) {
    if (loop.points.empty()) continue;
    const StepRecord& last = loop.last;
    absl::StrAppend(&answers, "<li><span class=\"meta\">", HtmlEscape(loop.model), " T=", Temp(loop.temperature),
                    ", answer ", last.answer_num, " (stopped: ", HtmlEscape(loop.stop_reason),
                    absl::StrFormat("; coherence %.4g, novelty %.3f", last.coherence, last.novelty), ")</span><br>",
                    HtmlEscape(Abbreviate(last.answer, kAnswerTextBytes)), "</li>");
  }
  absl::StrAppend(&answers, "</ol>");
  return absl::StrCat("<p><strong>", HtmlEscape(q.id), "</strong>: ", HtmlEscape(q.text), "</p>", HtmlLegend(legend),
                      "<div class=\"charts\">", charts, "</div><h3>The answer that ended each loop</h3>", answers);
}

absl::StatusOr<HtmlSection> IterationSection(const AidanSnapshot& s, const ReportContext& context) {
  // Too many loops per question to read: each model's best temperature only.
  std::set<std::pair<std::string, double>> shown;
  if (s.models.size() * s.temperatures.size() > kMaxLoopsPerQuestion) {
    for (const AidanBest& best : s.leaderboard) shown.insert({best.model, best.temperature});
  }
  // The loops drawn -- repeat 0, the first kMaxQuestions questions in snapshot order, shown cells --
  // are the only ones read back from the source.
  std::vector<QuestionLoops> questions;
  std::map<std::string, size_t> index;
  std::vector<const UnitResult*> units;
  size_t skipped_questions = 0;
  for (const UnitResult& u : s.units) {
    if (u.unit.repeat != 0 || (!shown.empty() && shown.count({u.unit.model, u.unit.temperature}) == 0)) continue;
    auto [it, added] = index.emplace(u.unit.item_id, questions.size());
    if (added) {
      if (questions.size() == kMaxQuestions) {
        index.erase(it);
        ++skipped_questions;
        continue;
      }
      questions.push_back(QuestionLoops{u.unit.item_id, u.unit.item_text, {}});
    }
    units.push_back(&u);
  }
  RETURN_IF_ERROR(ForEachWholeUnit(units, s.source, [&](const UnitResult& u) {
    Loop loop{u.unit.model, u.unit.temperature, u.stop_reason, {}, {}};
    for (const StepRecord& a : u.answers) {
      loop.points.push_back({a.answer_num, a.coherence, a.novelty, AidanMmr(s.preset, a)});
    }
    if (!u.answers.empty()) loop.last = u.answers.back();
    questions[index.at(u.unit.item_id)].loops.push_back(std::move(loop));
    return absl::OkStatus();
  }));
  std::vector<PickerView> views;
  for (const QuestionLoops& q : questions) {
    views.push_back(PickerView{q.id, absl::StrCat(q.id, ": ", Abbreviate(q.text, 80)),
                               IterationView(q, context, s.temperatures.size())});
  }
  std::string html =
      "<p>One question's loops: coherence, novelty and MMR of each answer in the order it was given (the paper's "
      "Figures 3-5). Pick another question to redraw them.</p>";
  if (!shown.empty()) {
    absl::StrAppend(&html, "<p class=\"note\">", s.models.size() * s.temperatures.size(),
                    " loops per question are too many to read: each model is shown at its best temperature.</p>");
  }
  if (skipped_questions > 0) {
    absl::StrAppend(&html, "<p class=\"note\">The first ", kMaxQuestions, " questions; ", skipped_questions,
                    " more are in the table above and in answers.jsonl.</p>");
  }
  if (std::any_of(s.units.begin(), s.units.end(), [](const UnitResult& u) { return u.unit.repeat != 0; })) {
    absl::StrAppend(&html, "<p class=\"note\">Repeat 0 of each loop.</p>");
  }
  absl::StrAppend(&html, RenderPicker("question-picker", "iteration-plot", "question", "Question", views),
                  "<p class=\"note\">Answer texts are cut to ", kAnswerTextBytes,
                  " bytes; answers.jsonl holds every answer in full.</p>");
  return HtmlSection{"aidanbench-iterations", "AidanBench answers of one question", std::move(html)};
}

}  // namespace

absl::Status AidanBenchResults::AddHtmlSections(const ReportContext& context, HtmlPage& page) const {
  page.AddSection(LeaderboardSection(snapshot_, context));
  page.AddSection(AblationSection(snapshot_, context));
  page.AddSection(StopsSection(snapshot_, context));
  if (std::any_of(snapshot_.cells.begin(), snapshot_.cells.end(),
                  [](const AidanCell& cell) { return !cell.by_domain.empty(); })) {
    page.AddSection(DomainSection(snapshot_, context));
  }
  page.AddSection(QuestionTableSection(snapshot_));
  ASSIGN_OR_RETURN(HtmlSection iterations, IterationSection(snapshot_, context));
  page.AddSection(std::move(iterations));
  return absl::OkStatus();
}

}  // namespace noveltygrid
