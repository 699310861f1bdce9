#include "worker/limits/local_backend.h"

#include <algorithm>

namespace noveltygrid::limits_internal {

int64_t MinuteOf(absl::Time t) {
  const int64_t seconds = absl::ToUnixSeconds(t);
  return seconds >= 0 ? seconds / 60 : (seconds - 59) / 60;  // floor, also before 1970
}

absl::Time NextMinute(absl::Time t) { return absl::FromUnixSeconds((MinuteOf(t) + 1) * 60); }

void LocalBackend::Roll(absl::Time now) {
  // A clock that steps back stays in the newest minute seen, so limits are never reset twice.
  const int64_t minute = MinuteOf(now);
  if (minute <= minute_) return;
  minute_ = minute;
  requests_ = 0;
  tokens_ = 0;
}

void LocalBackend::Release(int count, const Settlements& settlements, absl::Time now) {
  Roll(now);
  in_flight_ = std::max<int64_t>(0, in_flight_ - count);
  for (const auto& [minute, s] : settlements) {
    tokens_ += s.excess;
    if (minute == minute_) tokens_ = std::max<int64_t>(0, tokens_ - s.refund);
  }
}

void LocalBackend::Record(int granted, int64_t tokens, absl::Time now) {
  Roll(now);
  in_flight_ += granted;
  requests_ += granted;
  tokens_ += tokens;
}

int64_t ReservedBy(const std::vector<int64_t>& reserves, int granted) {
  int64_t sum = 0;
  for (int i = 0; i < granted && i < static_cast<int>(reserves.size()); ++i) sum += std::max<int64_t>(0, reserves[i]);
  return sum;
}

Admission LocalBackend::Admit(const std::vector<int64_t>& reserves, absl::Time now) {
  Roll(now);
  const int64_t want = static_cast<int64_t>(reserves.size());
  int64_t allowed = want;
  bool time_bound = false;  // a per-minute limit is what holds the rest back
  if (limits_.tokens_per_minute > 0) {
    int64_t charged = tokens_;
    int64_t fit = 0;
    while (fit < want && charged < limits_.tokens_per_minute) charged += std::max<int64_t>(0, reserves[fit++]);
    if (fit < want) {
      allowed = fit;
      time_bound = true;
    }
  }
  if (limits_.requests_per_minute > 0 && limits_.requests_per_minute - requests_ < allowed) {
    allowed = std::max<int64_t>(0, limits_.requests_per_minute - requests_);
    time_bound = true;
  }
  if (limits_.max_in_flight > 0) {
    allowed = std::min(allowed, std::max<int64_t>(0, limits_.max_in_flight - in_flight_));
  }
  Admission admission;
  admission.granted = static_cast<int>(allowed);
  admission.minute = minute_;
  Record(admission.granted, ReservedBy(reserves, admission.granted), now);
  // Held back by max_in_flight alone: only a release helps, and a release starts a round.
  if (admission.granted < want && time_bound) admission.retry_at = NextMinute(now);
  return admission;
}

}  // namespace noveltygrid::limits_internal
