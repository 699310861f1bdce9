#include "worker/http/hedge_policy.h"

#include <algorithm>
#include <cmath>

#include "common/percentile.h"

namespace noveltygrid {

HedgePolicy::HedgePolicy(const ProviderConfig& config)
    : floor_(config.hedge_after), percentile_(config.hedge_percentile) {}

std::optional<absl::Duration> HedgePolicy::Delay(const std::string& url) {
  if (percentile_ <= 0) {
    if (floor_ > absl::ZeroDuration()) return floor_;
    return std::nullopt;
  }
  std::optional<absl::Duration> wait;
  {
    absl::MutexLock lock(&mu_);
    auto it = windows_.find(url);
    if (it != windows_.end()) wait = it->second.wait;
  }
  if (!wait.has_value()) {
    if (floor_ > absl::ZeroDuration()) return floor_;
    return std::nullopt;
  }
  return std::max({*wait, floor_, kMinAdaptiveWait});
}

void HedgePolicy::Observe(const std::string& url, absl::Duration latency) {
  if (percentile_ <= 0) return;
  const int64_t micros = std::max<int64_t>(0, absl::ToInt64Microseconds(latency));
  absl::MutexLock lock(&mu_);
  Window& w = windows_[url];
  if (w.micros.size() < static_cast<size_t>(kWindow)) {
    w.micros.push_back(micros);
  } else {
    w.micros[w.next] = micros;
    w.next = (w.next + 1) % w.micros.size();
  }
  const bool first = !w.wait.has_value() && w.micros.size() >= static_cast<size_t>(kMinSamples);
  if (!first && (!w.wait.has_value() || ++w.fresh < kRecompute)) return;
  w.fresh = 0;
  std::vector<int64_t> samples = w.micros;
  const int64_t at_percentile = NearestRankPercentile(samples, percentile_);
  w.wait = absl::Microseconds(static_cast<int64_t>(std::llround(kMargin * static_cast<double>(at_percentile))));
}

}  // namespace noveltygrid
