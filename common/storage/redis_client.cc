#include "common/storage/redis_client.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/status_macros.h"
#include "common/storage/store_errors.h"

namespace noveltygrid {
namespace {
std::atomic<int64_t> redis_errors{0};
}  // namespace

int64_t RedisErrorCount() { return redis_errors.load(std::memory_order_relaxed); }

namespace storage_internal {
namespace {

absl::Status CheckOptions(const RedisOptions& options) {
  if (options.connect_timeout <= absl::ZeroDuration() || options.command_timeout <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("RedisOptions: connect_timeout and command_timeout must be > 0");
  }
  if (options.max_retries < 0 || options.initial_backoff < absl::ZeroDuration() ||
      options.max_backoff < options.initial_backoff) {
    return absl::InvalidArgumentError("RedisOptions: max_retries must be >= 0 and 0 <= initial_backoff <= max_backoff");
  }
  if (options.pool_size < 1 || options.pipeline_batch < 1) {
    return absl::InvalidArgumentError("RedisOptions: pool_size and pipeline_batch must be >= 1");
  }
  return absl::OkStatus();
}

}  // namespace

RedisClient::RedisClient(RedisEndpoint endpoint, RedisOptions options)
    : endpoint_(std::move(endpoint)), options_(options), where_(endpoint_.Describe()) {}

absl::StatusOr<std::unique_ptr<RedisClient>> RedisClient::Create(RedisEndpoint endpoint, RedisOptions options) {
  RETURN_IF_ERROR(CheckOptions(options));
  std::unique_ptr<RedisClient> client(new RedisClient(std::move(endpoint), options));
  ASSIGN_OR_RETURN(std::unique_ptr<RedisConnection> first,
                   RedisConnection::Open(client->endpoint_, options.connect_timeout, options.command_timeout));
  absl::MutexLock lock(&client->mu_);
  client->idle_.push_back(std::move(first));
  client->open_ = 1;
  return client;
}

absl::StatusOr<std::vector<Reply>> RedisClient::Run(const Call& call) {
  for (int attempt = 0;; ++attempt) {
    if (attempt > 0) absl::SleepFor(Backoff(attempt));
    bool retryable = false;
    absl::StatusOr<std::vector<Reply>> replies = Attempt(call, &retryable);
    if (!replies.ok()) redis_errors.fetch_add(1, std::memory_order_relaxed);
    if (replies.ok() || !retryable) return replies;
    if (attempt == options_.max_retries) {
      return absl::Status(replies.status().code(),
                          absl::StrCat(replies.status().message(), " (gave up after ", attempt + 1,
                                       attempt == 0 ? " attempt)" : " attempts)"));
    }
  }
}

absl::StatusOr<std::vector<Reply>> RedisClient::Attempt(const Call& call, bool* retryable) {
  *retryable = false;
  absl::StatusOr<std::unique_ptr<RedisConnection>> connection = Acquire();
  if (!connection.ok()) {
    *retryable = absl::IsUnavailable(connection.status());
    return connection.status();
  }
  const std::string what =
      call.key.empty() ? std::string(call.name) : absl::StrCat(std::string(call.name), " on key ", QuoteKey(call.key));
  Outcome outcome;
  absl::StatusOr<std::vector<Reply>> replies =
      (*connection)->Exchange(call.commands, static_cast<size_t>(options_.pipeline_batch), what, &outcome);
  Release(*std::move(connection));
  if (!replies.ok()) {
    *retryable = call.idempotent || outcome == Outcome::kNotExecuted;
    if (*retryable) return replies.status();
    return absl::UnavailableError(
        absl::StrCat(replies.status().message(), "; the connection broke after ", std::string(call.name),
                     " was sent, so it may or may not have been applied (not retried because it is not idempotent)"));
  }
  for (const Reply& reply : *replies) {
    if (reply->type != REDIS_REPLY_ERROR) continue;
    const std::string_view message(reply->str, reply->len);
    // A refused command did not run, but in a pipeline its neighbours may have.
    *retryable = IsTransientReplyError(message) && (call.idempotent || call.commands.size() == 1);
    return ReplyError(call.name, call.key, where_, message);
  }
  return replies;
}

bool RedisClient::CanAcquire() const { return !idle_.empty() || open_ < options_.pool_size; }

absl::StatusOr<std::unique_ptr<RedisConnection>> RedisClient::Acquire() {
  while (true) {
    std::unique_ptr<RedisConnection> connection;
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(this, &RedisClient::CanAcquire));
      if (idle_.empty()) {
        ++open_;  // reserve the slot; open outside the lock
      } else {
        connection = std::move(idle_.back());  // most recently used: most likely still alive
        idle_.pop_back();
      }
    }
    if (connection == nullptr) {
      absl::StatusOr<std::unique_ptr<RedisConnection>> opened =
          RedisConnection::Open(endpoint_, options_.connect_timeout, options_.command_timeout);
      if (!opened.ok()) {
        absl::MutexLock lock(&mu_);
        --open_;
      }
      return opened;
    }
    if (!connection->LooksClosed()) return connection;
    connection.reset();  // the server dropped it (restart, timeout): close ours and take the next
    absl::MutexLock lock(&mu_);
    --open_;
  }
}

void RedisClient::Release(std::unique_ptr<RedisConnection> connection) {
  const bool usable = !connection->LooksClosed();
  if (!usable) connection.reset();
  absl::MutexLock lock(&mu_);
  if (usable) {
    idle_.push_back(std::move(connection));
  } else {
    --open_;
  }
}

absl::Duration RedisClient::Backoff(int retry) {
  absl::Duration delay = options_.initial_backoff;
  for (int i = 1; i < retry && delay < options_.max_backoff; ++i) delay *= 2;
  delay = std::min(delay, options_.max_backoff);
  absl::MutexLock lock(&rng_mu_);
  return delay * absl::Uniform(rng_, 0.5, 1.0);
}

}  // namespace storage_internal
}  // namespace noveltygrid
