// ProviderLimiter: a provider's limits on requests in flight, requests per minute and tokens per
// minute, shared by every loop of a worker -- and, with Redis, by every worker of the cluster.
//
//   ASSIGN_OR_RETURN(std::unique_ptr<ProviderLimiter> limiter,
//                    MakeProviderLimiter({.provider = "openai", .limits = config.limits,
//                                         .executor = &pool, .redis_url = redis_url}));
//   limiter->Acquire([&](TokenReservation reserved) {
//     SendRequest(/*on_done=*/[&](int64_t tokens) { limiter->Release(tokens, reserved); });
//   }, estimate);
//
// Acquire() queues a request and never blocks; `go` is Schedule()d on the executor once the request
// may be sent (FIFO among the waiters of one limiter). Its `reserve_tokens` (the caller's estimate of
// what the request will use, e.g. prompt plus max_tokens) are charged to the minute it is admitted in.
// After the request finished, the caller calls Release() exactly once with the tokens the provider
// reported and the reservation `go` was given: that frees the in-flight slot and settles the
// reservation -- tokens beyond it are charged to the current minute; tokens it held but were not used
// are refunded only while its minute lasts (a minute that is over keeps its charge). A limit of 0 means unlimited; with
// every limit 0, Acquire schedules `go` at once and nothing else happens (no thread, no Redis), and
// AcquireNow() grants the slot on the caller's thread (saving the executor task per request).
//
// Semantics (both backends):
//   max_in_flight        at most this many requests between Acquire's `go` and Release, cluster-wide
//   requests_per_minute  at most this many `go`s per fixed calendar minute (UTC, floor(unix s / 60)),
//                        cluster-wide
//   tokens_per_minute    a request is admitted only while the tokens charged in the current minute
//                        are below the limit, and charges its reservation at once: requests in
//                        flight count before their replies (without reservations a minute could
//                        overshoot by everything in flight); the minute overshoots by at most the
//                        last admitted request's reservation, or its usage beyond it
//
// Admission runs on one limiter-owned thread, in rounds: a round is triggered by Acquire, Release,
// Pump(), or the time a blocked limit frees up (the next minute; with Redis also a poll, since other
// workers' releases are not signalled). One round claims slots for as many waiters as it can at once.
//
// Redis backend (redis_url non-empty): the counters live in Redis, updated by Lua scripts (one
// round trip per round, releases batched into it -- their tokens count in the minute they reach
// Redis, normally that of the Release), so all workers agree:
//   ng:limit:PROVIDER:rpm:MINUTE   requests admitted in that minute (string counter, EXPIRE 120 s)
//   ng:limit:PROVIDER:tpm:MINUTE   tokens charged in that minute (string counter, EXPIRE 120 s)
//   ng:limit:PROVIDER:inflight     sorted set: member "INSTANCE:SEQ" per admitted request, score =
//                                  its lease expiry in ms; expired members are dropped first, so the
//                                  slots of a worker that died holding them come back after slot_ttl
// Time: with `clock` null the scripts read the Redis server's clock (TIME), so workers with skewed
// clocks agree on minute boundaries and slot expiry; with a `clock` injected (tests) they use its
// time instead. Redis calls happen on the limiter thread only, never on the caller or the executor.
// When Redis is unreachable or fails, the limiter prints one warning (the URL without password),
// enforces the limits in this process alone (each worker then allows the full limits on its own) and
// tries Redis again after `redis_cool_down`.
//
// Thread-safe. The destructor drops waiters that never ran (their `go` is destroyed, not run) and does
// not free Redis slots still held by unreleased requests: those expire after slot_ttl.
#ifndef NOVELTYGRID_WORKER_LIMITS_PROVIDER_LIMITER_H_
#define NOVELTYGRID_WORKER_LIMITS_PROVIDER_LIMITER_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/functional/any_invocable.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "common/executor.h"
#include "common/provider_config.h"

namespace noveltygrid {

struct ProviderLimiterStats {
  int64_t admitted = 0;
  int64_t waiting = 0;    // queued now
  int64_t in_flight = 0;  // admitted and not released (this process)
  int64_t delayed = 0;    // requests that had to wait for a limit
};

// The tokens an admitted request reserved, and the calendar minute that was charged for them (by the
// backend's clock: Redis's TIME in a cluster). {0, -1}: nothing reserved.
struct TokenReservation {
  int64_t tokens = 0;
  int64_t minute = -1;
  int epoch = 0;  // which limits admitted it (LearningLimiter); 0 for every other limiter
};

class ProviderLimiter {
 public:
  virtual ~ProviderLimiter() = default;
  // `go` receives what was reserved for it, to hand back to Release.
  virtual void Acquire(absl::AnyInvocable<void(TokenReservation) &&> go, int64_t reserve_tokens) = 0;
  // Without a reservation (a request whose size does not matter, or tests).
  void Acquire(absl::AnyInvocable<void() &&> go) {
    Acquire([go = std::move(go)](TokenReservation) mutable { std::move(go)(); }, 0);
  }
  // Acquire without the executor hop, for a limiter with nothing to enforce: true when the caller
  // holds a slot now (and must Release it as after Acquire's `go`); false when it must Acquire
  // instead. Never blocks and runs nothing. The default always says false.
  virtual bool AcquireNow() { return false; }
  virtual void Release(int64_t tokens, TokenReservation reserved = {}) = 0;
  virtual ProviderLimiterStats Stats() const = 0;

  // Runs an admission round at clock->Now() on the limiter thread and returns when it is done: every
  // `go` it admitted has been Schedule()d. The limiter does this by itself when a limit frees up; a
  // test driving a FakeClock calls it after Advance() (with Redis it waits for one round trip).
  virtual void Pump() = 0;

  // The limits the provider reports for itself (its rate-limit headers: requests and tokens per minute,
  // 0 = not reported). A limiter that learns (learned_limits.h) enforces a share of them where the
  // config set none; the default ignores them.
  virtual void Learn(const ProviderLimits& /*reported*/) {}
  // The provider said it has nothing left for now (a rate-limit header's remaining count is 0): a
  // limiter that learns admits nothing new for `pause`; the default ignores it.
  virtual void HoldFor(absl::Duration /*pause*/) {}
};

struct ProviderLimiterOptions {
  std::string provider;  // names the Redis keys and log lines; no secrets
  ProviderLimits limits;
  Executor* executor = nullptr;                 // required: where `go` runs
  Clock* clock = nullptr;                       // optional; the system clock (and Redis TIME) when null
  std::string redis_url;                        // empty or "memory": local limits only
  absl::Duration slot_ttl = absl::Minutes(10);  // Redis in-flight lease lifetime
  // Redis only: how often waiters blocked by max_in_flight ask again (other workers' releases are not
  // signalled; one small script per poll, so polling often costs Redis little and keeps a shared
  // limit busy), and how long to enforce locally after a Redis failure before trying it again.
  absl::Duration redis_poll = absl::Milliseconds(10);
  absl::Duration redis_cool_down = absl::Seconds(5);
};

// InvalidArgument for a missing executor, negative limits or a malformed redis_url (quoted with the
// password masked). An unreachable Redis is not an error: the limiter starts enforcing locally.
absl::StatusOr<std::unique_ptr<ProviderLimiter>> MakeProviderLimiter(const ProviderLimiterOptions& options);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_WORKER_LIMITS_PROVIDER_LIMITER_H_
