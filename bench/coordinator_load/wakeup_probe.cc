#include "bench/coordinator_load/wakeup_probe.h"

#include <algorithm>

#include "absl/time/clock.h"
#include "common/percentile.h"

namespace noveltygrid::load {

void WakeupProbe::Start() {
  thread_ = std::thread([this] {
    while (true) {
      {
        absl::MutexLock lock(&mu_);
        if (stopping_) return;
      }
      Sample();
    }
  });
}

void WakeupProbe::Stop() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  if (thread_.joinable()) thread_.join();
}

void WakeupProbe::SetRecording(bool on) {
  absl::MutexLock lock(&mu_);
  recording_ = on;
}

absl::Duration WakeupProbe::Sample() {
  const absl::Time start = absl::Now();
  absl::SleepFor(interval_);
  const absl::Duration overrun = std::max(absl::ZeroDuration(), absl::Now() - start - interval_);
  absl::MutexLock lock(&mu_);
  if (recording_) overrun_us_.push_back(absl::ToInt64Microseconds(overrun));
  return overrun;
}

LatencySummary WakeupProbe::Summarize() const {
  std::vector<int64_t> samples;
  {
    absl::MutexLock lock(&mu_);
    samples = overrun_us_;
  }
  LatencySummary summary;
  summary.calls = static_cast<int64_t>(samples.size());
  if (samples.empty()) return summary;
  summary.max_us = *std::max_element(samples.begin(), samples.end());
  summary.p50_us = NearestRankPercentile(samples, 50);
  summary.p99_us = NearestRankPercentile(samples, 99);
  return summary;
}

}  // namespace noveltygrid::load
