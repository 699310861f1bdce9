// AidanBench's part of a results folder (../shared/CONTRACT.md), from an AidanReducer snapshot:
//
//   answers.jsonl   one line per answer, units in canonical order, answers in loop order:
//                   {"benchmark","model","temperature","question_id","question","answer_num","answer",
//                    "coherence","novelty","valid",["llm_novelty"],"mmr","unit_id",["error"]}
//   summary.json    "aidanbench": {MODEL: {TEMP: cell totals}}, "leaderboard"."aidanbench" (best
//                   temperature per model) and "questions"."aidanbench" (the paper's Table 1, one row
//                   per unit)
//   leaderboard.txt the AidanBench table (FormatLeaderboard)
//
// Functions of a snapshot (and of the source its answers are read from); the same snapshot gives the
// same bytes. Writing the rows fails when the source cannot return a unit.
#ifndef NOVELTYGRID_COORDINATOR_BENCHMARKS_AIDANBENCH_AIDAN_RESULTS_H_
#define NOVELTYGRID_COORDINATOR_BENCHMARKS_AIDANBENCH_AIDAN_RESULTS_H_

#include <memory>
#include <string>
#include <vector>

#include "coordinator/benchmarks/aidanbench/aidan_reducer.h"
#include "coordinator/benchmarks/benchmark_results.h"
#include "coordinator/report/results_writer.h"

namespace noveltygrid {

class AidanBenchResults : public BenchmarkResults {
 public:
  explicit AidanBenchResults(AidanSnapshot snapshot) : snapshot_(std::move(snapshot)) {}

  const AidanSnapshot& snapshot() const { return snapshot_; }

  std::string name() const override { return kAidanBench; }
  std::string RowsFileName() const override;
  absl::Status WriteRows(const RowsSink& sink) const override;
  Json Section() const override;
  Json Leaderboard() const override;
  std::string LeaderboardScore() const override { return "valid_answers"; }
  absl::Status AddHtmlSections(const ReportContext& context, HtmlPage& page) const override;
  bool ForEachQuestionRow(const std::function<void(const Json& row)>& row) const override;
  std::string LeaderboardText(bool simulated) const override;
  std::vector<std::string> Models() const override { return snapshot_.models; }
  std::vector<std::string> HelperModels() const override { return {}; }
  const CallStats& calls() const override { return snapshot_.calls; }
  const Json& run() const override { return snapshot_.run; }

 private:
  AidanSnapshot snapshot_;
};

// answers.jsonl's contents, a unit at a time (its answers fetched from the snapshot's source if it has one).
absl::Status WriteAidanAnswers(const AidanSnapshot& snapshot, const RowsSink& sink);

// The results folder of AidanBench alone (what `import aidanbench` writes): results_writer.h's
// functions for one AidanBenchResults part.
absl::Status WriteResultsFolder(const std::string& dir, const AidanSnapshot& snapshot, const ResultsOptions& options);
absl::Status WriteSummaryFiles(const std::string& dir, const AidanSnapshot& snapshot, const ResultsOptions& options);
Json SummaryJson(const AidanSnapshot& snapshot, const ResultsOptions& options);

// The human-readable AidanBench leaderboard (aidan_leaderboard.cc): what the CLI prints and
// leaderboard.txt holds.
//
//   AidanBench leaderboard (valid answers at best temperature)
//   preset: reference-2025
//
//   model                        best temp  valid  novelty  T=0.7
//   anthropic/claude-3.5-sonnet        0.7    421   132.57  421 / 132.57
//
// One row per model, best valid answers first (ties by model name), then a "valid / novelty" column
// per temperature ("-" where the model has no result at that temperature). A pure function of the
// snapshot, so the text is as deterministic as summary.json.
inline constexpr char kLeaderboardTitle[] = "AidanBench leaderboard (valid answers at best temperature)";

// `simulated` adds the SIMULATED MODELS line under the title.
std::string FormatLeaderboard(const AidanSnapshot& snapshot, bool simulated);
// FormatLeaderboard, marked simulated when `options` names simulated models.
std::string FormatLeaderboard(const AidanSnapshot& snapshot, const ResultsOptions& options);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_BENCHMARKS_AIDANBENCH_AIDAN_RESULTS_H_
