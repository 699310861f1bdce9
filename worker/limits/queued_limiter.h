// QueuedLimiter: the ProviderLimiter itself -- the FIFO of waiters, the stats and the limiter thread
// that runs admission rounds against an AdmissionBackend (local counters or Redis).
//
// Threading: Acquire, Release, Stats and Pump may be called from any thread; they only touch the
// state guarded by mu_ (Pump then waits). The limiter thread owns the backend and is the only one to
// call it, so a backend's blocking Redis calls never run on a caller's thread or on the executor.
// `go` tasks are Schedule()d by the limiter thread, outside mu_.
#ifndef NOVELTYGRID_WORKER_LIMITS_QUEUED_LIMITER_H_
#define NOVELTYGRID_WORKER_LIMITS_QUEUED_LIMITER_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "worker/limits/admission_backend.h"
#include "worker/limits/provider_limiter.h"

namespace noveltygrid::limits_internal {

class QueuedLimiter : public ProviderLimiter {
 public:
  // `backend` null: unlimited -- Acquire schedules `go` at once and no thread is started. `clock` null:
  // the system clock. `executor` and `clock` must outlive the limiter.
  QueuedLimiter(Executor* executor, Clock* clock, std::unique_ptr<AdmissionBackend> backend);
  ~QueuedLimiter() override;
  QueuedLimiter(const QueuedLimiter&) = delete;
  QueuedLimiter& operator=(const QueuedLimiter&) = delete;

  using ProviderLimiter::Acquire;
  void Acquire(absl::AnyInvocable<void(TokenReservation) &&> go, int64_t reserve_tokens) override;
  bool AcquireNow() override;  // true only when unlimited (no backend)
  void Release(int64_t tokens, TokenReservation reserved = {}) override;
  ProviderLimiterStats Stats() const override;
  void Pump() override;

  // Waiters asked for in one round (one Redis round trip claims at most this many slots).
  static constexpr int kMaxBatch = 256;

 private:
  struct Waiter {
    absl::AnyInvocable<void(TokenReservation) &&> go;
    int64_t reserve = 0;
  };
  struct Released {
    absl::Time at;  // in the calendar minute of the Release calls gathered here
    int count = 0;  // in-flight slots freed
    Settlements settlements;
  };

  void Loop();
  // Hands the releases gathered so far to the backend (limiter thread).
  void PassReleases(std::vector<Released> released);
  // Whether the limiter thread has a reason to run a round now (time aside).
  bool HasWork() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // Constant after construction.
  const SystemClock system_clock_;
  Executor* const executor_;
  const Clock* const clock_;
  const std::unique_ptr<AdmissionBackend> backend_;  // limiter thread only; null when unlimited

  mutable absl::Mutex mu_;
  std::deque<Waiter> waiting_ ABSL_GUARDED_BY(mu_);
  // The first delayed_prefix_ waiters were already counted in stats_.delayed (a round left them
  // waiting; rounds always consider a prefix of the FIFO, so the counted ones are a prefix too).
  int64_t delayed_prefix_ ABSL_GUARDED_BY(mu_) = 0;
  bool new_waiters_ ABSL_GUARDED_BY(mu_) = false;  // arrived since the last round
  // Releases not yet given to the backend, one entry per calendar minute they were made in (excess
  // tokens are charged to the minute of the Release call, not of the round that passes them on).
  std::vector<Released> released_ ABSL_GUARDED_BY(mu_);
  // The last round left waiters behind; asking again before retry_at_ helps only after a release.
  bool blocked_ ABSL_GUARDED_BY(mu_) = false;
  absl::Time retry_at_ ABSL_GUARDED_BY(mu_) = absl::InfiniteFuture();
  uint64_t pumps_requested_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t pumps_done_ ABSL_GUARDED_BY(mu_) = 0;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  ProviderLimiterStats stats_ ABSL_GUARDED_BY(mu_);  // `waiting` is waiting_.size()

  std::thread thread_;  // last: started once everything above is initialised
};

}  // namespace noveltygrid::limits_internal

#endif  // NOVELTYGRID_WORKER_LIMITS_QUEUED_LIMITER_H_
