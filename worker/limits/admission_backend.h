// AdmissionBackend: where a ProviderLimiter's counters live -- this process (LocalBackend) or Redis
// (RedisBackend). QueuedLimiter owns the waiters, the thread and the stats; the backend only answers
// "how many of these may go now" and records releases.
//
// Not thread-safe: every call comes from the limiter thread, which owns the backend.
#ifndef NOVELTYGRID_WORKER_LIMITS_ADMISSION_BACKEND_H_
#define NOVELTYGRID_WORKER_LIMITS_ADMISSION_BACKEND_H_

#include <cstdint>
#include <map>
#include <vector>

#include "absl/time/time.h"

namespace noveltygrid::limits_internal {

struct Admission {
  int granted = 0;
  int64_t minute = -1;  // the calendar minute the grants' reservations were charged to
  // When fewer than asked were granted: when asking again may help. InfiniteFuture: only after a
  // release of this process.
  absl::Time retry_at = absl::InfiniteFuture();
};

// Reservations settled, by the minute they were charged to (-1: none): tokens used beyond them, and
// tokens they held but were not used.
struct Settlement {
  int64_t excess = 0;
  int64_t refund = 0;
};
using Settlements = std::map<int64_t, Settlement>;

class AdmissionBackend {
 public:
  virtual ~AdmissionBackend() = default;

  // Frees `count` in-flight slots of this process and settles reservations at `now` (when the Release
  // calls were made): every excess is charged to that minute, a refund only when its reservation's
  // minute is that one (a minute's charge never drops below 0). May be batched into the next Admit or
  // Flush (every round ends with one of them).
  virtual void Release(int count, const Settlements& settlements, absl::Time now) = 0;
  // Claims slots at `now` for a prefix of the waiters whose reservations are `reserves` (in FIFO
  // order, at least one): each one granted counts as a request of this minute, an in-flight slot
  // until released, and charges its reservation to this minute. Under tokens_per_minute the next
  // waiter goes while the minute's charge is below the limit.
  virtual Admission Admit(const std::vector<int64_t>& reserves, absl::Time now) = 0;
  // Ends a round that had no waiters to admit (so no Admit call): a backend that batches releases into
  // its next Admit sends them now. Also called once before the limiter thread exits.
  virtual void Flush(absl::Time /*now*/) {}
};

}  // namespace noveltygrid::limits_internal

#endif  // NOVELTYGRID_WORKER_LIMITS_ADMISSION_BACKEND_H_
