// Clock: the time source behind every lease deadline, heartbeat, pause and backoff, injected so that
// tests can drive time by hand (FakeClock) and never sleep.
//
// Waiting goes through the clock too: AwaitWithDeadline(mu, cond, deadline) is absl::Mutex's
// AwaitWithDeadline measured on this clock. SystemClock forwards to absl; FakeClock wakes its waiters
// when a test advances it, and lets the test wait until the threads under test are waiting
// (AwaitWaiters), so a test knows when advancing time has an effect.
//
//   FakeClock clock;
//   // thread A (holds mu): clock.AwaitWithDeadline(mu, absl::Condition(&stop), clock.Now() + absl::Seconds(2));
//   clock.AwaitWaiters(1);            // A is waiting
//   clock.Advance(absl::Seconds(2));  // A returns (false: `stop` does not hold)
#ifndef NOVELTYGRID_COMMON_CLOCK_H_
#define NOVELTYGRID_COMMON_CLOCK_H_

#include <atomic>
#include <cstdint>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace noveltygrid {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual absl::Time Now() const = 0;
  // With `mu` held: waits until `cond` holds or this clock reaches `deadline`; returns whether `cond`
  // holds. `mu` is released while waiting, as in absl::Mutex::AwaitWithDeadline.
  virtual bool AwaitWithDeadline(absl::Mutex& mu, const absl::Condition& cond, absl::Time deadline) const = 0;
};

class SystemClock : public Clock {
 public:
  absl::Time Now() const override { return absl::Now(); }
  bool AwaitWithDeadline(absl::Mutex& mu, const absl::Condition& cond, absl::Time deadline) const override {
    return mu.AwaitWithDeadline(cond, deadline);
  }
};

// The process's SystemClock (stateless; lives forever): the default wherever a clock is optional.
inline const Clock* SystemClockInstance() {
  static const SystemClock* const kClock = new SystemClock();
  return kClock;
}

// Thread-safe manual clock for tests. Time moves only in Advance(), which wakes every waiter whose
// deadline it reaches. Advance() must not race with the destruction of a mutex someone waits on
// (tests advance from their own thread and destroy the objects under test after joining them).
class FakeClock : public Clock {
 public:
  explicit FakeClock(absl::Time start = absl::FromUnixSeconds(1'700'000'000)) : now_ns_(absl::ToUnixNanos(start)) {}

  absl::Time Now() const override { return absl::FromUnixNanos(now_ns_.load()); }

  bool AwaitWithDeadline(absl::Mutex& mu, const absl::Condition& cond, absl::Time deadline) const override {
    {
      absl::MutexLock lock(&waiters_mu_);
      waiters_.push_back({&mu, deadline});
    }
    // Re-evaluated whenever `mu` is released, which Advance() does after moving time.
    struct Wait {
      const FakeClock* clock;
      const absl::Condition* cond;
      absl::Time deadline;
      bool Done() const { return cond->Eval() || clock->Now() >= deadline; }
    } wait{this, &cond, deadline};
    mu.Await(absl::Condition(&wait, &Wait::Done));
    {
      absl::MutexLock lock(&waiters_mu_);
      for (auto it = waiters_.begin(); it != waiters_.end(); ++it) {
        if (it->mu == &mu && it->deadline == deadline) {
          waiters_.erase(it);
          break;
        }
      }
    }
    return cond.Eval();
  }

  void Advance(absl::Duration d) {
    now_ns_.fetch_add(absl::ToInt64Nanoseconds(d));
    std::vector<absl::Mutex*> waiting;
    {
      absl::MutexLock lock(&waiters_mu_);
      for (const Waiter& w : waiters_) waiting.push_back(w.mu);
    }
    // Releasing a waiter's mutex makes absl re-check its condition, which now sees the new time.
    for (absl::Mutex* mu : waiting) {
      mu->Lock();
      mu->Unlock();
    }
  }

  // Threads inside AwaitWithDeadline now.
  int waiters() const {
    absl::MutexLock lock(&waiters_mu_);
    return static_cast<int>(waiters_.size());
  }

  // Blocks until at least `n` threads wait on this clock.
  void AwaitWaiters(int n) const {
    absl::MutexLock lock(&waiters_mu_);
    auto enough = [this, n]()
                      ABSL_EXCLUSIVE_LOCKS_REQUIRED(waiters_mu_) { return static_cast<int>(waiters_.size()) >= n; };
    waiters_mu_.Await(absl::Condition(&enough));
  }

  // Blocks until some thread waits on this clock until exactly `deadline` (e.g. Now() + the pause
  // the code under test is expected to take): then advancing to `deadline` wakes it.
  void AwaitDeadline(absl::Time deadline) const {
    absl::MutexLock lock(&waiters_mu_);
    auto waiting = [this, deadline]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(waiters_mu_) {
      for (const Waiter& w : waiters_) {
        if (w.deadline == deadline) return true;
      }
      return false;
    };
    waiters_mu_.Await(absl::Condition(&waiting));
  }

 private:
  struct Waiter {
    absl::Mutex* mu;
    absl::Time deadline;
  };

  std::atomic<int64_t> now_ns_;  // atomic: read inside waiters' conditions, under their own mutexes
  mutable absl::Mutex waiters_mu_;
  mutable std::vector<Waiter> waiters_ ABSL_GUARDED_BY(waiters_mu_);  // one entry per waiting thread
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COMMON_CLOCK_H_
