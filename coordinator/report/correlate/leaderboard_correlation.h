// How far a sweep's model ranking agrees with an external leaderboard (the AidanBench paper reports
// Spearman 0.43 against LMSYS): the per-model scores of summary.json's "leaderboard" section are paired
// with an external CSV's scores by model name (exactly, or through a --map file; external_leaderboard.h)
// and compared with Spearman's rho, Kendall's tau-b and Pearson's r (common/stats/rank_correlation.h).
// What `noveltygrid correlate` prints, and what the HTML report draws its scatter from:
//
//   CorrelateOptions options;
//   options.leaderboard_path = "lmsys.csv";
//   absl::StatusOr<Correlation> c = CorrelateWithLeaderboard(summary, options);
//   if (c.ok()) for (const MatchedModel& m : c->matched) Plot(m.score, m.leaderboard_score, m.model);
//
// No p-values (see rank_correlation.h). Pure functions apart from reading the CSV files; safe from any
// thread.
#ifndef NOVELTYGRID_COORDINATOR_REPORT_CORRELATE_LEADERBOARD_CORRELATION_H_
#define NOVELTYGRID_COORDINATOR_REPORT_CORRELATE_LEADERBOARD_CORRELATION_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/json_util.h"
#include "common/stats/rank_correlation.h"
#include "coordinator/report/correlate/external_leaderboard.h"

namespace noveltygrid {

// Fewer matched models than this is an error: two points always lie on a line.
inline constexpr int kMinMatchedModels = 3;

// A benchmark's per-model scores as summary.json's "leaderboard".BENCHMARK list ranks them (best first).
struct SweepScore {
  std::string model;
  double score = 0;
};
struct SweepScores {
  std::string benchmark;  // "aidanbench", "noveltybench"
  std::string metric;     // the field of each leaderboard entry read, e.g. "valid_answers"
  std::vector<SweepScore> scores;
  std::vector<std::string> other_benchmarks;  // the summary's other leaderboards, for the user
  bool simulated = false;                     // the summary says its numbers measure the simulator
};

// The field a benchmark's leaderboard ranks models by: AidanBench "valid_answers" (at the best
// temperature), NoveltyBench "mean_utility"; empty for a benchmark this program does not know.
std::string HeadlineMetric(const std::string& benchmark);

// The `metric` of every entry of `summary`["leaderboard"][`benchmark`]. An empty `benchmark` is the
// summary's first leaderboard (AidanBench when the sweep has both); an empty `metric` its HeadlineMetric.
// NotFound when the summary has no such leaderboard (it names the ones it has); InvalidArgument when an
// entry has no model or no numeric `metric` (the message lists the numeric fields there are).
absl::StatusOr<SweepScores> SweepScoresFromSummary(const Json& summary, const std::string& benchmark,
                                                   const std::string& metric);

struct CorrelateOptions {
  std::string leaderboard_path;  // the external leaderboard's CSV (required)
  LeaderboardColumns columns;    // its model and score columns; empty names pick the defaults
  std::string map_path;          // a ModelNameMap CSV; empty: names must match exactly
  std::string benchmark;         // empty: the summary's first leaderboard
  std::string metric;            // empty: the benchmark's HeadlineMetric
};

// One model on both leaderboards.
struct MatchedModel {
  std::string model;              // the sweep's name
  std::string leaderboard_model;  // the leaderboard's (another name only through the map)
  double score = 0;               // the sweep's metric
  double leaderboard_score = 0;   // the external score column
  // Among the matched models, 1 = highest score; tied scores share the mean of their ranks (2.5).
  double rank = 0;
  double leaderboard_rank = 0;
};

struct Correlation {
  std::string benchmark;
  std::string metric;
  std::string leaderboard_path;
  std::string model_column;  // the CSV's columns used
  std::string score_column;
  std::string map_path;                                   // empty without a map
  std::vector<MatchedModel> matched;                      // the sweep's leaderboard order (best first)
  std::vector<std::string> unmatched_sweep_models;        // in the sweep, not on the leaderboard
  std::vector<std::string> unmatched_leaderboard_models;  // on the leaderboard (with a score), not in the sweep
  std::vector<SkippedLeaderboardRow> skipped_rows;        // leaderboard rows without a numeric score
  PairedCorrelation stats;                                // over `matched`; stats.n == matched.size()
  std::vector<std::string> other_benchmarks;              // leaderboards of the summary not compared
  bool simulated = false;                                 // the sweep's numbers measure the built-in simulator
};

// Pairs `sweep` with `leaderboard` through `map` and correlates the pairs (the file-free half of
// CorrelateWithLeaderboard; its `leaderboard_path` and `map_path` are left empty). FailedPrecondition
// when fewer than kMinMatchedModels match (the message lists the unmatched names on both sides) or
// when either side's matched scores are all equal (no correlation exists); InvalidArgument when two
// sweep models reach the same leaderboard row.
absl::StatusOr<Correlation> MatchAndCorrelate(const SweepScores& sweep, const ExternalLeaderboard& leaderboard,
                                              const ModelNameMap& map);

// `summary` (a results folder's summary.json) against the leaderboard CSV and map that `options` name:
// SweepScoresFromSummary, ReadExternalLeaderboard, ReadModelNameMap, then MatchAndCorrelate; each
// step's error as is (the file readers' name their file).
absl::StatusOr<Correlation> CorrelateWithLeaderboard(const Json& summary, const CorrelateOptions& options);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_REPORT_CORRELATE_LEADERBOARD_CORRELATION_H_
