#include "worker/limits/learned_limits.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace noveltygrid {

namespace {

int64_t PositiveInteger(const std::string& text) {
  int64_t value = 0;
  return absl::SimpleAtoi(text, &value) && value > 0 ? value : 0;
}

int64_t Share(int64_t reported) {
  if (reported <= 0) return 0;
  return std::max<int64_t>(1, static_cast<int64_t>(std::floor(static_cast<double>(reported) * kLearnedShare)));
}

bool SameLimits(const ProviderLimits& a, const ProviderLimits& b) {
  return a.max_in_flight == b.max_in_flight && a.requests_per_minute == b.requests_per_minute &&
         a.tokens_per_minute == b.tokens_per_minute;
}

}  // namespace

ProviderLimits LimitsFromHeaders(const std::vector<std::pair<std::string, std::string>>& headers) {
  ProviderLimits out;
  int64_t anthropic_tokens = 0, anthropic_input = 0;
  for (const auto& [name, value] : headers) {
    if (name == "x-ratelimit-limit-requests" || name == "anthropic-ratelimit-requests-limit") {
      const int64_t requests = PositiveInteger(value);
      out.requests_per_minute = static_cast<int>(std::min<int64_t>(requests, std::numeric_limits<int>::max()));
    } else if (name == "x-ratelimit-limit-tokens") {
      out.tokens_per_minute = PositiveInteger(value);
    } else if (name == "anthropic-ratelimit-tokens-limit") {
      anthropic_tokens = PositiveInteger(value);
    } else if (name == "anthropic-ratelimit-input-tokens-limit") {
      anthropic_input = PositiveInteger(value);
    }
  }
  // Anthropic reports the most restrictive token limit as tokens-limit; input tokens where that is absent.
  if (out.tokens_per_minute == 0) out.tokens_per_minute = anthropic_tokens != 0 ? anthropic_tokens : anthropic_input;
  return out;
}

absl::Duration PauseFromHeaders(const std::vector<std::pair<std::string, std::string>>& headers, absl::Time now) {
  // What the headers say about one kind of quota (requests, tokens); names fixed, as every reply is read.
  struct Quota {
    const char* openai_remaining;
    const char* anthropic_remaining;
    const char* openai_limit;
    const char* anthropic_limit;
    const char* openai_reset;     // a duration
    const char* anthropic_reset;  // an RFC 3339 time
    int64_t unit;                 // what one more request needs of it
    bool exhausted = false;
    absl::Duration reset = absl::ZeroDuration();
    int64_t limit = 0;
  };
  Quota quotas[] = {
      {"x-ratelimit-remaining-requests", "anthropic-ratelimit-requests-remaining", "x-ratelimit-limit-requests",
       "anthropic-ratelimit-requests-limit", "x-ratelimit-reset-requests", "anthropic-ratelimit-requests-reset", 1},
      {"x-ratelimit-remaining-tokens", "anthropic-ratelimit-tokens-remaining", "x-ratelimit-limit-tokens",
       "anthropic-ratelimit-tokens-limit", "x-ratelimit-reset-tokens", "anthropic-ratelimit-tokens-reset",
       kHeldRequestTokens},
  };
  for (const auto& [name, value] : headers) {
    for (Quota& q : quotas) {
      if (name == q.openai_remaining || name == q.anthropic_remaining) {
        q.exhausted = value == "0";
      } else if (name == q.openai_limit || name == q.anthropic_limit) {
        q.limit = PositiveInteger(value);
      } else if (name == q.openai_reset) {
        absl::Duration d;
        if (absl::ParseDuration(value, &d) && d > absl::ZeroDuration()) q.reset = d;
      } else if (name == q.anthropic_reset) {
        absl::Time t;
        std::string error;
        if (absl::ParseTime(absl::RFC3339_full, value, &t, &error) && t > now) q.reset = t - now;
      }
    }
  }
  absl::Duration pause = absl::ZeroDuration();
  for (const Quota& q : quotas) {
    if (!q.exhausted) continue;
    const double share = q.limit > 0 ? std::min(1.0, static_cast<double>(q.unit) / static_cast<double>(q.limit)) : 1.0;
    pause = std::max(pause, q.reset * share);
  }
  return std::min(kMaxHold, pause);
}

absl::StatusOr<std::unique_ptr<LearningLimiter>> LearningLimiter::Create(const ProviderLimiterOptions& options) {
  std::unique_ptr<LearningLimiter> limiter(new LearningLimiter(options));
  ProviderLimiterOptions first = options;
  if (options.limits.unlimited()) first.redis_url.clear();  // nothing to share
  ASSIGN_OR_RETURN(std::unique_ptr<ProviderLimiter> inner, MakeProviderLimiter(first));
  limiter->generations_[0] = std::make_unique<Generation>(Generation{options.limits, {}, std::move(inner)});
  limiter->count_.store(1, std::memory_order_release);
  return limiter;
}

std::pair<ProviderLimiter*, int> LearningLimiter::Current() const {
  const int epoch = count_.load(std::memory_order_acquire) - 1;
  return {generations_[epoch]->limiter.get(), epoch};
}

LearningLimiter::~LearningLimiter() {
  {
    absl::MutexLock lock(&hold_mu_);
    stopping_ = true;
  }
  if (holder_.joinable()) holder_.join();
}

void LearningLimiter::Acquire(absl::AnyInvocable<void(TokenReservation) &&> go, int64_t reserve_tokens) {
  if (Holding() || held_pending_.load(std::memory_order_acquire)) {
    absl::MutexLock lock(&hold_mu_);
    // Behind the held ones too (until the holder has passed them on), so none is overtaken.
    if (Holding() || held_pending_.load(std::memory_order_relaxed)) {
      held_.push_back(Held{std::move(go), reserve_tokens});
      ++held_total_;
      held_pending_.store(true, std::memory_order_release);
      return;
    }
  }
  AcquireFromCurrent(std::move(go), reserve_tokens);
}

void LearningLimiter::HoldFor(absl::Duration pause) {
  if (pause <= absl::ZeroDuration()) return;
  const int64_t until = absl::ToUnixNanos(clock_->Now() + pause);
  int64_t current = hold_until_ns_.load(std::memory_order_acquire);
  while (current < until && !hold_until_ns_.compare_exchange_weak(current, until, std::memory_order_acq_rel)) {
  }
  absl::MutexLock lock(&hold_mu_);
  if (!holder_.joinable() && !stopping_) holder_ = std::thread([this] { ReleaseHeld(); });
}

void LearningLimiter::ReleaseHeld() {
  absl::MutexLock lock(&hold_mu_);
  // Evaluated with hold_mu_ held.
  const auto stop_or_held = [this]() ABSL_NO_THREAD_SAFETY_ANALYSIS { return stopping_ || !held_.empty(); };
  const auto stop = [this]() ABSL_NO_THREAD_SAFETY_ANALYSIS { return stopping_; };
  while (true) {
    hold_mu_.Await(absl::Condition(&stop_or_held));
    if (stopping_) return;
    const absl::Time until = absl::FromUnixNanos(hold_until_ns_.load(std::memory_order_acquire));
    if (clock_->Now() < until) {
      clock_->AwaitWithDeadline(hold_mu_, absl::Condition(&stop), until);
      continue;  // the hold may have been extended meanwhile
    }
    std::deque<Held> ready = std::exchange(held_, {});  // held_pending_ stays set: newcomers queue behind
    hold_mu_.Unlock();
    for (Held& h : ready) AcquireFromCurrent(std::move(h.go), h.reserve_tokens);
    hold_mu_.Lock();
    if (held_.empty()) held_pending_.store(false, std::memory_order_release);
  }
}

void LearningLimiter::AcquireFromCurrent(absl::AnyInvocable<void(TokenReservation) &&> go, int64_t reserve_tokens) {
  auto [limiter, epoch] = Current();
  limiter->Acquire(
      [go = std::move(go), epoch = epoch](TokenReservation reserved) mutable {
        reserved.epoch = epoch;
        std::move(go)(reserved);
      },
      reserve_tokens);
}

bool LearningLimiter::AcquireNow() {
  if (Holding() || held_pending_.load(std::memory_order_acquire)) return false;
  auto [limiter, epoch] = Current();
  // The caller releases with a default reservation (epoch 0): only generation 0 may grant at once.
  return epoch == 0 && limiter->AcquireNow();
}

void LearningLimiter::Release(int64_t tokens, TokenReservation reserved) {
  const int count = count_.load(std::memory_order_acquire);
  const int epoch = reserved.epoch >= 0 && reserved.epoch < count ? reserved.epoch : 0;
  ProviderLimiter* limiter = generations_[epoch]->limiter.get();
  reserved.epoch = 0;
  limiter->Release(tokens, reserved);
}

ProviderLimiterStats LearningLimiter::Stats() const {
  ProviderLimiterStats total;
  const int count = count_.load(std::memory_order_acquire);
  for (int i = 0; i < count; ++i) {
    const ProviderLimiterStats s = generations_[i]->limiter->Stats();
    total.admitted += s.admitted;
    total.waiting += s.waiting;
    total.in_flight += s.in_flight;
    total.delayed += s.delayed;
  }
  absl::MutexLock lock(&hold_mu_);
  total.waiting += static_cast<int64_t>(held_.size());
  total.delayed += held_total_;
  return total;
}

void LearningLimiter::Pump() { Current().first->Pump(); }

ProviderLimits LearningLimiter::limits() const {
  return generations_[count_.load(std::memory_order_acquire) - 1]->limits;
}

void LearningLimiter::Learn(const ProviderLimits& reported) {
  if (reported.requests_per_minute == 0 && reported.tokens_per_minute == 0) return;
  ProviderLimits limits = options_.limits;  // configured limits win
  if (limits.requests_per_minute == 0)
    limits.requests_per_minute = static_cast<int>(Share(reported.requests_per_minute));
  if (limits.tokens_per_minute == 0) limits.tokens_per_minute = Share(reported.tokens_per_minute);
  absl::MutexLock lock(&mu_);
  const int count = count_.load(std::memory_order_relaxed);  // only Learn raises it, under mu_
  const Generation& current = *generations_[count - 1];
  if (SameLimits(current.reported, reported) || SameLimits(current.limits, limits)) return;
  if (count >= kMaxGenerations) return;
  ProviderLimiterOptions next = options_;
  next.limits = limits;
  absl::StatusOr<std::unique_ptr<ProviderLimiter>> inner = MakeProviderLimiter(next);
  if (!inner.ok()) return;  // options_ were accepted once; only a changed limit could fail, and it cannot
  std::fprintf(stderr,
               "noveltygrid: provider %s reports %d requests and %lld tokens per minute; limiting to %d and %lld "
               "(%.0f%%, where the config sets none)\n",
               options_.provider.c_str(), reported.requests_per_minute,
               static_cast<long long>(reported.tokens_per_minute), limits.requests_per_minute,
               static_cast<long long>(limits.tokens_per_minute), kLearnedShare * 100);
  generations_[count] = std::make_unique<Generation>(Generation{limits, reported, *std::move(inner)});
  count_.store(count + 1, std::memory_order_release);
}

absl::StatusOr<std::unique_ptr<ProviderLimiter>> MakeProviderLimiter(const ProviderLimiterOptions& options,
                                                                     bool learn) {
  if (!learn) return MakeProviderLimiter(options);
  ASSIGN_OR_RETURN(std::unique_ptr<LearningLimiter> limiter, LearningLimiter::Create(options));
  return std::unique_ptr<ProviderLimiter>(std::move(limiter));
}

}  // namespace noveltygrid
