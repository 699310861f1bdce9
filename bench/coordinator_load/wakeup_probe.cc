#include "bench/coordinator_load/wakeup_probe.h"

#include <algorithm>

#include "absl/time/clock.h"

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
  absl::MutexLock lock(&mu_);
  return SummarizeSamples(overrun_us_);
}

}  // namespace noveltygrid::load
