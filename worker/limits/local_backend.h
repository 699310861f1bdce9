// LocalBackend: the limits counted in this process alone -- requests in flight, and the requests and
// tokens of the current calendar minute (floor(unix seconds / 60) of the given time). Used on its own
// without Redis, and inside RedisBackend as the fallback while Redis is away.
//
// Not thread-safe: owned and called by the limiter thread.
#ifndef NOVELTYGRID_WORKER_LIMITS_LOCAL_BACKEND_H_
#define NOVELTYGRID_WORKER_LIMITS_LOCAL_BACKEND_H_

#include <cstdint>
#include <vector>

#include "common/provider_config.h"
#include "worker/limits/admission_backend.h"

namespace noveltygrid::limits_internal {

// The tokens the first `granted` of `reserves` reserved.
int64_t ReservedBy(const std::vector<int64_t>& reserves, int granted);

// The calendar minute of `t` (UTC) and the time it ends.
int64_t MinuteOf(absl::Time t);
absl::Time NextMinute(absl::Time t);

class LocalBackend : public AdmissionBackend {
 public:
  explicit LocalBackend(ProviderLimits limits) : limits_(limits) {}

  void Release(int count, const Settlements& settlements, absl::Time now) override;
  Admission Admit(const std::vector<int64_t>& reserves, absl::Time now) override;

  // Counts `granted` requests (reserving `tokens`) admitted elsewhere (by Redis), so that a fallback
  // to local limits starts from this process's real usage.
  void Record(int granted, int64_t tokens, absl::Time now);

  int64_t in_flight() const { return in_flight_; }

 private:
  // Starts a new window when `now` is in a later minute than the counters.
  void Roll(absl::Time now);

  const ProviderLimits limits_;
  int64_t in_flight_ = 0;
  int64_t minute_ = -1;
  int64_t requests_ = 0;  // admitted in minute_
  int64_t tokens_ = 0;    // charged in minute_
};

}  // namespace noveltygrid::limits_internal

#endif  // NOVELTYGRID_WORKER_LIMITS_LOCAL_BACKEND_H_
