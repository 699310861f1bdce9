#include "sim_server/rate_limiter.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace noveltygrid {
namespace {

constexpr int64_t kNanosPerMinute = 60'000'000'000;

absl::int128 Units(int64_t whole) { return absl::int128(whole) * kNanosPerMinute; }

// Nanoseconds rounded up to the next `unit`.
int64_t CeilTo(int64_t nanos, int64_t unit) { return (nanos + unit - 1) / unit; }

}  // namespace

RateLimiter::RateLimiter(RateLimits limits, const Clock* clock)
    : limits_(limits), clock_(clock), updated_(clock->Now()) {
  requests_ = Bucket{limits.requests_per_minute, Units(limits.requests_per_minute)};
  tokens_ = Bucket{limits.tokens_per_minute, Units(limits.tokens_per_minute)};
}

void RateLimiter::Refill(Bucket& bucket, absl::Duration elapsed) const {
  if (bucket.limit <= 0 || elapsed <= absl::ZeroDuration()) return;
  // A minute refills any bucket, so longer gaps need not be multiplied out.
  const int64_t nanos = std::min(absl::ToInt64Nanoseconds(elapsed), kNanosPerMinute);
  bucket.level = std::min(bucket.level + absl::int128(nanos) * bucket.limit, Units(bucket.limit));
}

BucketState RateLimiter::State(const Bucket& bucket) {
  BucketState state;
  state.limit = bucket.limit;
  state.remaining = static_cast<int64_t>(bucket.level / kNanosPerMinute);
  const absl::int128 missing = Units(bucket.limit) - bucket.level;
  state.reset = absl::Nanoseconds(static_cast<int64_t>((missing + bucket.limit - 1) / bucket.limit));
  return state;
}

absl::Duration RateLimiter::Until(const Bucket& bucket, int64_t units) {
  const absl::int128 missing = Units(units) - bucket.level;
  if (missing <= 0) return absl::ZeroDuration();
  return absl::Nanoseconds(static_cast<int64_t>((missing + bucket.limit - 1) / bucket.limit));
}

RateDecision RateLimiter::Admit(int64_t tokens) {
  tokens = std::max<int64_t>(tokens, 0);
  RateDecision decision;
  absl::MutexLock lock(&mu_);
  decision.now = std::max(clock_->Now(), updated_);
  Refill(requests_, decision.now - updated_);
  Refill(tokens_, decision.now - updated_);
  updated_ = decision.now;

  const bool limit_requests = requests_.limit > 0;
  const bool limit_tokens = tokens_.limit > 0;
  if (limit_tokens && tokens > tokens_.limit) {
    decision.admitted = false;
    decision.limited_by = "tokens";
    decision.message =
        absl::StrCat("this request needs ", tokens, " tokens (prompt + max_tokens), more than the limit of ",
                     tokens_.limit, " tokens per minute; lower max_tokens or shorten the prompt");
    decision.retry_after = absl::Minutes(1);
  } else {
    const absl::Duration wait_requests = limit_requests ? Until(requests_, 1) : absl::ZeroDuration();
    const absl::Duration wait_tokens = limit_tokens ? Until(tokens_, tokens) : absl::ZeroDuration();
    decision.retry_after = std::max(wait_requests, wait_tokens);
    decision.admitted = decision.retry_after == absl::ZeroDuration();
    if (!decision.admitted) {
      const bool requests = wait_requests >= wait_tokens;
      decision.limited_by = requests ? "requests" : "tokens";
      decision.message =
          requests
              ? absl::StrCat("Rate limit reached: ", requests_.limit, " requests per minute (simulated)")
              : absl::StrCat("Rate limit reached: ", tokens_.limit,
                             " tokens per minute (simulated); this request needs ", tokens, " (prompt + max_tokens)");
      absl::StrAppend(&decision.message, "; retry after ", SecondsToRetry(decision.retry_after), " s");
    }
  }
  if (decision.admitted) {
    if (limit_requests) requests_.level -= Units(1);
    if (limit_tokens) tokens_.level -= Units(tokens);
  }
  if (limit_requests) decision.requests = State(requests_);
  if (limit_tokens) decision.tokens = State(tokens_);
  return decision;
}

std::string OpenAiDuration(absl::Duration d) {
  const int64_t ms = CeilTo(std::max<int64_t>(absl::ToInt64Nanoseconds(d), 0), 1'000'000);
  if (ms == 0) return "0s";
  if (ms < 1000) return absl::StrCat(ms, "ms");
  const int64_t hours = ms / 3'600'000;
  const int64_t minutes = ms / 60'000 % 60;
  const int64_t millis = ms % 60'000;
  std::string seconds = absl::StrCat(millis / 1000);
  if (millis % 1000 != 0) {
    std::string fraction = absl::StrFormat("%03d", millis % 1000);
    fraction.erase(fraction.find_last_not_of('0') + 1);
    absl::StrAppend(&seconds, ".", fraction);
  }
  if (hours > 0) return absl::StrCat(hours, "h", minutes, "m", seconds, "s");
  if (minutes > 0) return absl::StrCat(minutes, "m", seconds, "s");
  return absl::StrCat(seconds, "s");
}

std::string SecondsToRetry(absl::Duration d) {
  return absl::StrCat(CeilTo(std::max<int64_t>(absl::ToInt64Nanoseconds(d), 0), 1'000'000'000));
}

std::vector<std::pair<std::string, std::string>> OpenAiRateLimitHeaders(const RateDecision& decision) {
  std::vector<std::pair<std::string, std::string>> headers;
  for (const auto& [name, state] : {std::pair{"requests", &decision.requests}, std::pair{"tokens", &decision.tokens}}) {
    if (!state->has_value()) continue;
    headers.emplace_back(absl::StrCat("x-ratelimit-limit-", name), absl::StrCat((*state)->limit));
    headers.emplace_back(absl::StrCat("x-ratelimit-remaining-", name), absl::StrCat((*state)->remaining));
    headers.emplace_back(absl::StrCat("x-ratelimit-reset-", name), OpenAiDuration((*state)->reset));
  }
  return headers;
}

std::vector<std::pair<std::string, std::string>> AnthropicRateLimitHeaders(const RateDecision& decision) {
  std::vector<std::pair<std::string, std::string>> headers;
  for (const auto& [name, state] : {std::pair{"requests", &decision.requests}, std::pair{"tokens", &decision.tokens}}) {
    if (!state->has_value()) continue;
    const absl::Time full =
        absl::UnixEpoch() + absl::Ceil(decision.now + (*state)->reset - absl::UnixEpoch(), absl::Seconds(1));
    headers.emplace_back(absl::StrCat("anthropic-ratelimit-", name, "-limit"), absl::StrCat((*state)->limit));
    headers.emplace_back(absl::StrCat("anthropic-ratelimit-", name, "-remaining"), absl::StrCat((*state)->remaining));
    headers.emplace_back(absl::StrCat("anthropic-ratelimit-", name, "-reset"),
                         absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", full, absl::UTCTimeZone()));
  }
  return headers;
}

}  // namespace noveltygrid
