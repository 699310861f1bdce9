// RedisConnection: one hiredis connection (synchronous API) plus the translation of hiredis and Redis
// errors into absl::Status -- the one place where hiredis meets the rest of the code. Internal to
// noveltygrid_storage: nothing outside this folder includes it (hiredis stays out of public headers).
//
// Not thread-safe: a connection is used by one thread at a time (RedisClient's pool hands it out).
#ifndef NOVELTYGRID_COMMON_STORAGE_REDIS_CONNECTION_H_
#define NOVELTYGRID_COMMON_STORAGE_REDIS_CONNECTION_H_

#include <hiredis/hiredis.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/storage/redis_url.h"

namespace noveltygrid::storage_internal {

struct ReplyDeleter {
  void operator()(redisReply* reply) const { freeReplyObject(reply); }
};
using Reply = std::unique_ptr<redisReply, ReplyDeleter>;

// One command as its arguments, sent with explicit lengths (binary safe). The views must outlive the
// call that sends it.
using Command = std::vector<std::string_view>;

// What a failed Exchange may have done on the server; decides whether retrying is safe.
enum class Outcome {
  kNotExecuted,  // nothing complete reached the server (or it refused, e.g. LOADING)
  kUnknown,      // the connection broke after sending: the commands may or may not have run
};

class RedisConnection {
 public:
  // Connects within `connect_timeout`, sets `command_timeout` for every later read and write, and runs
  // the handshake in one round trip: AUTH (if the endpoint has a password), SELECT (if db != 0), PING.
  // Unavailable if the server cannot be reached, Unauthenticated if it refuses the password (or wants
  // one), other codes for a failed SELECT.
  static absl::StatusOr<std::unique_ptr<RedisConnection>> Open(const RedisEndpoint& endpoint,
                                                               absl::Duration connect_timeout,
                                                               absl::Duration command_timeout);
  ~RedisConnection();
  RedisConnection(const RedisConnection&) = delete;
  RedisConnection& operator=(const RedisConnection&) = delete;

  // True if an idle connection can no longer be used: an earlier I/O error, or the server has closed it
  // (restart, idle timeout, CLIENT KILL) -- detected with a zero-timeout poll, without a round trip.
  bool LooksClosed() const;

  // Sends `commands` pipelined, `batch` commands per round trip, and returns one reply per command.
  // Error replies are returned as replies (see ReplyError). On an I/O error or timeout: Unavailable
  // naming `what` and the server, with *outcome saying whether anything may have run; the connection
  // is then unusable (LooksClosed() is true).
  absl::StatusOr<std::vector<Reply>> Exchange(const std::vector<Command>& commands, size_t batch, std::string_view what,
                                              Outcome* outcome);

 private:
  RedisConnection(redisContext* context, std::string where, absl::Duration command_timeout);
  absl::Status IoError(std::string_view what) const;

  redisContext* const context_;
  const std::string where_;  // endpoint.Describe(), for messages
  const absl::Duration command_timeout_;
};

// The Status for an error reply `message` to `command` on `key` (may be empty) at `where`:
// FailedPrecondition for WRONGTYPE, Unauthenticated for NOAUTH/WRONGPASS, PermissionDenied for NOPERM,
// Unavailable for transient refusals (LOADING, BUSY, TRYAGAIN, MASTERDOWN), Internal otherwise.
absl::Status ReplyError(std::string_view command, std::string_view key, std::string_view where,
                        std::string_view message);

// Whether an error reply means the server refused the command for now, so it did not run and may be
// retried (LOADING while a restarted server reads its data, ...).
bool IsTransientReplyError(std::string_view message);

}  // namespace noveltygrid::storage_internal

#endif  // NOVELTYGRID_COMMON_STORAGE_REDIS_CONNECTION_H_
