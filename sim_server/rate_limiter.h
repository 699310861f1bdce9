// RateLimiter: serve-sim's simulated provider rate limits, requests per minute and tokens per minute,
// as token buckets the way providers meter them: each bucket holds at most its per-minute limit N and
// refills continuously at N/60 per second (exact integer arithmetic, no drift). A request is admitted
// when the requests bucket holds 1 and the tokens bucket holds the request's tokens; both are then
// taken. A refused request takes nothing. A limit of 0 is no limit (that bucket is not kept).
//
// What a request costs in tokens is the caller's estimate at admission (serve-sim charges the prompt's
// tokens plus max_tokens: SimApi::AdmissionTokens); nothing is given back afterwards.
//
// Time comes from the injected Clock, so tests move it by hand. Thread-safe (one mutex).
//
//   RateLimiter limiter({.requests_per_minute = 60}, &clock);
//   RateDecision d = limiter.Admit(120);
//   if (!d.admitted) ... 429, "retry-after: " + SecondsToRetry(d.retry_after)
//   headers = OpenAiRateLimitHeaders(d);   // x-ratelimit-remaining-requests: 59, reset "1s", ...
#ifndef NOVELTYGRID_SIM_SERVER_RATE_LIMITER_H_
#define NOVELTYGRID_SIM_SERVER_RATE_LIMITER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/numeric/int128.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"

namespace noveltygrid {

struct RateLimits {
  int64_t requests_per_minute = 0;  // 0: unlimited
  int64_t tokens_per_minute = 0;    // 0: unlimited
};

// One bucket as a reply reports it, after the decision.
struct BucketState {
  int64_t limit = 0;
  int64_t remaining = 0;                        // whole units left
  absl::Duration reset = absl::ZeroDuration();  // until the bucket is full again
};

struct RateDecision {
  bool admitted = true;
  std::optional<BucketState> requests;  // set when that limit is
  std::optional<BucketState> tokens;
  absl::Time now;
  // Refused: how long until the request would be admitted (if nothing else comes first), and why.
  absl::Duration retry_after = absl::ZeroDuration();
  std::string limited_by;  // "requests" or "tokens"
  std::string message;     // for the error body: which limit, and what to do
};

class RateLimiter {
 public:
  // `clock` must outlive the limiter. Buckets start full.
  RateLimiter(RateLimits limits, const Clock* clock);

  bool enabled() const { return limits_.requests_per_minute > 0 || limits_.tokens_per_minute > 0; }

  // Admits (and charges) or refuses one request costing `tokens`.
  RateDecision Admit(int64_t tokens);

 private:
  // Levels are in 1/(60 * 10^9) of a unit, so that a bucket of limit N gains exactly N per nanosecond.
  struct Bucket {
    int64_t limit = 0;
    absl::int128 level = 0;
  };

  void Refill(Bucket& bucket, absl::Duration elapsed) const;
  static BucketState State(const Bucket& bucket);
  // Time until `bucket` holds `units`, 0 if it does.
  static absl::Duration Until(const Bucket& bucket, int64_t units);

  // Constant after construction.
  const RateLimits limits_;
  const Clock* const clock_;

  absl::Mutex mu_;
  Bucket requests_ ABSL_GUARDED_BY(mu_);
  Bucket tokens_ ABSL_GUARDED_BY(mu_);
  absl::Time updated_ ABSL_GUARDED_BY(mu_);
};

// Go's time.Duration format OpenAI uses in x-ratelimit-reset-*: "0s", "120ms", "1s", "6m0s",
// "1m30.5s", "1h0m0s"; rounded up to the millisecond.
std::string OpenAiDuration(absl::Duration d);

// retry-after: whole seconds, rounded up.
std::string SecondsToRetry(absl::Duration d);

// The x-ratelimit-{limit,remaining,reset}-{requests,tokens} headers of the limits that are set.
std::vector<std::pair<std::string, std::string>> OpenAiRateLimitHeaders(const RateDecision& decision);

// anthropic-ratelimit-{requests,tokens}-{limit,remaining,reset} of the limits that are set; reset is
// the RFC 3339 time (UTC, rounded up to the second) at which the bucket is full again.
std::vector<std::pair<std::string, std::string>> AnthropicRateLimitHeaders(const RateDecision& decision);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_SIM_SERVER_RATE_LIMITER_H_
