#include "coordinator/report/correlate/leaderboard_correlation.h"

#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/records.h"
#include "common/status_macros.h"

namespace noveltygrid {
namespace {

std::vector<std::string> NumericFields(const Json& entry) {
  std::vector<std::string> names;
  for (const auto& [key, value] : entry.items()) {
    if (value.is_number()) names.push_back(key);
  }
  return names;
}

std::string NamesOrNone(const std::vector<std::string>& names) {
  return names.empty() ? "none" : absl::StrJoin(names, ", ");
}

// Ranks with 1 for the highest value: the mirror image of AverageRanks' 1-for-lowest.
std::vector<double> DescendingRanks(const std::vector<double>& values) {
  std::vector<double> ranks = AverageRanks(values);
  for (double& rank : ranks) rank = static_cast<double>(values.size()) + 1 - rank;
  return ranks;
}

absl::Status TooFewMatched(const Correlation& c) {
  std::vector<std::string> matched;
  for (const MatchedModel& m : c.matched) matched.push_back(m.model);
  return absl::FailedPreconditionError(absl::StrCat(
      matched.size(), " model(s) on both leaderboards (", NamesOrNone(matched), "); a correlation needs at least ",
      kMinMatchedModels, ". Sweep models not on the leaderboard: ", NamesOrNone(c.unmatched_sweep_models),
      ". Leaderboard models not in the sweep: ", NamesOrNone(c.unmatched_leaderboard_models),
      ". Where the names differ, pair them with --map FILE."));
}

absl::Status ConstantScores(const Correlation& c, bool ours) {
  const MatchedModel& first = c.matched.front();
  return absl::FailedPreconditionError(
      absl::StrCat("every matched model has the same ",
                   ours ? absl::StrCat(c.benchmark, " ", c.metric, " (", first.score, ")")
                        : absl::StrCat("leaderboard '", c.score_column, "' (", first.leaderboard_score, ")"),
                   ": a correlation with a constant is undefined"));
}

}  // namespace

std::string HeadlineMetric(const std::string& benchmark) {
  if (benchmark == kAidanBench) return "valid_answers";
  if (benchmark == kNoveltyBench) return "mean_utility";
  return "";
}

absl::StatusOr<SweepScores> SweepScoresFromSummary(const Json& summary, const std::string& benchmark,
                                                   const std::string& metric) {
  const Json* boards = summary.is_object() && summary.contains("leaderboard") ? &summary["leaderboard"] : nullptr;
  if (boards == nullptr || !boards->is_object() || boards->empty()) {
    return absl::NotFoundError(
        "summary.json has no \"leaderboard\" section (written by this version's run, import and report; "
        "`noveltygrid report DIR` rebuilds it)");
  }
  SweepScores out;
  out.benchmark = benchmark.empty() ? boards->begin().key() : benchmark;
  for (const auto& [name, board] : boards->items()) {
    if (name != out.benchmark) out.other_benchmarks.push_back(name);
  }
  if (!boards->contains(out.benchmark) || !(*boards)[out.benchmark].is_array()) {
    return absl::NotFoundError(absl::StrCat("summary.json has no ", out.benchmark,
                                            " leaderboard; it has: ", NamesOrNone(out.other_benchmarks)));
  }
  out.metric = metric.empty() ? HeadlineMetric(out.benchmark) : metric;
  out.simulated = summary.contains("simulated") && summary["simulated"] == true;
  for (const Json& entry : (*boards)[out.benchmark]) {
    const std::string model = StringAt(entry, "model");
    if (model.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("summary.json: a ", out.benchmark, " leaderboard entry has no model"));
    }
    if (!entry.contains(out.metric) || !entry[out.metric].is_number()) {
      return absl::InvalidArgumentError(absl::StrCat("summary.json: the ", out.benchmark, " leaderboard entry of ",
                                                     model, " has no numeric \"", out.metric,
                                                     "\"; its numeric fields: ", NamesOrNone(NumericFields(entry))));
    }
    out.scores.push_back(SweepScore{model, entry[out.metric].get<double>()});
  }
  return out;
}

absl::StatusOr<Correlation> MatchAndCorrelate(const SweepScores& sweep, const ExternalLeaderboard& leaderboard,
                                              const ModelNameMap& map) {
  Correlation c;
  c.benchmark = sweep.benchmark;
  c.metric = sweep.metric;
  c.model_column = leaderboard.model_column;
  c.score_column = leaderboard.score_column;
  c.skipped_rows = leaderboard.skipped;
  c.other_benchmarks = sweep.other_benchmarks;
  c.simulated = sweep.simulated;

  absl::flat_hash_map<std::string, size_t> row_of;  // leaderboard model -> index in leaderboard.scores
  for (size_t i = 0; i < leaderboard.scores.size(); ++i) row_of[leaderboard.scores[i].model] = i;
  std::vector<const std::string*> matched_by(leaderboard.scores.size(), nullptr);  // the sweep model of each row
  for (const SweepScore& ours : sweep.scores) {
    const auto mapped = map.find(ours.model);
    const std::string& name = mapped == map.end() ? ours.model : mapped->second;
    const auto row = row_of.find(name);
    if (row == row_of.end()) {
      c.unmatched_sweep_models.push_back(ours.model);
      continue;
    }
    if (matched_by[row->second] != nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("sweep models ", *matched_by[row->second], " and ", ours.model,
                                                     " both match leaderboard model ", name, "; fix the --map file"));
    }
    matched_by[row->second] = &ours.model;
    c.matched.push_back(MatchedModel{ours.model, name, ours.score, leaderboard.scores[row->second].score, 0, 0});
  }
  for (size_t i = 0; i < leaderboard.scores.size(); ++i) {
    if (matched_by[i] == nullptr) c.unmatched_leaderboard_models.push_back(leaderboard.scores[i].model);
  }

  if (c.matched.size() < static_cast<size_t>(kMinMatchedModels)) return TooFewMatched(c);
  std::vector<double> x, y;
  for (const MatchedModel& m : c.matched) {
    x.push_back(m.score);
    y.push_back(m.leaderboard_score);
  }
  if (IsConstant(x)) return ConstantScores(c, /*ours=*/true);
  if (IsConstant(y)) return ConstantScores(c, /*ours=*/false);
  ASSIGN_OR_RETURN(c.stats, CorrelatePairs(x, y));
  const std::vector<double> ranks = DescendingRanks(x);
  const std::vector<double> leaderboard_ranks = DescendingRanks(y);
  for (size_t i = 0; i < c.matched.size(); ++i) {
    c.matched[i].rank = ranks[i];
    c.matched[i].leaderboard_rank = leaderboard_ranks[i];
  }
  return c;
}

absl::StatusOr<Correlation> CorrelateWithLeaderboard(const Json& summary, const CorrelateOptions& options) {
  ASSIGN_OR_RETURN(const SweepScores sweep, SweepScoresFromSummary(summary, options.benchmark, options.metric));
  ASSIGN_OR_RETURN(const ExternalLeaderboard leaderboard,
                   ReadExternalLeaderboard(options.leaderboard_path, options.columns));
  ModelNameMap map;
  if (!options.map_path.empty()) {
    ASSIGN_OR_RETURN(map, ReadModelNameMap(options.map_path));
  }
  ASSIGN_OR_RETURN(Correlation c, MatchAndCorrelate(sweep, leaderboard, map));
  c.leaderboard_path = options.leaderboard_path;
  c.map_path = options.map_path;
  return c;
}

}  // namespace noveltygrid
