// Writes a sweep's results folder (../shared/CONTRACT.md) from its benchmarks' results
// (coordinator/benchmarks/benchmark_results.h), in sweep order (AidanBench first):
//
//   <rows files>     each benchmark's own (answers.jsonl, samples.jsonl; see its folder under
//                    coordinator/benchmarks/)
//   summary.json     ["simulated","notice","simulated_models"], ["temperature_not_applied"], one section
//                    per benchmark,
//                    "leaderboard" {one list per benchmark}, ["questions" {per-item tables}],
//                    "calls" (every benchmark's merged), "run" -- in that order; a benchmark absent from
//                    the sweep is absent from the file; only "calls" and "run" depend on how the run went
//   leaderboard.txt  each benchmark's table, a blank line apart
//   report.html      the page with plots (html_report.h)
//
// Every file is replaced atomically, so a reader (or a crash) sees the old or the new version of each
// (the folder is not replaced as a whole). Rows files are streamed: their units' answers are read from
// the parts' UnitSource as they are written. The same results always give byte-identical files.
// Stateless functions: safe from any thread, but two concurrent writers to one folder race on which
// version lands last.
#ifndef NOVELTYGRID_COORDINATOR_REPORT_RESULTS_WRITER_H_
#define NOVELTYGRID_COORDINATOR_REPORT_RESULTS_WRITER_H_

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "common/json_util.h"
#include "common/provider_config.h"
#include "coordinator/benchmarks/benchmark_results.h"
#include "coordinator/report/correlate/leaderboard_correlation.h"
#include "coordinator/report/results_files.h"

namespace noveltygrid {

inline constexpr char kTemperatureNotAppliedNote[] =
    "These models reject the temperature parameter (temperature: omit): it was not sent, and their rows show "
    "the sweep's temperature only as a label.";
inline constexpr char kSimulatedNotice[] = "Simulated models: numbers measure the built-in simulator, not a real LLM.";

struct ResultsOptions {
  // Models whose numbers come from the built-in simulator; non-empty marks summary.json
  // ("simulated": true, "notice", "simulated_models") and the leaderboard.
  std::vector<std::string> simulated_models;
  // Models declared `temperature: omit`: their rows carry the sweep's temperature, which was never sent.
  // Non-empty: summary.json "temperature_not_applied" {"models", "note"} and a leaderboard line.
  std::vector<std::string> temperature_not_applied;
  // Prices per model (USD per million tokens): priced models' "calls" entries get "cost_usd", and
  // "run" gets "cost_usd" {MODEL: dollars, ..., "total": dollars}.
  std::map<std::string, ModelPrice> prices;
  // What the rows files hold, when the caller can name it (a finished sweep: its committed units, by id,
  // and the program writing them). A rows file written under the same key and not touched since (size
  // and modification time as recorded in DIR/.noveltygrid/rows.stamp) is not written again, so
  // re-opening a finished sweep does not re-read its answers; report.html, which reads them too, is kept
  // on the same terms. Empty: the rows files and the page are always written.
  std::string rows_key;
  // An external leaderboard to compare the models' scores with (`--leaderboard`): report.html gets a
  // correlation section and scatter. Nothing else changes.
  std::optional<CorrelateOptions> correlate;
};

// True for the simulated model family ("sim:..." ids) and the lexical embedder.
bool IsSimulatedModelId(const std::string& id);

// The models whose results measure the simulator: all of them when a helper model (the judge, the
// embedder, NoveltyBench's partition and quality models: PlanHelperModels) is simulated, otherwise
// those with a simulated id. In `models` order.
std::vector<std::string> SimulatedModelIds(const std::vector<std::string>& models,
                                           const std::vector<std::string>& helpers);

// The benchmarks' parts of a results folder, in sweep order (not owned).
using ResultsParts = std::vector<const BenchmarkResults*>;
ResultsParts PartsOf(const std::vector<std::unique_ptr<BenchmarkResults>>& owned);

// The whole folder of a sweep: every part's rows file, summary.json and leaderboard.txt. Creates `dir`
// if needed. `parts` must not be empty. `leaderboard`, when given, receives leaderboard.txt's text
// (when every file was written).
absl::Status WriteSweepResults(const std::string& dir, const ResultsParts& parts, const ResultsOptions& options,
                               std::string* leaderboard = nullptr);

// summary.json, leaderboard.txt and report.html only (`dir` must exist); `leaderboard` as above.
absl::Status WriteSweepSummaryFiles(const std::string& dir, const ResultsParts& parts, const ResultsOptions& options,
                                    std::string* leaderboard = nullptr);

// What leaderboard.txt holds (and `run` prints).
std::string SweepLeaderboardText(const ResultsParts& parts, const ResultsOptions& options);

// summary.json's contents.
Json SweepSummaryJson(const ResultsParts& parts, const ResultsOptions& options);
// The same without the per-question tables ("questions"), which a large sweep never builds whole.
Json SummaryWithoutQuestions(const ResultsParts& parts, const ResultsOptions& options);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_REPORT_RESULTS_WRITER_H_
