// FakeUnitRunner: a UnitRunner whose units run nowhere: it keeps what Start() was given, and the test
// plays the engine by hand -- Step() reports a finished step, Finish() ends the unit -- on its own
// thread. Start() can be made to fail (a unit this worker cannot run).
#ifndef NOVELTYGRID_TESTS_WORKER_FAKE_UNIT_RUNNER_H_
#define NOVELTYGRID_TESTS_WORKER_FAKE_UNIT_RUNNER_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "worker/unit_runner.h"

namespace noveltygrid::testing {

class FakeUnitRunner final : public UnitRunner {
 public:
  struct Unit {
    v1::Lease lease;
    UnitCheckpoint checkpoint;
    StepObserver on_step;
    UnitDoneCallback done;
    LeaseCheck still_leased;
    std::vector<StepRecord> steps;      // the checkpoint's, then those reported through Step()
    std::vector<Embedding> embeddings;  // parallel to steps
    bool finished = false;
  };

  // While not OK, Start() refuses units with this error.
  void FailStarts(absl::Status error) {
    absl::MutexLock lock(&mu_);
    start_error_ = std::move(error);
  }

  absl::Status Start(const v1::Lease& lease, UnitCheckpoint checkpoint, StepObserver on_step, UnitDoneCallback done,
                     LeaseCheck still_leased) override {
    absl::MutexLock lock(&mu_);
    if (!start_error_.ok()) return start_error_;
    auto unit = std::make_unique<Unit>();
    unit->lease = lease;
    unit->steps = checkpoint.answers;
    unit->embeddings = checkpoint.embeddings;
    unit->embeddings.resize(unit->steps.size());
    unit->checkpoint = std::move(checkpoint);
    unit->on_step = std::move(on_step);
    unit->done = std::move(done);
    unit->still_leased = std::move(still_leased);
    units_.push_back(std::move(unit));
    return absl::OkStatus();
  }

  // Blocks until `n` units have started.
  void AwaitStarted(int n) const {
    absl::MutexLock lock(&mu_);
    auto started = [this, n]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return static_cast<int>(units_.size()) >= n; };
    mu_.Await(absl::Condition(&started));
  }
  int started() const {
    absl::MutexLock lock(&mu_);
    return static_cast<int>(units_.size());
  }
  // The i-th unit started (valid while the runner lives).
  Unit& unit(int i) const {
    absl::MutexLock lock(&mu_);
    return *units_.at(i);
  }

  // Unit i finished its next step; returns what the lease loop answered (false: stop the unit).
  bool Step(int i) {
    Unit& u = unit(i);
    StepRecord step;
    step.answer_num = static_cast<int>(u.steps.size()) + 1;
    step.answer = "answer " + std::to_string(step.answer_num);
    step.coherence = 90;
    step.novelty = 0.5;
    step.valid = true;
    u.steps.push_back(step);
    u.embeddings.push_back({1.0f, static_cast<float>(step.answer_num)});
    return u.on_step(StepEvent{u.steps, u.embeddings, CallsOf(u)});
  }

  // Unit i ends with `stop_reason` and every step it has.
  void Finish(int i, const std::string& stop_reason) {
    Unit& u = unit(i);
    UnitResult result;
    result.unit.id = u.lease.unit().id();
    result.answers = u.steps;
    result.stop_reason = stop_reason;
    u.finished = true;
    CallStats calls = CallsOf(u);
    calls["judge:j"].requests = 1;  // a call after the last step: only the end reports it
    std::move(u.done)(std::move(result), std::move(calls));
  }

  // The unit's calls so far, cumulative (what engines report): one generate call per step.
  static CallStats CallsOf(const Unit& u) {
    CallStats calls;
    calls["generate:m"].requests = static_cast<int64_t>(u.steps.size());
    return calls;
  }

  // Every unit not finished yet ends as cancelled (what aborting the model calls does).
  void CancelAll() {
    for (int i = 0; i < started(); ++i) {
      if (!unit(i).finished) Finish(i, kStopCancelled);
    }
  }

 private:
  mutable absl::Mutex mu_;
  absl::Status start_error_ ABSL_GUARDED_BY(mu_);
  std::vector<std::unique_ptr<Unit>> units_ ABSL_GUARDED_BY(mu_);
};

}  // namespace noveltygrid::testing

#endif  // NOVELTYGRID_TESTS_WORKER_FAKE_UNIT_RUNNER_H_
