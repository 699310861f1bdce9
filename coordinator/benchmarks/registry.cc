#include "coordinator/benchmarks/registry.h"

#include <utility>

#include "common/json_util.h"
#include "common/records_json.h"
#include "common/status_macros.h"
#include "coordinator/benchmarks/aidanbench/aidan_export.h"
#include "coordinator/benchmarks/aidanbench/aidan_rebuild.h"
#include "coordinator/benchmarks/aidanbench/aidanbench.h"
#include "coordinator/benchmarks/noveltybench/novelty_export.h"
#include "coordinator/benchmarks/noveltybench/novelty_rebuild.h"
#include "coordinator/benchmarks/noveltybench/noveltybench.h"
#include "coordinator/report/results_files.h"

namespace noveltygrid {

const std::vector<BenchmarkEntry>& BenchmarkRegistry() {
  static const std::vector<BenchmarkEntry>* const registry = new std::vector<BenchmarkEntry>{
      {kAidanBench, kAnswersFileName, "stop reasons are inferred from the last answers",
       [](const SweepConfig& config) -> std::unique_ptr<Benchmark> {
         if (!config.aidanbench.has_value()) return nullptr;
         return std::make_unique<AidanBenchmark>(config);
       },
       RebuildAidanResults, ExportAidanReference},
      {kNoveltyBench, kSamplesFileName, "NoveltyBench settings are assumed",
       [](const SweepConfig& config) -> std::unique_ptr<Benchmark> {
         if (!config.noveltybench.has_value()) return nullptr;
         return std::make_unique<NoveltyBenchmark>(config);
       },
       RebuildNoveltyResults, ExportNoveltyReference},
  };
  return *registry;
}

absl::StatusOr<std::unique_ptr<BenchmarkResults>> ReduceRebuiltUnits(const RebuildRequest& request,
                                                                     std::vector<UnitResult> units,
                                                                     BenchmarkReducer& reducer,
                                                                     const std::string& rewrite_note,
                                                                     std::vector<std::string>& notes) {
  for (UnitResult& unit : units) reducer.Add(std::move(unit), {});
  if (request.keep_calls) {
    Json run = Json::object();
    if (request.old_summary != nullptr && request.old_summary->is_object()) {
      const Json& summary = *request.old_summary;
      if (auto calls = summary.find("calls"); calls != summary.end()) reducer.AddCalls(CallStatsFromJson(*calls));
      if (auto old_run = summary.find("run"); old_run != summary.end() && old_run->is_object()) run = *old_run;
    }
    reducer.SetRunInfo(std::move(run));
  }
  std::unique_ptr<BenchmarkResults> results = reducer.Results();

  ASSIGN_OR_RETURN(const std::string rows_text, results->RowsText());
  ASSIGN_OR_RETURN(const std::string old_rows, ReadFile(request.rows_path));
  if (rows_text != old_rows) {
    RETURN_IF_ERROR(WriteFileAtomically(request.rows_path, rows_text));
    notes.push_back(rewrite_note);
  }
  return results;
}

std::vector<std::shared_ptr<const Benchmark>> MakeBenchmarks(const SweepConfig& config) {
  std::vector<std::shared_ptr<const Benchmark>> benchmarks;
  for (const BenchmarkEntry& entry : BenchmarkRegistry()) {
    if (std::unique_ptr<Benchmark> b = entry.make(config)) benchmarks.push_back(std::move(b));
  }
  return benchmarks;
}

}  // namespace noveltygrid
