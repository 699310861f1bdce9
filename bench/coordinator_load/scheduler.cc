#include "bench/coordinator_load/scheduler.h"

#include <utility>

#include "absl/time/clock.h"

namespace noveltygrid::load {

Scheduler::Scheduler() : thread_([this] { Run(); }) {}

Scheduler::~Scheduler() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  changed_.Signal();
  thread_.join();
}

void Scheduler::At(absl::Time when, std::function<void()> task) {
  absl::MutexLock lock(&mu_);
  // The thread waits for the earliest task: wake it only when this one comes before that.
  const bool earliest = tasks_.empty() || when < tasks_.top().when;
  tasks_.push({when, next_order_++, std::move(task)});
  if (earliest) changed_.Signal();
}

void Scheduler::SetRecording(bool on) {
  absl::MutexLock lock(&mu_);
  recording_ = on;
}

LatencySummary Scheduler::Lateness() const {
  absl::MutexLock lock(&mu_);
  return SummarizeSamples(lateness_us_);
}

void Scheduler::Run() {
  while (true) {
    std::function<void()> task;
    {
      absl::MutexLock lock(&mu_);
      while (true) {
        if (stopping_) return;
        if (tasks_.empty()) {
          changed_.Wait(&mu_);
          continue;
        }
        const absl::Time when = tasks_.top().when;
        if (const absl::Time now = absl::Now(); when <= now) {
          if (recording_) lateness_us_.push_back(absl::ToInt64Microseconds(now - when));
          break;
        }
        changed_.WaitWithDeadline(&mu_, when);  // until then, or an earlier task, or stopping
      }
      // The queue's top is const; its task is moved out just before the entry goes.
      task = std::move(const_cast<Entry&>(tasks_.top()).task);
      tasks_.pop();
    }
    task();  // outside the lock: it may schedule more
  }
}

}  // namespace noveltygrid::load
