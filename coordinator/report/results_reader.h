// Reading a results folder back, for `noveltygrid report DIR`: each benchmark's rows file
// (answers.jsonl, samples.jsonl) is the source of truth, and summary.json / leaderboard.txt are rebuilt
// from them. Each benchmark reads its own file (its `rebuild` in coordinator/benchmarks/registry.h,
// which says what it takes from the old summary.json); here the run-dependent parts are kept: "calls"
// and "run" (once, with the first benchmark), "simulated_models".
//
// Stateless functions; safe from any thread (but not with a concurrent writer to the same folder).
#ifndef NOVELTYGRID_COORDINATOR_REPORT_RESULTS_READER_H_
#define NOVELTYGRID_COORDINATOR_REPORT_RESULTS_READER_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/config.h"
#include "coordinator/benchmarks/benchmark_results.h"
#include "coordinator/report/results_writer.h"

namespace noveltygrid {

struct RebuildOutcome {
  std::vector<std::unique_ptr<BenchmarkResults>> parts;  // the benchmarks the folder holds, sweep order
  ResultsOptions options;
  std::string leaderboard;         // the text written to leaderboard.txt
  std::vector<std::string> notes;  // assumptions made, for the user
};

// Rebuilds summary.json and leaderboard.txt in `dir` from its rows files (NotFound when it has none). A
// rows file is rewritten only when its derived fields change (for AidanBench, a `preset` other than the
// recorded one re-marks `valid` and recomputes `mmr`).
// `correlate`: report.html's comparison with an external leaderboard (ResultsOptions::correlate).
absl::StatusOr<RebuildOutcome> RebuildResultsFolder(const std::string& dir, const std::optional<AidanPreset>& preset,
                                                    const std::optional<CorrelateOptions>& correlate = std::nullopt);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_REPORT_RESULTS_READER_H_
