#include "worker/limits/queued_limiter.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "worker/limits/local_backend.h"

namespace noveltygrid::limits_internal {

QueuedLimiter::QueuedLimiter(Executor* executor, Clock* clock, std::unique_ptr<AdmissionBackend> backend)
    : executor_(executor), clock_(clock != nullptr ? clock : &system_clock_), backend_(std::move(backend)) {
  if (backend_ != nullptr) thread_ = std::thread([this] { Loop(); });
}

QueuedLimiter::~QueuedLimiter() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  if (thread_.joinable()) thread_.join();
  // waiting_ (never admitted) is destroyed with the object.
}

void QueuedLimiter::Acquire(absl::AnyInvocable<void(TokenReservation) &&> go, int64_t reserve_tokens) {
  {
    absl::MutexLock lock(&mu_);
    if (backend_ != nullptr) {
      // Behind waiters a limit holds back: it waits too (and keeps the counted ones a prefix).
      if (blocked_ && delayed_prefix_ == static_cast<int64_t>(waiting_.size())) {
        ++stats_.delayed;
        ++delayed_prefix_;
      }
      waiting_.push_back(Waiter{std::move(go), std::max<int64_t>(0, reserve_tokens)});
      new_waiters_ = true;
      return;
    }
    ++stats_.admitted;
    ++stats_.in_flight;
  }
  executor_->Schedule([go = std::move(go)]() mutable { std::move(go)(TokenReservation()); });
}

bool QueuedLimiter::AcquireNow() {
  if (backend_ != nullptr) return false;  // constant: no lock needed to read it
  absl::MutexLock lock(&mu_);
  ++stats_.admitted;
  ++stats_.in_flight;
  return true;
}

void QueuedLimiter::Release(int64_t tokens, TokenReservation reserved) {
  const absl::Time now = clock_->Now();
  const int64_t used = std::max<int64_t>(0, tokens);
  const int64_t held = std::max<int64_t>(0, reserved.tokens);
  absl::MutexLock lock(&mu_);
  if (backend_ == nullptr) {
    stats_.in_flight = std::max<int64_t>(0, stats_.in_flight - 1);
    return;
  }
  if (released_.empty() || MinuteOf(released_.back().at) != MinuteOf(now)) released_.emplace_back().at = now;
  Released& last = released_.back();
  if (stats_.in_flight > 0) {  // an extra Release frees nothing (but its tokens still count)
    --stats_.in_flight;
    ++last.count;
  }
  if (used != held) {
    Settlement& s = last.settlements[held > 0 ? reserved.minute : -1];
    s.excess += std::max<int64_t>(0, used - held);
    s.refund += std::max<int64_t>(0, held - used);
  }
}

ProviderLimiterStats QueuedLimiter::Stats() const {
  absl::MutexLock lock(&mu_);
  ProviderLimiterStats stats = stats_;
  stats.waiting = static_cast<int64_t>(waiting_.size());
  return stats;
}

void QueuedLimiter::Pump() {
  if (backend_ == nullptr) return;
  absl::MutexLock lock(&mu_);
  const uint64_t ticket = ++pumps_requested_;
  // Evaluated by Await with mu_ held.
  const auto done = [this, ticket]() ABSL_NO_THREAD_SAFETY_ANALYSIS { return pumps_done_ >= ticket || stopping_; };
  mu_.Await(absl::Condition(&done));
}

bool QueuedLimiter::HasWork() const {
  return stopping_ || !released_.empty() || pumps_requested_ > pumps_done_ || (new_waiters_ && !blocked_);
}

void QueuedLimiter::Loop() {
  while (true) {
    std::vector<Released> released;
    uint64_t ticket;
    std::vector<int64_t> reserves;  // of the waiters asked for, in order
    {
      absl::MutexLock lock(&mu_);
      const absl::Condition has_work(this, &QueuedLimiter::HasWork);
      if (blocked_ && retry_at_ != absl::InfiniteFuture()) {
        // A time-bound limit frees up at retry_at_ (by the injected clock; with a FakeClock the test
        // Pump()s rather than waiting for this).
        mu_.AwaitWithTimeout(has_work, retry_at_ - clock_->Now());
      } else {
        mu_.Await(has_work);
      }
      if (stopping_) break;
      released = std::exchange(released_, {});
      ticket = pumps_requested_;
      const size_t want = std::min<size_t>(waiting_.size(), kMaxBatch);
      reserves.reserve(want);
      for (size_t i = 0; i < want; ++i) reserves.push_back(waiting_[i].reserve);
      new_waiters_ = false;
    }

    PassReleases(std::move(released));
    const absl::Time now = clock_->Now();
    const int want = static_cast<int>(reserves.size());
    Admission admission;
    if (want > 0) {
      admission = backend_->Admit(reserves, now);
    } else {
      backend_->Flush(now);
    }

    std::vector<Task> admitted;
    const int64_t minute = admission.minute;
    {
      absl::MutexLock lock(&mu_);
      const int granted = std::clamp(admission.granted, 0, want);
      admitted.reserve(granted);
      for (int i = 0; i < granted; ++i) {
        admitted.push_back(
            [go = std::move(waiting_.front().go),
             reserved = TokenReservation{waiting_.front().reserve, minute}]() mutable { std::move(go)(reserved); });
        waiting_.pop_front();
      }
      stats_.admitted += granted;
      stats_.in_flight += granted;
      const int64_t left_behind = want - granted;
      delayed_prefix_ = std::max<int64_t>(0, delayed_prefix_ - granted);
      if (left_behind > delayed_prefix_) {
        stats_.delayed += left_behind - delayed_prefix_;
        delayed_prefix_ = left_behind;
      }
      blocked_ = left_behind > 0;
      retry_at_ = blocked_ ? admission.retry_at : absl::InfiniteFuture();
      // Everyone asked for went, but more wait (beyond kMaxBatch, or arrived meanwhile): go again.
      if (!blocked_ && !waiting_.empty()) new_waiters_ = true;
    }
    for (Task& go : admitted) executor_->Schedule(std::move(go));
    {
      absl::MutexLock lock(&mu_);
      pumps_done_ = ticket;
    }
  }

  std::vector<Released> released;
  {
    absl::MutexLock lock(&mu_);
    released = std::exchange(released_, {});
  }
  PassReleases(std::move(released));
  backend_->Flush(clock_->Now());
}

void QueuedLimiter::PassReleases(std::vector<Released> released) {
  for (const Released& r : released) backend_->Release(r.count, r.settlements, r.at);
}

}  // namespace noveltygrid::limits_internal
