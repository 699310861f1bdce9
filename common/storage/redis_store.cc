#include "common/storage/redis_store.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "common/storage/redis_client.h"
#include "common/storage/redis_url.h"

namespace noveltygrid {
namespace {

using storage_internal::Command;
using storage_internal::RedisClient;
using storage_internal::Reply;

absl::Status UnexpectedReply(std::string_view command, const redisReply& reply, const std::string& where) {
  return absl::InternalError(absl::StrCat(std::string(command), " on ", where,
                                          " returned an unexpected reply (hiredis type ", reply.type,
                                          "); is this a Redis server?"));
}

// Runs one command and returns its one reply.
absl::StatusOr<Reply> RunOne(RedisClient& client, std::string_view name, std::string_view key, Command command,
                             bool idempotent = true) {
  ASSIGN_OR_RETURN(std::vector<Reply> replies,
                   client.Run({.name = name, .key = key, .commands = {std::move(command)}, .idempotent = idempotent}));
  return std::move(replies.front());
}

// `commands` as one call on one connection: RedisClient pipelines them, pipeline_batch per round trip.
// Retried whole on a broken connection, so only for commands that a second run leaves as the first
// left them (SET; HSETNX, whose second run reports false for what the first set).
absl::StatusOr<std::vector<Reply>> RunPipelined(RedisClient& client, std::string_view name, std::string_view key,
                                                std::vector<Command> commands) {
  return client.Run({.name = name, .key = key, .commands = std::move(commands), .idempotent = true});
}

absl::StatusOr<std::optional<std::string>> OptionalString(std::string_view command, const redisReply& reply,
                                                          const std::string& where) {
  if (reply.type == REDIS_REPLY_NIL) return std::nullopt;
  if (reply.type != REDIS_REPLY_STRING) return UnexpectedReply(command, reply, where);
  return std::string(reply.str, reply.len);
}

absl::StatusOr<int64_t> Integer(std::string_view command, const redisReply& reply, const std::string& where) {
  if (reply.type != REDIS_REPLY_INTEGER) return UnexpectedReply(command, reply, where);
  return static_cast<int64_t>(reply.integer);
}

absl::Status Ok(std::string_view command, const redisReply& reply, const std::string& where) {
  if (reply.type != REDIS_REPLY_STATUS) return UnexpectedReply(command, reply, where);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::string>> Strings(std::string_view command, const redisReply& reply,
                                                 const std::string& where) {
  if (reply.type != REDIS_REPLY_ARRAY) return UnexpectedReply(command, reply, where);
  std::vector<std::string> strings;
  strings.reserve(reply.elements);
  for (size_t i = 0; i < reply.elements; ++i) {
    const redisReply& element = *reply.element[i];
    if (element.type != REDIS_REPLY_STRING) return UnexpectedReply(command, element, where);
    strings.emplace_back(element.str, element.len);
  }
  return strings;
}

}  // namespace

RedisStore::RedisStore(std::unique_ptr<RedisClient> client) : client_(std::move(client)) {}

RedisStore::~RedisStore() = default;

absl::StatusOr<std::unique_ptr<RedisStore>> RedisStore::Connect(const std::string& url, RedisOptions options) {
  ASSIGN_OR_RETURN(RedisEndpoint endpoint, ParseRedisUrl(url));
  ASSIGN_OR_RETURN(std::unique_ptr<RedisClient> client, RedisClient::Create(std::move(endpoint), options));
  return std::unique_ptr<RedisStore>(new RedisStore(std::move(client)));
}

std::string RedisStore::Describe() const { return client_->where(); }

absl::StatusOr<std::optional<std::string>> RedisStore::Get(const std::string& key) {
  ASSIGN_OR_RETURN(Reply reply, RunOne(*client_, "GET", key, {"GET", key}));
  return OptionalString("GET", *reply, client_->where());
}

absl::StatusOr<std::vector<std::optional<std::string>>> RedisStore::BatchedValues(
    const char* name, const Command& head, const std::vector<std::string>& items) {
  std::vector<std::optional<std::string>> values;
  if (items.empty()) return values;
  const size_t per_command = static_cast<size_t>(client_->options().pipeline_batch);
  RedisClient::Call call{.name = name, .key = {}, .commands = {}, .idempotent = true};
  for (size_t begin = 0; begin < items.size(); begin += per_command) {
    Command& command = call.commands.emplace_back(head);
    const size_t end = std::min(items.size(), begin + per_command);
    for (size_t i = begin; i < end; ++i) command.push_back(items[i]);
  }
  ASSIGN_OR_RETURN(std::vector<Reply> replies, client_->Run(call));
  values.reserve(items.size());
  for (const Reply& reply : replies) {
    if (reply->type != REDIS_REPLY_ARRAY) return UnexpectedReply(name, *reply, client_->where());
    for (size_t i = 0; i < reply->elements; ++i) {
      ASSIGN_OR_RETURN(std::optional<std::string> value, OptionalString(name, *reply->element[i], client_->where()));
      values.push_back(std::move(value));
    }
  }
  if (values.size() != items.size()) {
    return absl::InternalError(absl::StrCat(name, " on ", client_->where(), " returned ", values.size(), " values for ",
                                            items.size(), " keys"));
  }
  return values;
}

absl::StatusOr<std::vector<std::optional<std::string>>> RedisStore::MultiGet(const std::vector<std::string>& keys) {
  return BatchedValues("MultiGet (MGET)", Command{"MGET"}, keys);
}

absl::StatusOr<std::vector<std::optional<std::string>>> RedisStore::HashMultiGet(
    const std::string& key, const std::vector<std::string>& fields) {
  return BatchedValues("HashMultiGet (HMGET)", Command{"HMGET", key}, fields);
}

absl::Status RedisStore::Set(const std::string& key, const std::string& value) {
  ASSIGN_OR_RETURN(Reply reply, RunOne(*client_, "SET", key, {"SET", key, value}));
  return Ok("SET", *reply, client_->where());
}

absl::StatusOr<bool> RedisStore::SetIfAbsent(const std::string& key, const std::string& value) {
  ASSIGN_OR_RETURN(Reply reply, RunOne(*client_, "SET NX", key, {"SET", key, value, "NX"},
                                       /*idempotent=*/false));
  if (reply->type == REDIS_REPLY_NIL) return false;
  RETURN_IF_ERROR(Ok("SET NX", *reply, client_->where()));
  return true;
}

absl::Status RedisStore::MultiSet(const std::vector<std::pair<std::string, std::string>>& entries) {
  if (entries.empty()) return absl::OkStatus();
  constexpr const char* kName = "MultiSet (SET)";
  std::vector<Command> commands;
  commands.reserve(entries.size());
  for (const auto& [key, value] : entries) commands.push_back({"SET", key, value});
  ASSIGN_OR_RETURN(std::vector<Reply> replies, RunPipelined(*client_, kName, {}, std::move(commands)));
  for (const Reply& reply : replies) RETURN_IF_ERROR(Ok(kName, *reply, client_->where()));
  return absl::OkStatus();
}

absl::Status RedisStore::Delete(const std::string& key) {
  ASSIGN_OR_RETURN(Reply reply, RunOne(*client_, "DEL", key, {"DEL", key}));
  return Integer("DEL", *reply, client_->where()).status();
}

absl::Status RedisStore::HashSet(const std::string& key, const std::string& field, const std::string& value) {
  ASSIGN_OR_RETURN(Reply reply, RunOne(*client_, "HSET", key, {"HSET", key, field, value}));
  return Integer("HSET", *reply, client_->where()).status();
}

absl::Status RedisStore::DeleteMany(const std::vector<std::string>& keys) {
  if (keys.empty()) return absl::OkStatus();
  Command command = {"DEL"};
  command.reserve(1 + keys.size());
  for (const std::string& key : keys) command.push_back(key);
  ASSIGN_OR_RETURN(Reply reply, RunOne(*client_, "DEL", keys.front(), std::move(command)));
  return Integer("DEL", *reply, client_->where()).status();
}

absl::Status RedisStore::HashSetMany(const std::string& key,
                                     const std::vector<std::pair<std::string, std::string>>& entries) {
  if (entries.empty()) return absl::OkStatus();
  Command command = {"HSET", key};
  command.reserve(2 + 2 * entries.size());
  for (const auto& [field, value] : entries) {
    command.push_back(field);
    command.push_back(value);
  }
  ASSIGN_OR_RETURN(Reply reply, RunOne(*client_, "HSET", key, std::move(command)));
  return Integer("HSET", *reply, client_->where()).status();
}

absl::StatusOr<bool> RedisStore::HashSetIfAbsent(const std::string& key, const std::string& field,
                                                 const std::string& value) {
  ASSIGN_OR_RETURN(Reply reply, RunOne(*client_, "HSETNX", key, {"HSETNX", key, field, value}));
  ASSIGN_OR_RETURN(int64_t set, Integer("HSETNX", *reply, client_->where()));
  return set == 1;
}

absl::StatusOr<std::vector<bool>> RedisStore::HashSetIfAbsentMany(
    const std::string& key, const std::vector<std::pair<std::string, std::string>>& entries) {
  std::vector<bool> set;
  if (entries.empty()) return set;
  constexpr const char* kName = "HashSetIfAbsentMany (HSETNX)";
  std::vector<Command> commands;
  commands.reserve(entries.size());
  for (const auto& [field, value] : entries) commands.push_back({"HSETNX", key, field, value});
  ASSIGN_OR_RETURN(std::vector<Reply> replies, RunPipelined(*client_, kName, key, std::move(commands)));
  set.reserve(replies.size());
  for (const Reply& reply : replies) {
    ASSIGN_OR_RETURN(const int64_t added, Integer(kName, *reply, client_->where()));
    set.push_back(added == 1);
  }
  return set;
}

absl::StatusOr<std::vector<std::pair<std::string, std::string>>> RedisStore::HashGetAll(const std::string& key) {
  // HGETALL in one reply: the hashes kept here are small (checkpoint and state records); HSCAN would
  // only matter for hashes too large to hold in memory anyway.
  ASSIGN_OR_RETURN(Reply reply, RunOne(*client_, "HGETALL", key, {"HGETALL", key}));
  ASSIGN_OR_RETURN(std::vector<std::string> flat, Strings("HGETALL", *reply, client_->where()));
  if (flat.size() % 2 != 0) return UnexpectedReply("HGETALL", *reply, client_->where());
  std::vector<std::pair<std::string, std::string>> pairs;
  pairs.reserve(flat.size() / 2);
  for (size_t i = 0; i < flat.size(); i += 2) {
    pairs.emplace_back(std::move(flat[i]), std::move(flat[i + 1]));
  }
  std::sort(pairs.begin(), pairs.end());  // fields are unique: this orders by field
  return pairs;
}

absl::StatusOr<int64_t> RedisStore::HashLength(const std::string& key) {
  ASSIGN_OR_RETURN(Reply reply, RunOne(*client_, "HLEN", key, {"HLEN", key}));
  return Integer("HLEN", *reply, client_->where());
}

absl::StatusOr<int64_t> RedisStore::ListAppendMany(const std::string& key, const std::vector<std::string>& values) {
  if (values.empty()) return absl::InvalidArgumentError("RPUSH needs at least one value");
  Command command = {"RPUSH", key};
  command.insert(command.end(), values.begin(), values.end());
  ASSIGN_OR_RETURN(Reply reply, RunOne(*client_, "RPUSH", key, std::move(command), /*idempotent=*/false));
  return Integer("RPUSH", *reply, client_->where());
}

absl::StatusOr<std::vector<std::string>> RedisStore::ListRange(const std::string& key, int64_t start, int64_t stop) {
  const std::string first = std::to_string(start), last = std::to_string(stop);
  ASSIGN_OR_RETURN(Reply reply, RunOne(*client_, "LRANGE", key, {"LRANGE", key, first, last}));
  return Strings("LRANGE", *reply, client_->where());
}

absl::Status RedisStore::ListTrim(const std::string& key, int64_t start, int64_t stop) {
  // Not idempotent in general: LTRIM 1 -1 twice drops two elements.
  const std::string first = std::to_string(start), last = std::to_string(stop);
  ASSIGN_OR_RETURN(Reply reply, RunOne(*client_, "LTRIM", key, {"LTRIM", key, first, last},
                                       /*idempotent=*/false));
  return Ok("LTRIM", *reply, client_->where());
}

absl::StatusOr<int64_t> RedisStore::ListLength(const std::string& key) {
  ASSIGN_OR_RETURN(Reply reply, RunOne(*client_, "LLEN", key, {"LLEN", key}));
  return Integer("LLEN", *reply, client_->where());
}

}  // namespace noveltygrid
