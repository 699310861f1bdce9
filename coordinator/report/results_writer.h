// Writes a sweep's results folder (../shared/CONTRACT.md) from the reducers' snapshots -- AidanBench,
// NoveltyBench or both:
//
//   answers.jsonl    (AidanBench) one line per answer, units in canonical order, answers in loop order:
//                    {"benchmark","model","temperature","question_id","question","answer_num","answer",
//                     "coherence","novelty","valid",["llm_novelty"],"mmr","unit_id",["error"]}
//   samples.jsonl    (NoveltyBench) one line per unit, see novelty_sweep_results.h
//   summary.json     ["simulated","notice","simulated_models"], ["aidanbench"], ["noveltybench"],
//                    "leaderboard" {["aidanbench"], ["noveltybench"]}, ["questions" {"aidanbench"}],
//                    "calls" (both benchmarks' merged), "run" -- in that order; a benchmark absent from
//                    the sweep is absent from the file; only "calls" and "run" depend on how the run went
//   leaderboard.txt  the AidanBench table (FormatLeaderboard), then the NoveltyBench one
//
// Every file is replaced atomically, so a reader (or a crash) sees the old or the new version. The
// same snapshots always give byte-identical files, and an AidanBench-only sweep the same files as
// before NoveltyBench existed. Stateless functions: safe from any thread, but two concurrent writers
// to one folder race on which version lands last.
#ifndef NOVELTYGRID_COORDINATOR_REPORT_RESULTS_WRITER_H_
#define NOVELTYGRID_COORDINATOR_REPORT_RESULTS_WRITER_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "common/json_util.h"
#include "common/provider_config.h"
#include "coordinator/reduce/aidan_reducer.h"
#include "coordinator/reduce/novelty_reducer.h"

namespace noveltygrid {

inline constexpr char kAnswersFileName[] = "answers.jsonl";
inline constexpr char kSummaryFileName[] = "summary.json";
inline constexpr char kLeaderboardFileName[] = "leaderboard.txt";
inline constexpr char kSimulatedNotice[] = "Simulated models: numbers measure the built-in simulator, not a real LLM.";

struct ResultsOptions {
  // Models whose numbers come from the built-in simulator; non-empty marks summary.json
  // ("simulated": true, "notice", "simulated_models") and the leaderboard.
  std::vector<std::string> simulated_models;
  // Prices per model (USD per million tokens): priced models' "calls" entries get "cost_usd", and
  // "run" gets "cost_usd" {MODEL: dollars, ..., "total": dollars}.
  std::map<std::string, ModelPrice> prices;
};

// True for the simulated model family ("sim:..." ids) and the lexical embedder.
bool IsSimulatedModelId(const std::string& id);

// The models whose results measure the simulator: all of them when a helper model (the judge, the
// embedder, NoveltyBench's partition and quality models: PlanHelperModels) is simulated, otherwise
// those with a simulated id. In `models` order.
std::vector<std::string> SimulatedModelIds(const std::vector<std::string>& models,
                                           const std::vector<std::string>& helpers);

// The whole folder of a sweep: answers.jsonl when `aidan` is given, samples.jsonl when `novelty` is,
// summary.json and leaderboard.txt with both. Creates `dir` if needed. At least one must be given.
absl::Status WriteSweepResults(const std::string& dir, const std::optional<AidanSnapshot>& aidan,
                               const std::optional<NoveltySnapshot>& novelty, const ResultsOptions& options);

// summary.json and leaderboard.txt only (`dir` must exist).
absl::Status WriteSweepSummaryFiles(const std::string& dir, const std::optional<AidanSnapshot>& aidan,
                                    const std::optional<NoveltySnapshot>& novelty, const ResultsOptions& options);

// What leaderboard.txt holds (and `run` prints): the tables of the benchmarks given, a blank line apart.
std::string SweepLeaderboardText(const std::optional<AidanSnapshot>& aidan,
                                 const std::optional<NoveltySnapshot>& novelty, const ResultsOptions& options);

// summary.json's contents; null pointers for the benchmarks the sweep does not hold.
Json SweepSummaryJson(const AidanSnapshot* aidan, const NoveltySnapshot* novelty, const ResultsOptions& options);

// The AidanBench-only forms of the above (what a sweep without NoveltyBench writes).
//
// FormatLeaderboard, marked simulated when `options` names simulated models.
std::string FormatLeaderboard(const AidanSnapshot& snapshot, const ResultsOptions& options);

std::string AidanAnswersJsonl(const AidanSnapshot& snapshot);
Json SummaryJson(const AidanSnapshot& snapshot, const ResultsOptions& options);

// Creates `dir` if needed and writes answers.jsonl, summary.json and leaderboard.txt.
absl::Status WriteResultsFolder(const std::string& dir, const AidanSnapshot& snapshot, const ResultsOptions& options);

// Writes summary.json and leaderboard.txt only (`dir` must exist).
absl::Status WriteSummaryFiles(const std::string& dir, const AidanSnapshot& snapshot, const ResultsOptions& options);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_REPORT_RESULTS_WRITER_H_
