// Limits learned from the provider: every provider says in its response headers how much it allows --
// OpenAI (and OpenAI-compatible servers, serve-sim) x-ratelimit-limit-requests / -tokens, Anthropic
// anthropic-ratelimit-requests-limit / -tokens-limit -- so a sweep with no limits configured can slow
// down before the provider answers 429.
//
// LearningLimiter wraps the configured limits (generation 0, which may be unlimited and then costs
// nothing). When a reply reports a limit the config left at 0, it starts a new generation enforcing
// kLearnedShare of it (requests_per_minute, tokens_per_minute), through Redis when the worker has it, so
// every worker of the cluster counts against the same minute; configured limits always win. Requests
// are admitted by the current generation and released to the one that admitted them
// (TokenReservation::epoch). A generation is started only when the reported values change, at most
// kMaxGenerations times (a provider whose headers keep changing keeps the last limits learned).
//
// The remaining/reset headers say when the provider has nothing left right now -- other clients of
// the same key used it, or a limit is lower than it says. Then (PauseFromHeaders) the limiter holds
// every new request back for the time the provider needs to give one more (HoldFor); held requests
// are passed on to the limits in force, in order and before any later request, by a thread the first
// hold starts. Requests already waiting in a learned limit's queue when a hold starts are not held
// back (that limit paces them). Each worker holds on its own replies' headers, so every worker that
// hears "nothing left" pauses.
//
// Thread-safe, as every ProviderLimiter.
#ifndef NOVELTYGRID_WORKER_LIMITS_LEARNED_LIMITS_H_
#define NOVELTYGRID_WORKER_LIMITS_LEARNED_LIMITS_H_

#include <array>
#include <atomic>
#include <deque>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "worker/limits/provider_limiter.h"

namespace noveltygrid {

// The share of a reported limit a learned limit enforces: room for what other clients of the same key
// use, and for the requests already in flight when a minute starts.
inline constexpr double kLearnedShare = 0.9;

// The per-minute limits a provider's rate-limit headers report (names in lower case); 0 where a header
// is absent or not a positive integer.
ProviderLimits LimitsFromHeaders(const std::vector<std::pair<std::string, std::string>>& headers);

// How long to send nothing, from the remaining/reset headers: zero unless a remaining count is 0. Then
// until one more request (or kHeldRequestTokens tokens) is back, taking the reset time (OpenAI
// x-ratelimit-reset-*: "1s", "6m0s", "120ms"; Anthropic anthropic-ratelimit-*-reset: an RFC 3339 time,
// read against `now`) as the time to refill the whole limit evenly; the whole reset time when the limit
// is not reported. At most kMaxHold.
inline constexpr int64_t kHeldRequestTokens = 1000;
inline constexpr absl::Duration kMaxHold = absl::Seconds(60);
absl::Duration PauseFromHeaders(const std::vector<std::pair<std::string, std::string>>& headers, absl::Time now);

class LearningLimiter : public ProviderLimiter {
 public:
  static constexpr int kMaxGenerations = 8;

  // `options` as for MakeProviderLimiter: its limits are the configured ones; its redis_url is used by
  // learned generations (and by generation 0 only when it limits something).
  static absl::StatusOr<std::unique_ptr<LearningLimiter>> Create(const ProviderLimiterOptions& options);

  using ProviderLimiter::Acquire;
  void Acquire(absl::AnyInvocable<void(TokenReservation) &&> go, int64_t reserve_tokens) override;
  bool AcquireNow() override;
  void Release(int64_t tokens, TokenReservation reserved) override;
  ProviderLimiterStats Stats() const override;
  void Pump() override;
  void Learn(const ProviderLimits& reported) override;
  void HoldFor(absl::Duration pause) override;
  ~LearningLimiter() override;

  // The limits in force now (configured, with learned ones where the config has 0).
  ProviderLimits limits() const;

 private:
  explicit LearningLimiter(ProviderLimiterOptions options)
      : options_(std::move(options)), clock_(options_.clock != nullptr ? options_.clock : SystemClockInstance()) {}
  struct Generation {
    ProviderLimits limits;
    ProviderLimits reported;  // what it was learned from (generation 0: nothing)
    std::unique_ptr<ProviderLimiter> limiter;
  };
  // The generation admitting requests now, and its epoch.
  std::pair<ProviderLimiter*, int> Current() const;
  // Hands a request to the current generation.
  void AcquireFromCurrent(absl::AnyInvocable<void(TokenReservation) &&> go, int64_t reserve_tokens);
  bool Holding() const { return clock_->Now() < absl::FromUnixNanos(hold_until_ns_.load(std::memory_order_acquire)); }
  // The holder thread: admits the held requests once the hold is over.
  void ReleaseHeld();

  const ProviderLimiterOptions options_;
  absl::Mutex mu_;  // serialises Learn
  // Slots 0..count_-1 are set, each once (under mu_, before count_ is raised past it) and never freed,
  // so every request -- acquired or released, on any thread -- reads them without a lock.
  std::array<std::unique_ptr<Generation>, kMaxGenerations> generations_;
  std::atomic<int> count_{0};

  const Clock* const clock_;
  std::atomic<int64_t> hold_until_ns_{0};  // unix ns; nothing is held before it
  struct Held {
    absl::AnyInvocable<void(TokenReservation) &&> go;
    int64_t reserve_tokens = 0;
  };
  mutable absl::Mutex hold_mu_;
  std::deque<Held> held_ ABSL_GUARDED_BY(hold_mu_);
  int64_t held_total_ ABSL_GUARDED_BY(hold_mu_) = 0;  // requests ever held (Stats().delayed)
  bool stopping_ ABSL_GUARDED_BY(hold_mu_) = false;
  // Requests are held, or being passed on by the holder: set with hold_mu_ held, read without it.
  std::atomic<bool> held_pending_{false};
  std::thread holder_;  // started by the first hold; joined by the destructor
};

// A LearningLimiter when `learn` is set, else MakeProviderLimiter's.
absl::StatusOr<std::unique_ptr<ProviderLimiter>> MakeProviderLimiter(const ProviderLimiterOptions& options, bool learn);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_WORKER_LIMITS_LEARNED_LIMITS_H_
