// RedisBackend: the limits counted in Redis for the whole cluster (key layout and time source in
// provider_limiter.h), with this process's LocalBackend as the fallback while Redis is away.
//
// One round = one round trip: the releases gathered since the last round (one "release" script call:
// ZREM of the freed slots, INCRBY of the tokens) pipelined with one "admit" script call that claims up
// to `want` slots at once. Scripts run by EVALSHA; they are loaded (SCRIPT LOAD) on first use and again
// when a restarted server answers NOSCRIPT.
//
// Which slot a Release frees: requests are indistinguishable to the limiter, so the oldest slot held
// (the one closest to expiry). Slots admitted locally during an outage hold no Redis member.
//
// A failed round (connection, timeout, error reply) prints one warning per outage, answers from the
// local counters and leaves Redis alone for `cool_down`; releases that could not be sent are kept and
// sent with the first round after it. If the connection broke after the admit script was sent, the
// slots it may have claimed are unknown to us and expire after slot_ttl.
//
// Not thread-safe: owned and called by the limiter thread (so all Redis I/O happens there).
#ifndef NOVELTYGRID_WORKER_LIMITS_REDIS_BACKEND_H_
#define NOVELTYGRID_WORKER_LIMITS_REDIS_BACKEND_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/provider_config.h"
#include "common/storage/redis_url.h"
#include "worker/limits/admission_backend.h"
#include "worker/limits/local_backend.h"

namespace noveltygrid::storage_internal {
class RedisClient;
}  // namespace noveltygrid::storage_internal

namespace noveltygrid::limits_internal {

struct RedisBackendOptions {
  std::string provider;
  ProviderLimits limits;
  RedisEndpoint endpoint;
  absl::Duration slot_ttl = absl::Minutes(10);
  absl::Duration poll = absl::Milliseconds(100);
  absl::Duration cool_down = absl::Seconds(5);
  // True: the scripts read Redis's TIME; false: they use the `now` passed in (an injected clock).
  bool server_time = true;
};

class RedisBackend : public AdmissionBackend {
 public:
  // Connects lazily, on the first round (on the limiter thread).
  explicit RedisBackend(RedisBackendOptions options);
  ~RedisBackend() override;

  void Release(int count, const Settlements& settlements, absl::Time now) override;
  Admission Admit(const std::vector<int64_t>& reserves, absl::Time now) override;
  void Flush(absl::Time now) override;

 private:
  struct Reply {
    int granted = 0;
    int64_t wait_ms = -1;      // -1: nobody was held back
    bool slots_bound = false;  // held back by max_in_flight (only), not by a minute's limit
    int64_t minute = -1;       // the minute (Redis's) reservations were charged to
  };

  // Whether to talk to Redis now: not cooling down after a failure, and connected (connects if not).
  bool Usable(absl::Time now);
  void Failed(const absl::Status& status, absl::Time now);
  void Succeeded();
  // Sends the pending releases and, with waiters' `reserves`, the admit call; retries once after
  // NOSCRIPT.
  absl::StatusOr<Reply> Round(const std::vector<int64_t>& reserves, absl::Time now);
  absl::StatusOr<Reply> RoundOnce(const std::vector<int64_t>& reserves, absl::Time now);
  absl::Status LoadScripts();

  // Constant after construction.
  const RedisBackendOptions options_;
  const std::string key_prefix_;     // "ng:limit:PROVIDER:"
  const std::string inflight_key_;   // "ng:limit:PROVIDER:inflight"
  const std::string member_prefix_;  // "INSTANCE:", unique to this limiter

  LocalBackend local_;
  std::unique_ptr<storage_internal::RedisClient> client_;  // null until connected
  std::string admit_sha_;                                  // empty: not loaded (yet, or again)
  std::string release_sha_;
  bool down_ = false;
  absl::Time retry_redis_at_ = absl::InfinitePast();

  int64_t next_seq_ = 0;
  // One entry per admitted request not yet released, oldest first: its Redis member, or "" when it
  // holds none (admitted locally, or max_in_flight is unlimited).
  std::deque<std::string> held_;
  std::vector<std::string> pending_members_;  // freed, ZREM not yet sent
  Settlements pending_settlements_;           // settled reservations not yet sent
};

}  // namespace noveltygrid::limits_internal

#endif  // NOVELTYGRID_WORKER_LIMITS_REDIS_BACKEND_H_
