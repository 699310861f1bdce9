#include "coordinator/report/html_report.h"

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/call_cost.h"
#include "common/json_util.h"
#include "common/status_macros.h"
#include "coordinator/report/html/html_page.h"
#include "coordinator/report/html/report_context.h"
#include "coordinator/report/html/svg_chart.h"

namespace noveltygrid {
namespace {

constexpr char kGenerateRole[] = "generate:";

// The models of the sweep, in the order the benchmarks list them (AidanBench's first).
std::vector<std::string> SweepModels(const ResultsParts& parts) {
  std::vector<std::string> models;
  for (const BenchmarkResults* part : parts) {
    for (const std::string& m : part->Models()) {
      if (std::find(models.begin(), models.end(), m) == models.end()) models.push_back(m);
    }
  }
  return models;
}

std::string Thousands(int64_t n) {
  std::string digits = absl::StrCat(n < 0 ? -n : n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

HtmlCell CountCell(int64_t n) { return HtmlCell{Thousands(n), static_cast<double>(n), "num"}; }

// Every "ROLE:MODEL" of the sweep with its counters, and dollars where the model has a price.
std::string CallsTable(const CallStats& calls, const ResultsOptions& options) {
  HtmlTable table;
  table.id = "calls-table";
  table.sortable = true;
  table.header = {"role", "model", "requests", "cache hits", "retries", "errors", "prompt tokens", "completion tokens"};
  const bool priced = !options.prices.empty();
  if (priced) table.header.push_back("cost (USD)");
  for (const auto& [key, c] : calls) {
    const size_t colon = key.find(':');
    std::vector<HtmlCell> row = {TextCell(colon == std::string::npos ? key : key.substr(0, colon)),
                                 TextCell(CallKeyModel(key)),
                                 CountCell(c.requests),
                                 CountCell(c.cache_hits),
                                 CountCell(c.retries),
                                 CountCell(c.errors),
                                 CountCell(c.prompt_tokens),
                                 CountCell(c.completion_tokens)};
    if (priced) {
      const std::optional<double> usd = CallCostUsd(key, static_cast<double>(c.prompt_tokens),
                                                    static_cast<double>(c.completion_tokens), options.prices);
      row.push_back(usd ? NumberCell(*usd, 4) : MissingCell());
    }
    table.rows.push_back(std::move(row));
  }
  return RenderTable(table);
}

// One benchmark's score at each model's best temperature against what its generations cost: dollars
// where the model is priced, tokens otherwise (the axis says which).
std::string CostScoreChart(const BenchmarkResults& part, const ReportContext& context, const ResultsOptions& options) {
  const std::string score = part.LeaderboardScore();
  const Json board = part.Leaderboard();
  if (score.empty() || !board.is_array() || board.empty()) return "";
  bool all_priced = true;
  for (const Json& entry : board) all_priced &= options.prices.count(entry.value("model", "")) > 0;
  ChartSpec spec;
  spec.id = absl::StrCat("cost-score-", part.name());
  spec.title = absl::StrCat(part.name(), ": ", score, " against generation ", all_priced ? "cost" : "tokens");
  spec.x_label = all_priced ? "generation cost (USD)" : "generation tokens (prompt + completion)";
  spec.y_label = absl::StrCat(score, " at best temperature");
  spec.kind = ChartKind::kScatter;
  spec.simulated_note = context.SimulatedNote();
  spec.y_from_zero = true;
  if (!all_priced)
    spec.caption = "No price is configured for every model (prices: in the sweep config), so tokens stand in for cost.";
  for (const Json& entry : board) {
    const std::string model = entry.value("model", "");
    const auto it = part.calls().find(kGenerateRole + model);
    const CallCounters counters = it == part.calls().end() ? CallCounters{} : it->second;
    const double tokens = static_cast<double>(counters.prompt_tokens + counters.completion_tokens);
    double x = tokens;
    if (all_priced) {
      x = CallCostUsd(kGenerateRole + model, static_cast<double>(counters.prompt_tokens),
                      static_cast<double>(counters.completion_tokens), options.prices)
              .value_or(0);
    }
    const double y = entry.value(score, 0.0);
    ChartSeries series{model, {}, context.ColorOf(model)};
    series.points.push_back(ChartPoint{
        x, y, 0, absl::StrFormat("%s: %s %.6g, %s %.6g", model, score, y, all_priced ? "USD" : "tokens", x)});
    spec.series.push_back(std::move(series));
  }
  return RenderChart(spec);
}

HtmlSection CallsSection(const ResultsParts& parts, const ReportContext& context, const ResultsOptions& options) {
  CallStats calls;
  for (const BenchmarkResults* part : parts) MergeCallStats(part->calls(), calls);
  std::string html =
      "<p class=\"note\">Counted over the whole run, including calls repeated after a failure or a restart; "
      "cache hits were answered without a call.</p>";
  absl::StrAppend(&html, "<div class=\"scroll\">", CallsTable(calls, options), "</div>");
  if (!options.prices.empty()) {
    const CallCosts costs = PriceCalls(calls, options.prices);
    absl::StrAppend(&html,
                    absl::StrFormat("<p>Total cost at the configured prices: <strong>$%.4f</strong></p>", costs.total));
  }
  absl::StrAppend(&html, "<div class=\"charts\">");
  for (const BenchmarkResults* part : parts) absl::StrAppend(&html, CostScoreChart(*part, context, options));
  absl::StrAppend(&html, "</div>");
  return HtmlSection{"calls", "Calls, tokens and cost", std::move(html)};
}

// The sweep's name as its coordinator recorded it in "run" ("" when none did: imports, old folders).
std::string SweepName(const ResultsParts& parts) {
  for (const BenchmarkResults* part : parts) {
    const Json& run = part->run();
    if (run.is_object() && run.contains("sweep") && run["sweep"].is_string()) return run["sweep"].get<std::string>();
  }
  return "";
}

// The sweep's scores against an external leaderboard (ResultsOptions::correlate). A leaderboard that
// cannot be compared (unreadable, too few models in common) is said so in the section, not an error:
// the rest of the page stands.
HtmlSection CorrelationSection(const ResultsParts& parts, const ResultsOptions& options, const ReportContext& context) {
  // The leaderboards are all it reads: the summary without its per-question table (which a large sweep
  // never holds whole).
  const absl::StatusOr<Correlation> c =
      CorrelateWithLeaderboard(SummaryWithoutQuestions(parts, options), *options.correlate);
  HtmlSection section{"correlation", "Against an external leaderboard", ""};
  if (!c.ok()) {
    section.html =
        absl::StrCat("<p class=\"note\">No correlation with ", HtmlEscape(options.correlate->leaderboard_path), ": ",
                     HtmlEscape(std::string(c.status().message())), "</p>");
    return section;
  }
  ChartSpec spec;
  spec.id = "correlation";
  spec.title = absl::StrCat(c->benchmark, " ", c->metric, " against ", c->score_column);
  spec.kind = ChartKind::kScatter;
  spec.x_label =
      absl::StrCat(c->score_column, " (", std::filesystem::path(c->leaderboard_path).filename().string(), ")");
  spec.y_label = c->metric;
  spec.y_from_zero = false;
  spec.simulated_note = context.SimulatedNote();
  for (const MatchedModel& m : c->matched) {
    const std::string label =
        m.leaderboard_model == m.model ? m.model : absl::StrCat(m.model, " = ", m.leaderboard_model);
    spec.series.push_back(
        ChartSeries(label,
                    {ChartPoint(m.leaderboard_score, m.score, 0,
                                absl::StrFormat("%s: %.6g against %.6g", label, m.score, m.leaderboard_score))},
                    context.ColorOf(m.model)));
  }
  HtmlTable stats;
  stats.header = {"models", "Spearman \xCF\x81", "Kendall \xCF\x84-b", "Pearson r", "R\xC2\xB2"};
  stats.rows = {{NumberCell(c->stats.n, 0), NumberCell(c->stats.spearman_rho, 3), NumberCell(c->stats.kendall_tau_b, 3),
                 NumberCell(c->stats.pearson_r, 3), NumberCell(c->stats.r_squared, 3)}};
  section.html = absl::StrCat(
      "<p>The sweep's models ranked by ", HtmlEscape(c->metric), " at their best temperature, against ",
      HtmlEscape(c->leaderboard_path), " (column ", HtmlEscape(c->score_column),
      "). The AidanBench paper reports Spearman 0.43 against LMSYS.</p>", RenderTable(stats), RenderChart(spec));
  auto names = [](const std::vector<std::string>& list) {
    return list.empty() ? std::string("none") : HtmlEscape(absl::StrJoin(list, ", "));
  };
  absl::StrAppend(&section.html,
                  "<p class=\"note\">Sweep models not on the leaderboard: ", names(c->unmatched_sweep_models),
                  ". Leaderboard models not in the sweep: ", c->unmatched_leaderboard_models.size(), ".</p>");
  return section;
}

std::string Subtitle(const ResultsParts& parts) {
  std::vector<std::string> names;
  int64_t units = -1;
  for (const BenchmarkResults* part : parts) {
    names.push_back(part->name());
    if (part->run().is_object() && part->run().contains("units") && part->run()["units"].is_number_integer()) {
      units = part->run()["units"].get<int64_t>();
    }
  }
  std::string out = absl::StrJoin(names, " + ");
  if (units >= 0) absl::StrAppend(&out, " \xC2\xB7 ", Thousands(units), " units");
  return out;
}

}  // namespace

absl::StatusOr<std::string> RenderHtmlReport(const std::string& dir, const ResultsParts& parts,
                                             const ResultsOptions& options) {
  ReportContext context;
  context.models = SweepModels(parts);
  context.simulated = options.simulated_models;
  std::string name = SweepName(parts);
  if (name.empty()) name = std::filesystem::path(dir).lexically_normal().filename().string();
  if (name.empty()) name = dir;
  HtmlPage page(absl::StrCat("NoveltyGrid results: ", name), Subtitle(parts),
                context.any_simulated() ? kSimulatedNotice : "");
  page.SetModels(context.models, context.simulated);
  for (const BenchmarkResults* part : parts) RETURN_IF_ERROR(part->AddHtmlSections(context, page));
  page.AddSection(CallsSection(parts, context, options));
  if (options.correlate) page.AddSection(CorrelationSection(parts, options, context));
  return page.Render();
}

absl::Status WriteHtmlReport(const std::string& dir, const ResultsParts& parts, const ResultsOptions& options) {
  ASSIGN_OR_RETURN(std::string html, RenderHtmlReport(dir, parts, options));
  return WriteFileAtomically((std::filesystem::path(dir) / kReportFileName).string(), html);
}

}  // namespace noveltygrid
