// RedisStore: the Store on a Redis server, shared by every process of a run (embedding cache, loop
// checkpoints, coordinator state). Built on hiredis's synchronous API behind RedisClient: a small pool
// of connections, so several threads issue commands at once, each on its own connection.
//
//   ASSIGN_OR_RETURN(std::unique_ptr<RedisStore> store,
//                    RedisStore::Connect("redis://:pw@127.0.0.1:6379/1", RedisOptions{}));
//
// Failures and retries: a command whose connection broke (server restart, idle timeout, reset) is
// retried on a fresh connection -- re-running AUTH and SELECT -- up to max_retries times, with
// exponential backoff and jitter, so a Redis restart mid-run is survived. An idle pooled connection the
// server has closed is noticed before use and replaced, so after a restart even non-idempotent commands
// go through. Only when a connection breaks after a non-idempotent command (SetIfAbsent, ListAppend,
// ListTrim) was sent is it not retried: it returns Unavailable saying the command may or may not have
// been applied. MultiGet, MultiSet, HashMultiGet and HashSetIfAbsentMany are pipelined (pipeline_batch
// commands per round trip; MultiGet uses MGETs of up to pipeline_batch keys each).
//
// Thread-safe. The object must outlive all calls on it.
#ifndef NOVELTYGRID_COMMON_STORAGE_REDIS_STORE_H_
#define NOVELTYGRID_COMMON_STORAGE_REDIS_STORE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/storage/store.h"

namespace noveltygrid {

namespace storage_internal {
class RedisClient;
}  // namespace storage_internal

struct RedisOptions {
  absl::Duration connect_timeout = absl::Seconds(2);
  absl::Duration command_timeout = absl::Seconds(5);  // per read/write on the socket
  int max_retries = 3;                                // after the first attempt, on connection errors and LOADING only
  absl::Duration initial_backoff = absl::Milliseconds(50);
  absl::Duration max_backoff = absl::Seconds(2);
  int pool_size = 4;          // connections, i.e. commands in flight at once
  int pipeline_batch = 1000;  // commands per round trip, and keys per MGET
};

// Redis attempts of this process that failed so far -- connection errors, timeouts and error replies,
// each retry counted -- over every RedisStore and provider-limit client (metrics).
int64_t RedisErrorCount();

class RedisStore : public Store {
 public:
  // Parses `url` (redis_url.h; InvalidArgument with the password masked) and opens a first connection
  // without retrying: Unavailable at once if the server cannot be reached, Unauthenticated if it
  // refuses the password.
  static absl::StatusOr<std::unique_ptr<RedisStore>> Connect(const std::string& url, RedisOptions options = {});
  ~RedisStore() override;
  RedisStore(const RedisStore&) = delete;
  RedisStore& operator=(const RedisStore&) = delete;

  absl::StatusOr<std::optional<std::string>> Get(const std::string& key) override;
  absl::StatusOr<std::vector<std::optional<std::string>>> MultiGet(const std::vector<std::string>& keys) override;
  absl::Status Set(const std::string& key, const std::string& value) override;
  absl::StatusOr<bool> SetIfAbsent(const std::string& key, const std::string& value) override;
  absl::Status MultiSet(const std::vector<std::pair<std::string, std::string>>& entries) override;
  absl::Status Delete(const std::string& key) override;
  absl::Status HashSet(const std::string& key, const std::string& field, const std::string& value) override;
  absl::Status DeleteMany(const std::vector<std::string>& keys) override;
  absl::Status HashSetMany(const std::string& key,
                           const std::vector<std::pair<std::string, std::string>>& entries) override;
  absl::StatusOr<bool> HashSetIfAbsent(const std::string& key, const std::string& field,
                                       const std::string& value) override;
  absl::StatusOr<std::vector<bool>> HashSetIfAbsentMany(
      const std::string& key, const std::vector<std::pair<std::string, std::string>>& entries) override;
  absl::StatusOr<std::vector<std::pair<std::string, std::string>>> HashGetAll(const std::string& key) override;
  absl::StatusOr<int64_t> HashLength(const std::string& key) override;
  absl::StatusOr<std::vector<std::optional<std::string>>> HashMultiGet(const std::string& key,
                                                                       const std::vector<std::string>& fields) override;
  absl::StatusOr<int64_t> ListAppendMany(const std::string& key, const std::vector<std::string>& values) override;
  absl::StatusOr<std::vector<std::string>> ListRange(const std::string& key, int64_t start, int64_t stop) override;
  absl::Status ListTrim(const std::string& key, int64_t start, int64_t stop) override;
  absl::StatusOr<int64_t> ListLength(const std::string& key) override;
  std::string Describe() const override;

 private:
  explicit RedisStore(std::unique_ptr<storage_internal::RedisClient> client);
  // One reply value per item: `head` followed by batches of `items` (MGET keys..., HMGET key fields...).
  absl::StatusOr<std::vector<std::optional<std::string>>> BatchedValues(const char* name,
                                                                        const std::vector<std::string_view>& head,
                                                                        const std::vector<std::string>& items);

  const std::unique_ptr<storage_internal::RedisClient> client_;
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COMMON_STORAGE_REDIS_STORE_H_
