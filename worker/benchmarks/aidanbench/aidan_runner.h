// AidanBench's worker half (benchmark_runner.h): a lease's unit runs the AidanBench loop
// (worker/engines/aidanbench_engine.h) with the generator, judge and embedder its settings name, the
// embedding cache in front of the embedder.
#ifndef NOVELTYGRID_WORKER_BENCHMARKS_AIDANBENCH_AIDAN_RUNNER_H_
#define NOVELTYGRID_WORKER_BENCHMARKS_AIDANBENCH_AIDAN_RUNNER_H_

#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "common/prompts.h"
#include "noveltygrid/v1/settings.pb.h"
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
  // The lease's templates, converted once per sweep rather than once per unit: every loop of a sweep
  // shares one copy (2.4 KB each, per loop in flight, before). The last sweep's are kept.
  std::shared_ptr<const PromptTemplates> Templates(const v1::PromptTemplates& proto);

  const RunnerContext context_;
  absl::Mutex mu_;
  std::string templates_key_ ABSL_GUARDED_BY(mu_);  // the serialized proto of templates_
  std::shared_ptr<const PromptTemplates> templates_ ABSL_GUARDED_BY(mu_);
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_WORKER_BENCHMARKS_AIDANBENCH_AIDAN_RUNNER_H_
