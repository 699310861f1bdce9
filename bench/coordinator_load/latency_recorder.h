// LatencyRecorder: client-side latencies of the coordinator's RPCs, by call kind, for the load
// generator (bench/coordinator_load). Keeps every sample (microseconds) of the measured window, so the
// percentiles are exact, by kind and again by second; a window of two minutes at ten thousand calls a
// second is ~20 MB.
//
// Thread-safe: the fake workers' threads Record() concurrently; Summarize() may run at any time.
#ifndef NOVELTYGRID_BENCH_COORDINATOR_LOAD_LATENCY_RECORDER_H_
#define NOVELTYGRID_BENCH_COORDINATOR_LOAD_LATENCY_RECORDER_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace noveltygrid::load {

enum class Rpc { kLease, kHeartbeat, kReport, kComplete, kCompleteMany, kCount };
inline constexpr int kRpcKinds = static_cast<int>(Rpc::kCount);
const char* RpcName(Rpc rpc);

struct LatencySummary {
  int64_t calls = 0;
  int64_t errors = 0;
  int64_t p50_us = 0, p99_us = 0, max_us = 0;
};

// Count, p50, p99 (nearest rank) and max of `samples_us`; errors left 0.
LatencySummary SummarizeSamples(std::vector<int64_t> samples_us);

class LatencyRecorder {
 public:
  // Samples are kept only while recording (the measured window, from `at` on or until `at`); errors are
  // counted then too.
  void SetRecording(bool on, absl::Time at = absl::Now());
  // A call that took `latency` and ended at `ended`.
  void Record(Rpc rpc, absl::Duration latency, bool ok, absl::Time ended = absl::Now());
  LatencySummary Summarize(Rpc rpc) const;
  // The p99 of every kind's calls together, per whole second of the last window (by when each call
  // ended; a partial last second is left out), -1 for a second in which no call ended: a tail made of
  // a few bad seconds (a stall) looks unlike one spread over the window (queueing).
  std::vector<int64_t> P99BySecondUs() const;

 private:
  mutable absl::Mutex mu_;
  bool recording_ ABSL_GUARDED_BY(mu_) = false;
  absl::Time recording_since_ ABSL_GUARDED_BY(mu_);
  absl::Time recording_until_ ABSL_GUARDED_BY(mu_);
  std::vector<std::vector<int64_t>> by_second_ ABSL_GUARDED_BY(mu_);
  std::array<std::vector<int64_t>, kRpcKinds> samples_ ABSL_GUARDED_BY(mu_);
  std::array<int64_t, kRpcKinds> errors_ ABSL_GUARDED_BY(mu_) = {};
};

}  // namespace noveltygrid::load

#endif  // NOVELTYGRID_BENCH_COORDINATOR_LOAD_LATENCY_RECORDER_H_
