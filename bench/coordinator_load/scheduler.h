// Scheduler: one thread that runs tasks at their times, earliest first -- the clock of the load
// generator's callback workers (callback_worker.h): their rounds, heartbeats and pauses. A task runs on
// the scheduler's thread and should be short (it starts calls; it does not wait for them).
//
// It also measures itself: by how much each task started after its time (one thread serves fifty
// workers; if it falls behind, their rounds go late and the load offered drops, which this shows).
//
// Thread-safe. Destruction ends the thread after the task running, if any; tasks not yet run are
// dropped (destroyed, not run).
#ifndef NOVELTYGRID_BENCH_COORDINATOR_LOAD_SCHEDULER_H_
#define NOVELTYGRID_BENCH_COORDINATOR_LOAD_SCHEDULER_H_

#include <cstdint>
#include <functional>
#include <queue>
#include <thread>
#include <tuple>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "bench/coordinator_load/latency_recorder.h"

namespace noveltygrid::load {

class Scheduler {
 public:
  Scheduler();
  ~Scheduler();
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // Runs `task` at `when` or as soon after as the thread is free (at once when `when` has passed);
  // tasks of the same time in the order they were given.
  void At(absl::Time when, std::function<void()> task);

  // Lateness is kept only while recording (the measured window).
  void SetRecording(bool on);
  // How late the tasks started while recording: count, p50, p99, max (microseconds).
  LatencySummary Lateness() const;

 private:
  struct Entry {
    absl::Time when;
    uint64_t order;
    std::function<void()> task;
    bool operator>(const Entry& other) const { return std::tie(when, order) > std::tie(other.when, other.order); }
  };
  void Run();

  mutable absl::Mutex mu_;
  absl::CondVar changed_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  bool recording_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<int64_t> lateness_us_ ABSL_GUARDED_BY(mu_);
  uint64_t next_order_ ABSL_GUARDED_BY(mu_) = 0;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> tasks_ ABSL_GUARDED_BY(mu_);
  std::thread thread_;
};

}  // namespace noveltygrid::load

#endif  // NOVELTYGRID_BENCH_COORDINATOR_LOAD_SCHEDULER_H_
