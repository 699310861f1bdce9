// UnitExecutor: runs one leased unit with the worker's models, whoever handed it out (a coordinator over
// gRPC, or in the same process). It hands the lease to the runner of the unit's benchmark
// (worker/benchmarks/registry.h) and knows nothing else about benchmarks.
//
// Thread-safe; Start() returns at once and, once it returned OK, `done` is called exactly once.
#ifndef NOVELTYGRID_WORKER_UNIT_EXECUTOR_H_
#define NOVELTYGRID_WORKER_UNIT_EXECUTOR_H_

#include <map>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "common/config.h"
#include "worker/benchmarks/benchmark_runner.h"
#include "worker/unit_runner.h"

namespace noveltygrid {

class UnitExecutor : public UnitRunner {
 public:
  // The caches in `context` (optional) are shared by every unit this executor runs.
  explicit UnitExecutor(const RunnerContext& context);

  // Runs the leased unit with its benchmark's runner and the settings that came with the lease. A unit
  // of a benchmark this worker does not know is refused (InvalidArgument) and does not start.
  absl::Status Start(const v1::Lease& lease, UnitCheckpoint checkpoint, StepObserver on_step, UnitDoneCallback done,
                     LeaseCheck still_leased) override;

  // Builds now every helper model of every benchmark the sweep holds (see BenchmarkRunner::CheckModels).
  absl::Status CheckBenchmarkModels(const SweepConfig& config);

 private:
  const std::map<std::string, std::unique_ptr<BenchmarkRunner>> runners_;  // by benchmark name
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_WORKER_UNIT_EXECUTOR_H_
