// UnitRunner: what the lease loop hands a leased unit to. UnitExecutor (worker/unit_executor.h) runs it
// with the benchmark's engine and the worker's models; tests give the lease loop a fake whose units
// they finish by hand.
//
// Thread-safe. Start() returns at once. OK: the unit started, and `done` will be called exactly once
// (possibly before Start() returns, on the caller's thread, so the caller must not hold a lock the
// callbacks take). An error: the unit did not start (e.g. a model this worker cannot build) and no
// callback is called.
#ifndef NOVELTYGRID_WORKER_UNIT_RUNNER_H_
#define NOVELTYGRID_WORKER_UNIT_RUNNER_H_

#include "absl/status/status.h"
#include "noveltygrid/v1/coordinator.pb.h"
#include "worker/unit_events.h"

namespace noveltygrid {

class UnitRunner {
 public:
  virtual ~UnitRunner() = default;

  // Runs the leased unit from `checkpoint` (its steps done under earlier leases). `on_step` sees each
  // finished step and returns false to stop the unit; `still_leased` may be asked between phases.
  virtual absl::Status Start(const v1::Lease& lease, UnitCheckpoint checkpoint, StepObserver on_step,
                             UnitDoneCallback done, LeaseCheck still_leased) = 0;
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_WORKER_UNIT_RUNNER_H_
