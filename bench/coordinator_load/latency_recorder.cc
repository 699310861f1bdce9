#include "bench/coordinator_load/latency_recorder.h"

#include <algorithm>
#include <cmath>
#include <utility>

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

void LatencyRecorder::SetRecording(bool on, absl::Time at) {
  absl::MutexLock lock(&mu_);
  if (on && !recording_) {
    recording_since_ = at;
    by_second_.clear();  // each window's own seconds
  }
  if (!on && recording_) recording_until_ = at;
  recording_ = on;
}

void LatencyRecorder::Record(Rpc rpc, absl::Duration latency, bool ok, absl::Time ended) {
  const int kind = static_cast<int>(rpc);
  absl::MutexLock lock(&mu_);
  if (!recording_) return;
  const int64_t us = absl::ToInt64Microseconds(latency);
  samples_[kind].push_back(us);
  if (!ok) ++errors_[kind];
  const auto second = static_cast<size_t>(std::max<int64_t>(0, absl::ToInt64Seconds(ended - recording_since_)));
  if (by_second_.size() <= second) by_second_.resize(second + 1);
  by_second_[second].push_back(us);
}

std::vector<int64_t> LatencyRecorder::P99BySecondUs() const {
  absl::MutexLock lock(&mu_);
  const absl::Time until = recording_ ? absl::Now() : recording_until_;
  const int64_t whole = std::max<int64_t>(0, absl::ToInt64Seconds(until - recording_since_));
  std::vector<int64_t> p99;
  for (int64_t i = 0; i < whole; ++i) {
    if (static_cast<size_t>(i) >= by_second_.size() || by_second_[i].empty()) {
      p99.push_back(-1);
      continue;
    }
    std::vector<int64_t> second = by_second_[i];  // a copy: the percentile reorders it
    p99.push_back(NearestRankPercentile(second, 99));
  }
  return p99;
}

LatencySummary SummarizeSamples(std::vector<int64_t> samples_us) {
  LatencySummary summary;
  summary.calls = static_cast<int64_t>(samples_us.size());
  if (samples_us.empty()) return summary;
  summary.max_us = *std::max_element(samples_us.begin(), samples_us.end());
  summary.p50_us = NearestRankPercentile(samples_us, 50);
  summary.p99_us = NearestRankPercentile(samples_us, 99);
  return summary;
}

LatencySummary LatencyRecorder::Summarize(Rpc rpc) const {
  const int kind = static_cast<int>(rpc);
  std::vector<int64_t> samples;
  int64_t errors;
  {
    absl::MutexLock lock(&mu_);
    samples = samples_[kind];
    errors = errors_[kind];
  }
  LatencySummary summary = SummarizeSamples(std::move(samples));
  summary.errors = errors;
  return summary;
}

}  // namespace noveltygrid::load
