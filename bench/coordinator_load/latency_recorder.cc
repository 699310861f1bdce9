#include "bench/coordinator_load/latency_recorder.h"

#include <algorithm>
#include <cmath>

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

int64_t Percentile(std::vector<int64_t>& samples, double p) {
  if (samples.empty()) return 0;
  const double rank = std::ceil(p / 100.0 * static_cast<double>(samples.size()));
  const size_t index = static_cast<size_t>(std::clamp(rank, 1.0, static_cast<double>(samples.size()))) - 1;
  std::nth_element(samples.begin(), samples.begin() + index, samples.end());
  return samples[index];
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
  summary.p50_us = Percentile(samples, 50);
  summary.p99_us = Percentile(samples, 99);
  return summary;
}

}  // namespace noveltygrid::load
