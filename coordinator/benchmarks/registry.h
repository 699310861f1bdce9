// The benchmark registry: every benchmark plug-in, by name, in results order (AidanBench first). A
// sweep config's section (`aidanbench:`, `noveltybench:`) names its entry; the entry makes the
// coordinator's Benchmark from the config, rebuilds its part of a results folder for `report` and
// writes it in its reference implementation's layout for `export`.
// Adding a benchmark means a folder beside aidanbench/ and noveltybench/ and one line here (and the
// worker's half in worker/benchmarks/registry.cc).
#ifndef NOVELTYGRID_COORDINATOR_BENCHMARKS_REGISTRY_H_
#define NOVELTYGRID_COORDINATOR_BENCHMARKS_REGISTRY_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/config.h"
#include "coordinator/benchmarks/benchmark.h"

namespace noveltygrid {

// What `report DIR` hands each benchmark whose rows file DIR holds.
struct RebuildRequest {
  std::string rows_path;              // DIR/<rows file>
  const Json* old_summary;            // DIR/summary.json as it was; null when missing or unreadable
  bool keep_calls = false;            // carry "calls" and "run" over from it (the first benchmark rebuilt does)
  std::optional<AidanPreset> preset;  // `report --preset`: AidanBench re-marks validity with it
};

// What `export DIR --format NAME --out PATH` hands the benchmark NAME. The caller has checked that
// `rows_path` exists and that `out_path` may be written (absent, an empty folder, or --force).
struct ExportRequest {
  std::string rows_path;          // DIR/<rows file>
  std::string out_path;           // a file or a folder, as the reference layout has it
  const Json* summary = nullptr;  // DIR/summary.json (settings the rows lack); null when missing or unreadable
  int repeat = 0;                 // the one repeat exported: a reference layout holds a single pass
};

struct ExportOutcome {
  std::vector<std::string> written;  // the files written, in order
  std::vector<std::string> notes;    // for the user: what the layout could not hold, what import needs
};

struct BenchmarkEntry {
  std::string name;             // the config section, UnitSpec.benchmark and summary.json's key
  std::string rows_file;        // its file in the results folder
  std::string without_summary;  // what its rebuild assumes when the folder has no summary.json
  // The benchmark of a sweep; nullptr when the config has no such section.
  std::function<std::unique_ptr<Benchmark>(const SweepConfig&)> make;
  // Its results re-read from the rows file (rewritten when derived fields changed), notes appended for
  // the user where something had to be assumed.
  std::function<absl::StatusOr<std::unique_ptr<BenchmarkResults>>(const RebuildRequest&, std::vector<std::string>&)>
      rebuild;
  // Its rows written in the reference implementation's layout (`noveltygrid export`).
  std::function<absl::StatusOr<ExportOutcome>(const ExportRequest&)> export_reference;
};

// The end of every rebuild: adds `units` to `reducer` (without calls); when `request.keep_calls`,
// merges the old summary's "calls" into it and gives it the old "run"; rewrites `request.rows_path`
// when the reduced rows differ from it, appending `rewrite_note` to `notes` then. The reduced results.
absl::StatusOr<std::unique_ptr<BenchmarkResults>> ReduceRebuiltUnits(const RebuildRequest& request,
                                                                     std::vector<UnitResult> units,
                                                                     BenchmarkReducer& reducer,
                                                                     const std::string& rewrite_note,
                                                                     std::vector<std::string>& notes);

// Every benchmark, in results order.
const std::vector<BenchmarkEntry>& BenchmarkRegistry();

// The benchmarks a config holds, in results order.
std::vector<std::shared_ptr<const Benchmark>> MakeBenchmarks(const SweepConfig& config);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_BENCHMARKS_REGISTRY_H_
