// WakeupProbe: how late the load generator's own threads run when their wait ends -- a thread of the
// generator (at its nice) that sleeps 1 ms at a time and records by how much each sleep overran. A
// fake worker blocked on an RPC wakes the same way when the answer arrives, so on a machine the
// generator shares with the coordinator and Redis, this is the part of a client-side latency that is
// the generator waiting for a core rather than the coordinator answering (bench/coordinator_load
// prints it beside both).
//
// Thread-safe: Start() and Stop() from one thread; SetRecording() and Summarize() from any.
#ifndef NOVELTYGRID_BENCH_COORDINATOR_LOAD_WAKEUP_PROBE_H_
#define NOVELTYGRID_BENCH_COORDINATOR_LOAD_WAKEUP_PROBE_H_

#include <cstdint>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "bench/coordinator_load/latency_recorder.h"

namespace noveltygrid::load {

class WakeupProbe {
 public:
  explicit WakeupProbe(absl::Duration interval = absl::Milliseconds(1)) : interval_(interval) {}
  ~WakeupProbe() { Stop(); }

  // A thread that takes Sample() after Sample() until Stop().
  void Start();
  void Stop();
  // Samples are kept only while recording (the measured window).
  void SetRecording(bool on);
  // One sleep of the interval; records (when recording) and returns how much later than asked it woke.
  absl::Duration Sample();
  // p50 / p99 / max of the recorded overruns; `calls` is the number of sleeps.
  LatencySummary Summarize() const;

 private:
  const absl::Duration interval_;
  mutable absl::Mutex mu_;
  bool recording_ ABSL_GUARDED_BY(mu_) = false;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<int64_t> overrun_us_ ABSL_GUARDED_BY(mu_);
  std::thread thread_;
};

}  // namespace noveltygrid::load

#endif  // NOVELTYGRID_BENCH_COORDINATOR_LOAD_WAKEUP_PROBE_H_
