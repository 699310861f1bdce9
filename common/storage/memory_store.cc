#include "common/storage/memory_store.h"

#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "common/storage/store_errors.h"

namespace noveltygrid {
namespace {

// Redis's LRANGE/LTRIM index rules: inclusive, negative from the end, clamped. The inclusive range of
// positions selected, or nullopt when it is empty.
std::optional<std::pair<size_t, size_t>> ClampRange(size_t size, int64_t start, int64_t stop) {
  const int64_t len = static_cast<int64_t>(size);
  if (start < 0) start += len;
  if (stop < 0) stop += len;
  if (start < 0) start = 0;
  if (start > stop || start >= len) return std::nullopt;
  if (stop >= len) stop = len - 1;
  return std::make_pair(static_cast<size_t>(start), static_cast<size_t>(stop));
}

}  // namespace

template <typename T>
absl::StatusOr<T*> InMemoryStore::Find(const char* command, const std::string& key) {
  auto it = data_.find(key);
  if (it == data_.end()) return nullptr;
  if (T* value = std::get_if<T>(&it->second)) return value;
  constexpr const char* kKinds[] = {"string", "hash", "list"};
  return storage_internal::WrongTypeError(command, key, Describe(),
                                          absl::StrCat("it holds a ", kKinds[it->second.index()]));
}

absl::StatusOr<std::optional<std::string>> InMemoryStore::Get(const std::string& key) {
  absl::MutexLock lock(&mu_);
  ASSIGN_OR_RETURN(const std::string* value, Find<std::string>("GET", key));
  if (value == nullptr) return std::nullopt;
  return *value;
}

absl::StatusOr<std::vector<std::optional<std::string>>> InMemoryStore::MultiGet(const std::vector<std::string>& keys) {
  absl::MutexLock lock(&mu_);
  std::vector<std::optional<std::string>> values;
  values.reserve(keys.size());
  for (const std::string& key : keys) {
    // Like MGET: a key of another kind reads as missing rather than failing the batch.
    auto it = data_.find(key);
    const std::string* value = it == data_.end() ? nullptr : std::get_if<std::string>(&it->second);
    values.push_back(value == nullptr ? std::nullopt : std::optional<std::string>(*value));
  }
  return values;
}

absl::Status InMemoryStore::Set(const std::string& key, const std::string& value) {
  absl::MutexLock lock(&mu_);
  data_[key] = value;
  return absl::OkStatus();
}

absl::StatusOr<bool> InMemoryStore::SetIfAbsent(const std::string& key, const std::string& value) {
  absl::MutexLock lock(&mu_);
  return data_.try_emplace(key, value).second;
}

absl::Status InMemoryStore::MultiSet(const std::vector<std::pair<std::string, std::string>>& entries) {
  absl::MutexLock lock(&mu_);
  for (const auto& [key, value] : entries) data_[key] = value;
  return absl::OkStatus();
}

absl::Status InMemoryStore::Delete(const std::string& key) {
  absl::MutexLock lock(&mu_);
  data_.erase(key);
  return absl::OkStatus();
}

absl::Status InMemoryStore::HashSet(const std::string& key, const std::string& field, const std::string& value) {
  absl::MutexLock lock(&mu_);
  ASSIGN_OR_RETURN(Hash * hash, Find<Hash>("HSET", key));
  if (hash == nullptr) hash = &std::get<Hash>(data_[key] = Hash());
  (*hash)[field] = value;
  return absl::OkStatus();
}

absl::Status InMemoryStore::DeleteMany(const std::vector<std::string>& keys) {
  for (const std::string& key : keys) RETURN_IF_ERROR(Delete(key));
  return absl::OkStatus();
}

absl::Status InMemoryStore::HashSetMany(const std::string& key,
                                        const std::vector<std::pair<std::string, std::string>>& entries) {
  for (const auto& [field, value] : entries) RETURN_IF_ERROR(HashSet(key, field, value));
  return absl::OkStatus();
}

absl::StatusOr<bool> InMemoryStore::HashSetIfAbsent(const std::string& key, const std::string& field,
                                                    const std::string& value) {
  absl::MutexLock lock(&mu_);
  ASSIGN_OR_RETURN(Hash * hash, Find<Hash>("HSETNX", key));
  if (hash == nullptr) hash = &std::get<Hash>(data_[key] = Hash());
  return hash->try_emplace(field, value).second;
}

absl::StatusOr<std::vector<bool>> InMemoryStore::HashSetIfAbsentMany(
    const std::string& key, const std::vector<std::pair<std::string, std::string>>& entries) {
  std::vector<bool> set;
  set.reserve(entries.size());
  for (const auto& [field, value] : entries) {
    ASSIGN_OR_RETURN(const bool added, HashSetIfAbsent(key, field, value));
    set.push_back(added);
  }
  return set;
}

absl::StatusOr<std::vector<std::pair<std::string, std::string>>> InMemoryStore::HashGetAll(const std::string& key) {
  absl::MutexLock lock(&mu_);
  ASSIGN_OR_RETURN(const Hash* hash, Find<Hash>("HGETALL", key));
  if (hash == nullptr) return std::vector<std::pair<std::string, std::string>>();
  return std::vector<std::pair<std::string, std::string>>(hash->begin(), hash->end());
}

absl::StatusOr<std::vector<std::optional<std::string>>> InMemoryStore::HashMultiGet(
    const std::string& key, const std::vector<std::string>& fields) {
  absl::MutexLock lock(&mu_);
  ASSIGN_OR_RETURN(const Hash* hash, Find<Hash>("HMGET", key));
  std::vector<std::optional<std::string>> values;
  values.reserve(fields.size());
  for (const std::string& field : fields) {
    auto it = hash == nullptr ? Hash::const_iterator() : hash->find(field);
    values.push_back(hash == nullptr || it == hash->end() ? std::nullopt : std::optional<std::string>(it->second));
  }
  return values;
}

absl::StatusOr<int64_t> InMemoryStore::HashLength(const std::string& key) {
  absl::MutexLock lock(&mu_);
  ASSIGN_OR_RETURN(const Hash* hash, Find<Hash>("HLEN", key));
  return hash == nullptr ? 0 : static_cast<int64_t>(hash->size());
}

absl::StatusOr<int64_t> InMemoryStore::ListAppendMany(const std::string& key, const std::vector<std::string>& values) {
  if (values.empty()) return absl::InvalidArgumentError("RPUSH needs at least one value");
  absl::MutexLock lock(&mu_);
  ASSIGN_OR_RETURN(List * list, Find<List>("RPUSH", key));
  if (list == nullptr) list = &std::get<List>(data_[key] = List());
  list->insert(list->end(), values.begin(), values.end());
  return static_cast<int64_t>(list->size());
}

absl::StatusOr<std::vector<std::string>> InMemoryStore::ListRange(const std::string& key, int64_t start, int64_t stop) {
  absl::MutexLock lock(&mu_);
  ASSIGN_OR_RETURN(const List* list, Find<List>("LRANGE", key));
  if (list == nullptr) return std::vector<std::string>();
  const auto range = ClampRange(list->size(), start, stop);
  if (!range) return std::vector<std::string>();
  return std::vector<std::string>(list->begin() + range->first, list->begin() + range->second + 1);
}

absl::Status InMemoryStore::ListTrim(const std::string& key, int64_t start, int64_t stop) {
  absl::MutexLock lock(&mu_);
  ASSIGN_OR_RETURN(List * list, Find<List>("LTRIM", key));
  if (list == nullptr) return absl::OkStatus();
  const auto range = ClampRange(list->size(), start, stop);
  if (!range) {
    data_.erase(key);  // like Redis, an emptied list disappears
    return absl::OkStatus();
  }
  list->erase(list->begin() + range->second + 1, list->end());
  list->erase(list->begin(), list->begin() + range->first);
  return absl::OkStatus();
}

absl::StatusOr<int64_t> InMemoryStore::ListLength(const std::string& key) {
  absl::MutexLock lock(&mu_);
  ASSIGN_OR_RETURN(const List* list, Find<List>("LLEN", key));
  return list == nullptr ? 0 : static_cast<int64_t>(list->size());
}

}  // namespace noveltygrid
