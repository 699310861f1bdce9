// Clock: the time source behind every lease deadline and heartbeat, injected so that tests can drive
// time by hand (FakeClock) and never sleep.
#ifndef NOVELTYGRID_COMMON_CLOCK_H_
#define NOVELTYGRID_COMMON_CLOCK_H_

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace noveltygrid {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual absl::Time Now() const = 0;
};

class SystemClock : public Clock {
 public:
  absl::Time Now() const override { return absl::Now(); }
};

// Thread-safe manual clock for tests.
class FakeClock : public Clock {
 public:
  explicit FakeClock(absl::Time start = absl::FromUnixSeconds(1'700'000'000)) : now_(start) {}
  absl::Time Now() const override {
    absl::MutexLock lock(&mu_);
    return now_;
  }
  void Advance(absl::Duration d) {
    absl::MutexLock lock(&mu_);
    now_ += d;
  }

 private:
  mutable absl::Mutex mu_;
  absl::Time now_ ABSL_GUARDED_BY(mu_);
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COMMON_CLOCK_H_
