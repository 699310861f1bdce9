#include "common/storage/redis_connection.h"

#include <poll.h>
#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "common/status_macros.h"
#include "common/storage/store_errors.h"

namespace noveltygrid::storage_internal {
namespace {

absl::string_view AbslView(std::string_view s) { return absl::string_view(s.data(), s.size()); }

// Writing to a socket the server has closed raises SIGPIPE, whose default action kills the process.
// hiredis uses plain write(), so block SIGPIPE in this thread around our writes and swallow the one a
// write raised (the write itself fails with EPIPE), without touching process-wide signal dispositions.
class ScopedSigpipeBlock {
 public:
  ScopedSigpipeBlock() {
    sigemptyset(&sigpipe_);
    sigaddset(&sigpipe_, SIGPIPE);
    sigset_t pending;
    sigemptyset(&pending);
    sigpending(&pending);
    was_pending_ = sigismember(&pending, SIGPIPE) == 1;
    pthread_sigmask(SIG_BLOCK, &sigpipe_, &old_mask_);
  }
  ~ScopedSigpipeBlock() {
    const int saved_errno = errno;
    sigset_t pending;
    sigemptyset(&pending);
    sigpending(&pending);
    if (!was_pending_ && sigismember(&pending, SIGPIPE) == 1) {
      const timespec zero = {0, 0};
      while (sigtimedwait(&sigpipe_, nullptr, &zero) == -1 && errno == EINTR) {
      }
    }
    pthread_sigmask(SIG_SETMASK, &old_mask_, nullptr);
    errno = saved_errno;
  }
  ScopedSigpipeBlock(const ScopedSigpipeBlock&) = delete;
  ScopedSigpipeBlock& operator=(const ScopedSigpipeBlock&) = delete;

 private:
  sigset_t sigpipe_;
  sigset_t old_mask_;
  bool was_pending_ = false;
};

// Writes everything hiredis has buffered; false on an I/O error (details in context->errstr).
bool Flush(redisContext* context) {
  ScopedSigpipeBlock no_sigpipe;
  int done = 0;
  while (!done) {
    if (redisBufferWrite(context, &done) != REDIS_OK) return false;
  }
  return true;
}

}  // namespace

RedisConnection::RedisConnection(redisContext* context, std::string where, absl::Duration command_timeout)
    : context_(context), where_(std::move(where)), command_timeout_(command_timeout) {}

RedisConnection::~RedisConnection() { redisFree(context_); }

absl::StatusOr<std::unique_ptr<RedisConnection>> RedisConnection::Open(const RedisEndpoint& endpoint,
                                                                       absl::Duration connect_timeout,
                                                                       absl::Duration command_timeout) {
  const std::string where = endpoint.Describe();
  redisContext* context =
      redisConnectWithTimeout(endpoint.host.c_str(), endpoint.port, absl::ToTimeval(connect_timeout));
  if (context == nullptr) {
    return absl::ResourceExhaustedError(
        absl::StrCat("cannot connect to Redis at ", where, ": out of memory for the connection"));
  }
  std::unique_ptr<RedisConnection> connection(new RedisConnection(context, where, command_timeout));
  if (context->err != 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot connect to Redis at ", where, ": ", context->errstr, " (connect timeout ",
                     absl::FormatDuration(connect_timeout),
                     "); check that redis-server is running there and the URL's host:port is right"));
  }
  if (redisSetTimeout(context, absl::ToTimeval(command_timeout)) != REDIS_OK ||
      redisEnableKeepAlive(context) != REDIS_OK) {
    return connection->IoError("setting socket options");
  }

  // AUTH, SELECT and PING in one round trip; PING also proves the server answers (and needs no
  // password we lack) before the connection is handed out.
  const std::string db = std::to_string(endpoint.db);
  std::vector<Command> handshake;
  if (!endpoint.password.empty()) {
    handshake.push_back(endpoint.user.empty() ? Command{"AUTH", endpoint.password}
                                              : Command{"AUTH", endpoint.user, endpoint.password});
  }
  if (endpoint.db != 0) handshake.push_back({"SELECT", db});
  handshake.push_back({"PING"});
  Outcome outcome;
  ASSIGN_OR_RETURN(std::vector<Reply> replies,
                   connection->Exchange(handshake, handshake.size(), "connection handshake", &outcome));
  for (size_t i = 0; i < replies.size(); ++i) {
    if (replies[i]->type != REDIS_REPLY_ERROR) continue;
    const std::string_view command = handshake[i][0];
    const std::string_view message(replies[i]->str, replies[i]->len);
    absl::Status status =
        command == "SELECT"
            ? absl::InvalidArgumentError(
                  absl::StrCat("SELECT ", db, " on ", where, " failed: ", AbslView(message),
                               "; the /db in the URL must be below the server's 'databases' setting (16 by default)"))
            : ReplyError(command, "", where, message);
    if (command == "AUTH") status = absl::UnauthenticatedError(status.message());
    if (endpoint.password.empty()) return status;
    // Redis does not echo passwords, but make sure no message can ever carry one.
    return absl::Status(status.code(), absl::StrReplaceAll(status.message(), {{endpoint.password, "***"}}));
  }
  return connection;
}

bool RedisConnection::LooksClosed() const {
  if (context_->err != 0) return true;
  // An idle connection has nothing to read: readable means EOF, a reset, or bytes out of step.
  pollfd idle = {.fd = context_->fd, .events = POLLIN, .revents = 0};
  return ::poll(&idle, 1, 0) != 0;
}

absl::Status RedisConnection::IoError(std::string_view what) const {
  std::string cause = context_->errstr;
  if (context_->err == REDIS_ERR_IO &&
      (absl::StrContains(cause, "temporarily unavailable") || absl::StrContains(cause, "timed out"))) {
    cause = absl::StrCat("no reply within the command timeout of ", absl::FormatDuration(command_timeout_), " (", cause,
                         ")");
  }
  return absl::UnavailableError(absl::StrCat("Redis ", AbslView(what), " on ", where_, " failed: ", cause));
}

absl::StatusOr<std::vector<Reply>> RedisConnection::Exchange(const std::vector<Command>& commands, size_t batch,
                                                             std::string_view what, Outcome* outcome) {
  *outcome = Outcome::kNotExecuted;
  batch = std::max<size_t>(batch, 1);
  std::vector<Reply> replies;
  replies.reserve(commands.size());
  std::vector<const char*> argv;
  std::vector<size_t> lengths;
  for (size_t begin = 0; begin < commands.size(); begin += batch) {
    const size_t end = std::min(commands.size(), begin + batch);
    for (size_t i = begin; i < end; ++i) {
      argv.clear();
      lengths.clear();
      for (std::string_view arg : commands[i]) {
        argv.push_back(arg.data());
        lengths.push_back(arg.size());
      }
      if (redisAppendCommandArgv(context_, static_cast<int>(argv.size()), argv.data(), lengths.data()) != REDIS_OK) {
        return IoError(what);
      }
    }
    if (!Flush(context_)) {
      // A failed write never completes its last command, so a lone command cannot have run.
      if (begin > 0 || end - begin > 1) *outcome = Outcome::kUnknown;
      return IoError(what);
    }
    *outcome = Outcome::kUnknown;
    for (size_t i = begin; i < end; ++i) {
      void* reply = nullptr;
      if (redisGetReply(context_, &reply) != REDIS_OK) return IoError(what);
      replies.emplace_back(static_cast<redisReply*>(reply));
    }
  }
  return replies;
}

absl::Status ReplyError(std::string_view command, std::string_view key, std::string_view where,
                        std::string_view message) {
  const absl::string_view text = AbslView(message);
  if (absl::StartsWith(text, "WRONGTYPE")) return WrongTypeError(command, key, where, message);
  const std::string on = absl::StrCat(AbslView(command), key.empty() ? "" : " on key ",
                                      key.empty() ? "" : QuoteKey(key), " at ", AbslView(where));
  if (absl::StartsWith(text, "NOAUTH") || absl::StartsWith(text, "WRONGPASS")) {
    return absl::UnauthenticatedError(absl::StrCat(
        on, " was refused: ", text, "; check the user and password in the URL (redis://[user]:PASSWORD@host:port/db)"));
  }
  if (absl::StartsWith(text, "NOPERM")) {
    return absl::PermissionDeniedError(
        absl::StrCat(on, " was refused: ", text, "; the Redis user needs the right ACL permissions"));
  }
  if (IsTransientReplyError(message)) {
    return absl::UnavailableError(absl::StrCat(on, " was refused for now: ", text));
  }
  return absl::InternalError(absl::StrCat(on, " failed: ", text));
}

bool IsTransientReplyError(std::string_view message) {
  for (const char* prefix : {"LOADING", "BUSY", "TRYAGAIN", "MASTERDOWN"}) {
    if (absl::StartsWith(AbslView(message), prefix)) return true;
  }
  return false;
}

}  // namespace noveltygrid::storage_internal
