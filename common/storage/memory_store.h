// InMemoryStore: the Store used when no Redis is configured (a single-process run) and in unit tests.
// Keeps everything in maps under one mutex; nothing survives the object.
//
// Thread-safe: every method takes mu_, so each call is atomic with respect to the others.
#ifndef NOVELTYGRID_COMMON_STORAGE_MEMORY_STORE_H_
#define NOVELTYGRID_COMMON_STORAGE_MEMORY_STORE_H_

#include <map>
#include <string>
#include <variant>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "common/storage/store.h"

namespace noveltygrid {

class InMemoryStore : public Store {
 public:
  InMemoryStore() = default;
  InMemoryStore(const InMemoryStore&) = delete;
  InMemoryStore& operator=(const InMemoryStore&) = delete;

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
  std::string Describe() const override { return "memory"; }

 private:
  using Hash = std::map<std::string, std::string>;  // ordered: HashGetAll is sorted by field
  using List = std::vector<std::string>;
  using Value = std::variant<std::string, Hash, List>;

  // The key's value if it holds a T; nullptr if the key is missing; FailedPrecondition if it holds
  // another kind (Redis WRONGTYPE), naming `command`.
  template <typename T>
  absl::StatusOr<T*> Find(const char* command, const std::string& key) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  absl::Mutex mu_;
  absl::flat_hash_map<std::string, Value> data_ ABSL_GUARDED_BY(mu_);
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COMMON_STORAGE_MEMORY_STORE_H_
