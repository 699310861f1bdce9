#include "coordinator/report/correlate/correlation_output.h"

#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "coordinator/report/text_table.h"

namespace noveltygrid {
namespace {

// Whole numbers as such (valid answers, Elo points, ranks), others to six significant digits.
std::string FormatNumber(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return absl::StrFormat("%.0f", v);
  return absl::StrFormat("%.6g", v);
}

std::string MatchedTable(const Correlation& c) {
  std::vector<std::vector<std::string>> table = {{"model", c.metric, "rank", c.score_column, "rank"}};
  for (const MatchedModel& m : c.matched) {
    table.push_back({m.model == m.leaderboard_model ? m.model : absl::StrCat(m.model, " = ", m.leaderboard_model),
                     FormatNumber(m.score), FormatNumber(m.rank), FormatNumber(m.leaderboard_score),
                     FormatNumber(m.leaderboard_rank)});
  }
  return RenderTable(table);
}

// "TITLE (N): a, b, c" -- at most `most` names, then "and K more" -- or nothing for no names.
std::string NameList(const std::string& title, const std::vector<std::string>& names, size_t most) {
  if (names.empty()) return "";
  std::string out = absl::StrCat(title, " (", names.size(), "): ");
  if (names.size() <= most) return absl::StrCat(out, absl::StrJoin(names, ", "), "\n");
  const std::vector<std::string> shown(names.begin(), names.begin() + static_cast<long>(most));
  return absl::StrCat(out, absl::StrJoin(shown, ", "), " and ", names.size() - most, " more (--json lists them all)\n");
}

std::string SkippedRows(const Correlation& c) {
  std::vector<std::string> rows;
  for (const SkippedLeaderboardRow& row : c.skipped_rows) {
    rows.push_back(
        absl::StrFormat("line %d %s '%s'", row.line, row.model.empty() ? "(no model name)" : row.model, row.value));
  }
  return NameList(absl::StrCat("leaderboard rows skipped, no model name or '", c.score_column, "' not a number"), rows,
                  rows.size());
}

}  // namespace

std::string CorrelationText(const Correlation& c) {
  std::string out = absl::StrCat(c.benchmark, " ", c.metric, " vs ",
                                 c.leaderboard_path.empty() ? "the leaderboard" : c.leaderboard_path, " column '",
                                 c.score_column, "' (models from column '", c.model_column, "')\n");
  if (c.simulated) absl::StrAppend(&out, kSimulatedLeaderboardLine, "\n");
  if (!c.map_path.empty()) absl::StrAppend(&out, "names mapped through ", c.map_path, "\n");
  const PairedCorrelation& s = c.stats;
  absl::StrAppendFormat(&out,
                        "\nmodels on both (n)  %d\nSpearman rho        %.4f\nKendall tau-b       %.4f\n"
                        "Pearson r           %.4f\nR^2                 %.4f\np-values: not computed (see README)\n\n",
                        s.n, s.spearman_rho, s.kendall_tau_b, s.pearson_r, s.r_squared);
  absl::StrAppend(&out, MatchedTable(c));
  const std::string unmatched = absl::StrCat(
      NameList("sweep models not on the leaderboard", c.unmatched_sweep_models, c.unmatched_sweep_models.size()),
      NameList("leaderboard models not in the sweep", c.unmatched_leaderboard_models, kMaxUnmatchedNamesInText),
      SkippedRows(c));
  if (!unmatched.empty()) absl::StrAppend(&out, "\n", unmatched);
  for (const std::string& other : c.other_benchmarks) {
    absl::StrAppend(&out, "\nsummary.json also has a ", other, " leaderboard: --benchmark ", other, " compares it\n");
  }
  return out;
}

Json CorrelationJson(const Correlation& c) {
  Json matched = Json::array();
  for (const MatchedModel& m : c.matched) {
    matched.push_back(Json{{"model", m.model},
                           {"leaderboard_model", m.leaderboard_model},
                           {"score", m.score},
                           {"leaderboard_score", m.leaderboard_score},
                           {"rank", m.rank},
                           {"leaderboard_rank", m.leaderboard_rank}});
  }
  Json skipped = Json::array();
  for (const SkippedLeaderboardRow& row : c.skipped_rows) {
    skipped.push_back(Json{{"line", row.line}, {"model", row.model}, {"value", row.value}});
  }
  return Json{{"benchmark", c.benchmark},
              {"metric", c.metric},
              {"leaderboard", c.leaderboard_path},
              {"model_column", c.model_column},
              {"score_column", c.score_column},
              {"map", c.map_path.empty() ? Json(nullptr) : Json(c.map_path)},
              {"n", c.stats.n},
              {"spearman_rho", c.stats.spearman_rho},
              {"kendall_tau_b", c.stats.kendall_tau_b},
              {"pearson_r", c.stats.pearson_r},
              {"r_squared", c.stats.r_squared},
              {"matched", std::move(matched)},
              {"unmatched_sweep_models", c.unmatched_sweep_models},
              {"unmatched_leaderboard_models", c.unmatched_leaderboard_models},
              {"skipped_rows", std::move(skipped)},
              {"other_benchmarks", c.other_benchmarks},
              {"simulated", c.simulated}};
}

}  // namespace noveltygrid
