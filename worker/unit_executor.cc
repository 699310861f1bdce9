#include "worker/unit_executor.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "worker/benchmarks/registry.h"

namespace noveltygrid {

UnitExecutor::UnitExecutor(const RunnerContext& context) : runners_(MakeBenchmarkRunners(context)) {}

absl::Status UnitExecutor::Start(const v1::Lease& lease, UnitCheckpoint checkpoint, StepObserver on_step,
                                 UnitDoneCallback done, LeaseCheck still_leased) {
  auto runner = runners_.find(lease.unit().benchmark());
  if (runner == runners_.end()) {
    return absl::InvalidArgumentError(absl::StrCat("unit ", lease.unit().id(), " is of benchmark '",
                                                   lease.unit().benchmark(),
                                                   "', which this worker does not run (an older worker build?)"));
  }
  return runner->second->Start(lease, std::move(checkpoint), std::move(on_step), std::move(done),
                               std::move(still_leased));
}

absl::Status UnitExecutor::CheckBenchmarkModels(const SweepConfig& config) {
  for (const auto& [name, runner] : runners_) {
    if (absl::Status usable = runner->CheckModels(config); !usable.ok()) return usable;
  }
  return absl::OkStatus();
}

}  // namespace noveltygrid
