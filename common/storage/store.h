// Store: the small key-value interface that the shared embedding cache, loop checkpoints and the
// coordinator's state sit on. Two implementations stand behind it (as in leveldb's Env/memenv and Ray's
// gcs store_client): RedisStore for a real, shared Redis, and InMemoryStore for a single process and for
// tests. Open one with OpenStore(url) from store_factory.h.
//
//   ASSIGN_OR_RETURN(std::unique_ptr<Store> store, OpenStore("redis://:pw@10.0.0.5:6379/2"));
//   RETURN_IF_ERROR(store->Set("emb:3f2a", bytes));
//   ASSIGN_OR_RETURN(std::optional<std::string> cached, store->Get("emb:3f2a"));
//
// Semantics follow Redis, so both implementations behave the same (one conformance suite runs on both):
// keys and values are arbitrary bytes (NUL included); a key holds one kind of value -- string, hash or
// list -- and using it as another kind is FailedPrecondition (Redis WRONGTYPE); a hash or list that
// becomes empty disappears; list indices are inclusive and negative ones count from the end (-1 = last).
//
// Thread-safe: every method may be called from any thread concurrently. Errors: Unavailable when the
// backend cannot be reached (the message names host:port and the cause), Unauthenticated when it
// refuses the credentials, FailedPrecondition for a wrong-kind key, Internal (naming the command) for
// anything else. No message ever contains a password.
#ifndef NOVELTYGRID_COMMON_STORAGE_STORE_H_
#define NOVELTYGRID_COMMON_STORAGE_STORE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace noveltygrid {

class Store {
 public:
  virtual ~Store() = default;

  // The value of a string key; nullopt when the key does not exist.
  virtual absl::StatusOr<std::optional<std::string>> Get(const std::string& key) = 0;
  // Values in the order of `keys` (nullopt for missing keys and for keys that hold a hash or list), in
  // one round trip.
  virtual absl::StatusOr<std::vector<std::optional<std::string>>> MultiGet(const std::vector<std::string>& keys) = 0;

  // Sets a string key, replacing whatever the key held.
  virtual absl::Status Set(const std::string& key, const std::string& value) = 0;
  // Sets the key only if it does not exist (of any kind); true if this call set it.
  virtual absl::StatusOr<bool> SetIfAbsent(const std::string& key, const std::string& value) = 0;
  // Set() for every pair, in order (a later pair wins for a repeated key); pipelined. Not atomic: after
  // an error some pairs may have been written.
  virtual absl::Status MultiSet(const std::vector<std::pair<std::string, std::string>>& entries) = 0;
  // Removes a key of any kind; deleting a missing key is not an error.
  virtual absl::Status Delete(const std::string& key) = 0;
  // Removes every key of `keys` in one round trip (one DEL); none: nothing.
  virtual absl::Status DeleteMany(const std::vector<std::string>& keys) = 0;

  virtual absl::Status HashSet(const std::string& key, const std::string& field, const std::string& value) = 0;
  // Sets every (field, value) of `entries` in one hash, in one round trip (one HSET); none: nothing.
  virtual absl::Status HashSetMany(const std::string& key,
                                   const std::vector<std::pair<std::string, std::string>>& entries) = 0;
  // Sets the field only when the hash has none of that name (HSETNX); true when it was set. (On a
  // connection broken after the command went through, the retry may report false for the caller's own
  // value.)
  virtual absl::StatusOr<bool> HashSetIfAbsent(const std::string& key, const std::string& field,
                                               const std::string& value) = 0;
  // HashSetIfAbsent for every (field, value) of `entries`, in order, pipelined (one round trip per
  // pipeline batch): one bool per entry, true when this call set its field (a field given twice is set
  // by its first entry). Not atomic: after an error some fields may have been set, and a retry reports
  // false for those.
  virtual absl::StatusOr<std::vector<bool>> HashSetIfAbsentMany(
      const std::string& key, const std::vector<std::pair<std::string, std::string>>& entries) = 0;
  // All (field, value) pairs, sorted by field; empty for a missing key.
  virtual absl::StatusOr<std::vector<std::pair<std::string, std::string>>> HashGetAll(const std::string& key) = 0;
  virtual absl::StatusOr<int64_t> HashLength(const std::string& key) = 0;
  // Values of `fields` in the hash at `key`, in their order (nullopt for a missing field or key);
  // pipelined in batches.
  virtual absl::StatusOr<std::vector<std::optional<std::string>>> HashMultiGet(
      const std::string& key, const std::vector<std::string>& fields) = 0;

  // Appends `values`, in order, to the list at `key` (creating it) in one command (Redis RPUSH with
  // every value) and returns the new length. At least one value.
  virtual absl::StatusOr<int64_t> ListAppendMany(const std::string& key, const std::vector<std::string>& values) = 0;
  absl::StatusOr<int64_t> ListAppend(const std::string& key, const std::string& value) {
    return ListAppendMany(key, {value});
  }
  // Elements start..stop inclusive (Redis LRANGE); out-of-range indices are clamped.
  virtual absl::StatusOr<std::vector<std::string>> ListRange(const std::string& key, int64_t start, int64_t stop) = 0;
  // Keeps only elements start..stop inclusive (Redis LTRIM).
  virtual absl::Status ListTrim(const std::string& key, int64_t start, int64_t stop) = 0;
  virtual absl::StatusOr<int64_t> ListLength(const std::string& key) = 0;

  // Where the data lives, for logs: "memory" or "redis://host:port/db" (never a password).
  virtual std::string Describe() const = 0;
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COMMON_STORAGE_STORE_H_
