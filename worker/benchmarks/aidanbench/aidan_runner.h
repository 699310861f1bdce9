// AidanBench's worker half (benchmark_runner.h): a lease's unit runs the AidanBench loop
// (worker/engines/aidanbench_engine.h) with the generator, judge and embedder its settings name, the
// embedding cache in front of the embedder.
#ifndef NOVELTYGRID_WORKER_BENCHMARKS_AIDANBENCH_AIDAN_RUNNER_H_
#define NOVELTYGRID_WORKER_BENCHMARKS_AIDANBENCH_AIDAN_RUNNER_H_

#include <string>

#include "worker/benchmarks/benchmark_runner.h"
#include "worker/engines/aidanbench_engine.h"

namespace noveltygrid {

class AidanRunner : public BenchmarkRunner {
 public:
  explicit AidanRunner(const RunnerContext& context) : context_(context) {}

  std::string name() const override { return kAidanBench; }
  absl::Status Start(const v1::Lease& lease, UnitCheckpoint checkpoint, StepObserver on_step, UnitDoneCallback done,
                     LeaseCheck still_leased) override;
  absl::Status CheckModels(const SweepConfig& config) override;

 private:
  const RunnerContext context_;
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_WORKER_BENCHMARKS_AIDANBENCH_AIDAN_RUNNER_H_
