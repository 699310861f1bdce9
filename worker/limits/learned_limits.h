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
// Thread-safe, as every ProviderLimiter.
#ifndef NOVELTYGRID_WORKER_LIMITS_LEARNED_LIMITS_H_
#define NOVELTYGRID_WORKER_LIMITS_LEARNED_LIMITS_H_

#include <array>
#include <atomic>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "worker/limits/provider_limiter.h"

namespace noveltygrid {

// The share of a reported limit a learned limit enforces: room for what other clients of the same key
// use, and for the requests already in flight when a minute starts.
inline constexpr double kLearnedShare = 0.9;

// The per-minute limits a provider's rate-limit headers report (names in lower case); 0 where a header
// is absent or not a positive integer.
ProviderLimits LimitsFromHeaders(const std::vector<std::pair<std::string, std::string>>& headers);

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

  // The limits in force now (configured, with learned ones where the config has 0).
  ProviderLimits limits() const;

 private:
  explicit LearningLimiter(ProviderLimiterOptions options) : options_(std::move(options)) {}
  struct Generation {
    ProviderLimits limits;
    ProviderLimits reported;  // what it was learned from (generation 0: nothing)
    std::unique_ptr<ProviderLimiter> limiter;
  };
  // The generation admitting requests now, and its epoch.
  std::pair<ProviderLimiter*, int> Current() const;

  const ProviderLimiterOptions options_;
  absl::Mutex mu_;  // serialises Learn
  // Slots 0..count_-1 are set, each once (under mu_, before count_ is raised past it) and never freed,
  // so every request -- acquired or released, on any thread -- reads them without a lock.
  std::array<std::unique_ptr<Generation>, kMaxGenerations> generations_;
  std::atomic<int> count_{0};
};

// A LearningLimiter when `learn` is set, else MakeProviderLimiter's.
absl::StatusOr<std::unique_ptr<ProviderLimiter>> MakeProviderLimiter(const ProviderLimiterOptions& options, bool learn);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_WORKER_LIMITS_LEARNED_LIMITS_H_
