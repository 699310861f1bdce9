// NoveltyBench's worker half (benchmark_runner.h): a lease's unit runs the NoveltyBench unit
// (worker/engines/noveltybench_engine.h) with the generator, partitioner model and quality model its
// settings name, the equivalence cache in front of the partitioner.
#ifndef NOVELTYGRID_WORKER_BENCHMARKS_NOVELTYBENCH_NOVELTY_RUNNER_H_
#define NOVELTYGRID_WORKER_BENCHMARKS_NOVELTYBENCH_NOVELTY_RUNNER_H_

#include <string>

#include "absl/status/statusor.h"
#include "common/unit_settings.h"
#include "worker/benchmarks/benchmark_runner.h"
#include "worker/engines/noveltybench_engine.h"

namespace noveltygrid {

class NoveltyRunner : public BenchmarkRunner {
 public:
  explicit NoveltyRunner(const RunnerContext& context) : context_(context) {}

  std::string name() const override { return kNoveltyBench; }
  absl::Status Start(const v1::Lease& lease, UnitCheckpoint checkpoint, StepObserver on_step, UnitDoneCallback done,
                     LeaseCheck still_leased) override;
  absl::Status CheckModels(const SweepConfig& config) override;

  // The models a unit of `generator` uses under `settings` (the generator itself skipped when empty),
  // built on first use; the first error when one cannot be built here.
  absl::StatusOr<NoveltyModels> ModelsFor(const NoveltySettings& settings, const std::string& generator);

 private:
  const RunnerContext context_;
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_WORKER_BENCHMARKS_NOVELTYBENCH_NOVELTY_RUNNER_H_
