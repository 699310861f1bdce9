// The results half of the Benchmark plug-in (benchmark.h): what a benchmark's reducer produces and
// the results writer (coordinator/report) consumes, without the planning and protocol parts.
//
// Thread-safety: a BenchmarkReducer may be called from any thread. BenchmarkResults are snapshots; a
// reducer's results that were given a UnitSource read the answers from it when their rows are written,
// so they are valid only while that source lives.
#ifndef NOVELTYGRID_COORDINATOR_BENCHMARKS_BENCHMARK_RESULTS_H_
#define NOVELTYGRID_COORDINATOR_BENCHMARKS_BENCHMARK_RESULTS_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/json_util.h"
#include "common/records.h"
#include "coordinator/report/html/html_page.h"
#include "coordinator/report/html/report_context.h"

namespace noveltygrid {

// A benchmark's part of the results folder, taken from its reducer at one moment (or rebuilt from a
// folder): its rows file, its sections of summary.json and its leaderboard table.
// Receives a rows file's text a piece at a time.
using RowsSink = std::function<absl::Status(std::string_view piece)>;

class BenchmarkResults {
 public:
  virtual ~BenchmarkResults() = default;

  // The benchmark's name: its key in summary.json ("aidanbench").
  virtual std::string name() const = 0;
  // The rows file (answers.jsonl, samples.jsonl) and its contents, handed to `sink` a piece (whole
  // lines) at a time in file order; stops at the first error of the sink or of fetching the units.
  virtual std::string RowsFileName() const = 0;
  virtual absl::Status WriteRows(const RowsSink& sink) const = 0;
  // The whole rows file in one string (small results: imports, rebuilds, tests).
  absl::StatusOr<std::string> RowsText() const {
    std::string text;
    absl::Status status = WriteRows([&text](std::string_view piece) {
      text.append(piece);
      return absl::OkStatus();
    });
    if (!status.ok()) return status;
    return text;
  }
  // summary.json's [name], "leaderboard"[name] and, for a benchmark with a per-item table,
  // "questions"[name] (a row at a time: a large sweep's table is written without building it whole).
  virtual Json Section() const = 0;
  virtual Json Leaderboard() const = 0;
  // The Leaderboard() entries' field that ranks them (its headline score: "valid_answers").
  virtual std::string LeaderboardScore() const = 0;
  // Calls `row` with each row of that table in order; false (no call) for a benchmark without one.
  virtual bool ForEachQuestionRow(const std::function<void(const Json& row)>& /*row*/) const { return false; }
  // Its table in leaderboard.txt.
  virtual std::string LeaderboardText(bool simulated) const = 0;
  // Models with results (config order), and the helper models that scored them (whose simulated ids
  // make every number simulated).
  virtual std::vector<std::string> Models() const = 0;
  virtual std::vector<std::string> HelperModels() const = 0;
  // Run-dependent: call statistics of the results, and free-form run information.
  virtual const CallStats& calls() const = 0;
  virtual const Json& run() const = 0;
  // Its sections of report.html (coordinator/report/html/), drawn from this snapshot and, for what it
  // does not keep (answer texts, per-answer scores), from the units' whole results (ForEachWholeUnit:
  // its UnitSource, when it has one). A benchmark without sections adds none.
  virtual absl::Status AddHtmlSections(const ReportContext& /*context*/, HtmlPage& /*page*/) const {
    return absl::OkStatus();
  }
};

// Aggregates one benchmark's committed units as they arrive (see the implementations for the rules:
// first result per unit id kept, output independent of arrival order).
class BenchmarkReducer {
 public:
  virtual ~BenchmarkReducer() = default;
  // Room for `units` results (the plan's units of this benchmark), so that adding them never waits
  // for the index to grow: a hash table rehashing a few hundred thousand entries stalls the commit that
  // crossed its size for tens of milliseconds, and every commit queued behind it. Costs 10-20 bytes per
  // unit up front (~150 MB for a 10-million-unit plan), whether or not the unit runs.
  virtual void Reserve(size_t units) = 0;
  // False (the result dropped, its calls still merged) when the unit was already added.
  virtual bool Add(UnitResult result, const CallStats& calls) = 0;
  // Merges call statistics not tied to a result, and replaces the "run" information.
  virtual void AddCalls(const CallStats& calls) = 0;
  virtual void SetRunInfo(Json run) = 0;
  virtual std::unique_ptr<BenchmarkResults> Results() const = 0;
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_BENCHMARKS_BENCHMARK_RESULTS_H_
