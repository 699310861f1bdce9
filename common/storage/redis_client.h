// RedisClient: runs commands on a Redis server for RedisStore -- a pool of RedisConnections, retries
// with backoff on connection errors, pipelining. Knows commands and replies, not Store semantics.
// Internal to noveltygrid_storage.
//
// Thread-safe: connections are handed out one per call under mu_; up to options.pool_size calls run at
// once and further calls wait for a free connection.
#ifndef NOVELTYGRID_COMMON_STORAGE_REDIS_CLIENT_H_
#define NOVELTYGRID_COMMON_STORAGE_REDIS_CLIENT_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/random/random.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "common/storage/redis_connection.h"
#include "common/storage/redis_store.h"
#include "common/storage/redis_url.h"

namespace noveltygrid::storage_internal {

class RedisClient {
 public:
  // One logical operation: its commands go out pipelined, on one connection.
  struct Call {
    std::string_view name;  // for messages: "GET", "MultiGet (MGET)"
    std::string_view key;   // for messages; empty when the call spans many keys
    std::vector<Command> commands;
    bool idempotent = true;  // running it twice is harmless, so retry even when the outcome is unknown
  };

  // Checks `options` and opens the first connection, without retrying (fail fast at start-up).
  static absl::StatusOr<std::unique_ptr<RedisClient>> Create(RedisEndpoint endpoint, RedisOptions options);
  RedisClient(const RedisClient&) = delete;
  RedisClient& operator=(const RedisClient&) = delete;

  // One reply per command, none of them an error reply (those become a Status via ReplyError).
  absl::StatusOr<std::vector<Reply>> Run(const Call& call);

  // "redis://host:port/db"
  const std::string& where() const { return where_; }
  const RedisOptions& options() const { return options_; }

 private:
  RedisClient(RedisEndpoint endpoint, RedisOptions options);

  // One try on one connection; *retryable says whether another try is safe and may help.
  absl::StatusOr<std::vector<Reply>> Attempt(const Call& call, bool* retryable);
  // A live connection: an idle one, or a new one when fewer than pool_size are open; blocks otherwise.
  absl::StatusOr<std::unique_ptr<RedisConnection>> Acquire();
  void Release(std::unique_ptr<RedisConnection> connection);
  bool CanAcquire() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Sleep before retry number `retry` (1-based): initial_backoff doubling up to max_backoff, times a
  // random factor in [0.5, 1] so that clients that failed together do not retry together.
  absl::Duration Backoff(int retry);

  // Constant after construction.
  const RedisEndpoint endpoint_;
  const RedisOptions options_;
  const std::string where_;

  absl::Mutex mu_;
  std::vector<std::unique_ptr<RedisConnection>> idle_ ABSL_GUARDED_BY(mu_);
  int open_ ABSL_GUARDED_BY(mu_) = 0;  // idle + in use + being opened; at most pool_size

  absl::Mutex rng_mu_;
  absl::BitGen rng_ ABSL_GUARDED_BY(rng_mu_);
};

}  // namespace noveltygrid::storage_internal

#endif  // NOVELTYGRID_COMMON_STORAGE_REDIS_CLIENT_H_
