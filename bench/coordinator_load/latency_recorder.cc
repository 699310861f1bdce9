#include "bench/coordinator_load/latency_recorder.h"

#include <algorithm>
#include <cmath>

#include "common/percentile.h"

namespace noveltygrid::load {

const char* RpcName(Rpc rpc) {
  switch (rpc) {
    case Rpc::kLease:
      return "Lease";
    case Rpc::kHeartbeat:
      return "Heartbeat";
    case Rpc::kReport:
      return "Report";
    case Rpc::kComplete:
      return "Complete";
    case Rpc::kCompleteMany:
      return "CompleteMany";
    case Rpc::kCount:
      break;
  }
  return "?";
}

void LatencyRecorder::SetRecording(bool on) {
  absl::MutexLock lock(&mu_);
  recording_ = on;
}

void LatencyRecorder::Record(Rpc rpc, absl::Duration latency, bool ok) {
  const int kind = static_cast<int>(rpc);
  absl::MutexLock lock(&mu_);
  if (!recording_) return;
  samples_[kind].push_back(absl::ToInt64Microseconds(latency));
  if (!ok) ++errors_[kind];
}

LatencySummary LatencyRecorder::Summarize(Rpc rpc) const {
  const int kind = static_cast<int>(rpc);
  std::vector<int64_t> samples;
  LatencySummary summary;
  {
    absl::MutexLock lock(&mu_);
    samples = samples_[kind];
    summary.errors = errors_[kind];
  }
  summary.calls = static_cast<int64_t>(samples.size());
  if (samples.empty()) return summary;
  summary.max_us = *std::max_element(samples.begin(), samples.end());
  summary.p50_us = NearestRankPercentile(samples, 50);
  summary.p99_us = NearestRankPercentile(samples, 99);
  return summary;
}

}  // namespace noveltygrid::load
