// StoreGuard: keeps optional storage (the embedding cache, loop checkpoints) from slowing or stopping
// the work when Redis is away. After a failure it stops using the store for `cool_down`, then tries
// again; it prints one warning per outage, and one note when the store is back.
//
// Thread-safe.
#ifndef NOVELTYGRID_COMMON_STORAGE_STORE_GUARD_H_
#define NOVELTYGRID_COMMON_STORAGE_STORE_GUARD_H_

#include <string>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace noveltygrid {

class StoreGuard {
 public:
  // `what` names the feature in messages ("embedding cache").
  explicit StoreGuard(std::string what, absl::Duration cool_down = absl::Seconds(5))
      : what_(std::move(what)), cool_down_(cool_down) {}

  // False while cooling down after a failure: skip the store.
  bool Allow();
  // Reports the outcome of a store call.
  void Record(const absl::Status& status);

 private:
  const std::string what_;
  const absl::Duration cool_down_;
  absl::Mutex mu_;
  bool down_ ABSL_GUARDED_BY(mu_) = false;
  absl::Time retry_at_ ABSL_GUARDED_BY(mu_);
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COMMON_STORAGE_STORE_GUARD_H_
