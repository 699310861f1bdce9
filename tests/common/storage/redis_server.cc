#include "tests/common/storage/redis_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <hiredis/hiredis.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace noveltygrid::testing_redis {
namespace {

constexpr absl::Duration kStartDeadline = absl::Seconds(10);
constexpr absl::Duration kStopDeadline = absl::Seconds(10);
constexpr absl::Duration kPollInterval = absl::Milliseconds(5);

absl::StatusOr<std::string> FindRedisServer() {
  if (const char* env = std::getenv("NOVELTYGRID_REDIS_SERVER"); env != nullptr && *env != '\0') {
    if (::access(env, X_OK) == 0) return std::string(env);
    return absl::NotFoundError(absl::StrCat("NOVELTYGRID_REDIS_SERVER=", env, " is not executable"));
  }
  const char* path = std::getenv("PATH");
  for (absl::string_view dir : absl::StrSplit(path != nullptr ? path : "", ':')) {
    const std::string candidate = absl::StrCat(dir.empty() ? "." : dir, "/redis-server");
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  for (const char* candidate : {"/usr/bin/redis-server", "/usr/sbin/redis-server", "/usr/local/bin/redis-server"}) {
    if (::access(candidate, X_OK) == 0) return std::string(candidate);
  }
  return absl::NotFoundError(
      "redis-server not found on PATH (nor in $NOVELTYGRID_REDIS_SERVER): the Redis tests start a real "
      "server; install it with `apt-get install redis-server` (CI does)");
}

std::string LogTail(const std::filesystem::path& log) {
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  const std::string all = text.str();
  return all.size() > 2000 ? all.substr(all.size() - 2000) : all;
}

// Exit status of `pid` if it has exited within `timeout`, else nullopt.
std::optional<int> WaitForExit(pid_t pid, absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  while (true) {
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) return status;
    if (absl::Now() >= deadline) return std::nullopt;
    absl::SleepFor(kPollInterval);
  }
}

}  // namespace

int FreeLoopbackPort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof(addr);
  int port = 0;
  if (fd >= 0 && ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  if (fd >= 0) ::close(fd);
  return port;
}

RedisServer::RedisServer(std::string binary, Options options)
    : binary_(std::move(binary)), options_(std::move(options)) {}

absl::StatusOr<std::unique_ptr<RedisServer>> RedisServer::Start(Options options) {
  absl::StatusOr<std::string> binary = FindRedisServer();
  if (!binary.ok()) return binary.status();
  std::unique_ptr<RedisServer> server(new RedisServer(*binary, std::move(options)));
  // Another process may take the port between FreeLoopbackPort() and redis-server's bind: try a few.
  absl::Status status;
  for (int attempt = 0; attempt < 5; ++attempt) {
    server->port_ = FreeLoopbackPort();
    status = server->Launch();
    if (status.ok()) return server;
  }
  return status;
}

RedisServer::~RedisServer() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
}

absl::Status RedisServer::Launch() {
  const std::filesystem::path log = dir_.path() / "redis.log";
  std::vector<std::string> args = {binary_,
                                   "--port",
                                   std::to_string(port_),
                                   "--bind",
                                   "127.0.0.1",
                                   "--save",
                                   "",
                                   "--appendonly",
                                   options_.append_only ? "yes" : "no",
                                   "--dir",
                                   dir_.path().string(),
                                   "--logfile",
                                   log.string(),
                                   "--daemonize",
                                   "no"};
  if (!options_.password.empty()) {
    args.push_back("--requirepass");
    args.push_back(options_.password);
  }
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);

  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) return absl::InternalError("fork failed");
  if (pid == 0) {
    // Child: only async-signal-safe calls until exec.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(1);
    const int null_fd = ::open("/dev/null", O_RDWR);
    ::dup2(null_fd, STDIN_FILENO);
    ::dup2(null_fd, STDOUT_FILENO);
    ::dup2(null_fd, STDERR_FILENO);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  pid_ = pid;

  // Poll until it answers PING (LOADING while it reads its data does not count), or it exits.
  const absl::Time deadline = absl::Now() + kStartDeadline;
  absl::Status last = absl::UnavailableError("no answer yet");
  while (absl::Now() < deadline) {
    if (std::optional<int> exit = WaitForExit(pid_, absl::ZeroDuration())) {
      pid_ = -1;
      return absl::UnavailableError(absl::StrCat("redis-server on port ", port_, " exited during start-up (status ",
                                                 *exit, "); its log:\n", LogTail(log)));
    }
    absl::StatusOr<std::string> pong = Command({"PING"});
    if (pong.ok() && *pong == "PONG") return absl::OkStatus();
    last = pong.status();
    absl::SleepFor(kPollInterval);
  }
  ::kill(pid_, SIGKILL);
  ::waitpid(pid_, nullptr, 0);
  pid_ = -1;
  return absl::DeadlineExceededError(absl::StrCat("redis-server on port ", port_, " did not answer PING within ",
                                                  absl::FormatDuration(kStartDeadline), " (", last.message(),
                                                  "); its log:\n", LogTail(log)));
}

absl::Status RedisServer::Stop() {
  if (pid_ <= 0) return absl::FailedPreconditionError("redis-server is not running");
  ::kill(pid_, SIGTERM);
  std::optional<int> exit = WaitForExit(pid_, kStopDeadline);
  if (!exit) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  pid_ = -1;
  return exit ? absl::OkStatus() : absl::DeadlineExceededError("redis-server ignored SIGTERM; killed it");
}

absl::Status RedisServer::Restart() {
  if (pid_ > 0) return absl::FailedPreconditionError("redis-server is still running");
  return Launch();
}

std::string RedisServer::host_port() const { return absl::StrCat("127.0.0.1:", port_); }

std::string RedisServer::url(int db) const {
  return absl::StrCat("redis://", options_.password.empty() ? "" : absl::StrCat(":", options_.password, "@"),
                      host_port(), "/", db);
}

absl::StatusOr<std::string> RedisServer::Command(const std::vector<std::string>& args) const {
  redisContext* context = redisConnectWithTimeout("127.0.0.1", port_, {1, 0});
  if (context == nullptr || context->err != 0) {
    const std::string error = context == nullptr ? "out of memory" : context->errstr;
    redisFree(context);
    return absl::UnavailableError(absl::StrCat("connect to ", host_port(), ": ", error));
  }
  redisSetTimeout(context, {5, 0});
  auto run = [&](const std::vector<std::string>& command) -> absl::StatusOr<std::string> {
    std::vector<const char*> argv;
    std::vector<size_t> lengths;
    for (const std::string& arg : command) {
      argv.push_back(arg.data());
      lengths.push_back(arg.size());
    }
    auto* reply =
        static_cast<redisReply*>(redisCommandArgv(context, static_cast<int>(argv.size()), argv.data(), lengths.data()));
    if (reply == nullptr) return absl::UnavailableError(context->errstr);
    absl::StatusOr<std::string> text;
    switch (reply->type) {
      case REDIS_REPLY_STATUS:
      case REDIS_REPLY_STRING:
        text = std::string(reply->str, reply->len);
        break;
      case REDIS_REPLY_INTEGER:
        text = std::to_string(reply->integer);
        break;
      case REDIS_REPLY_NIL:
        text = std::string();
        break;
      case REDIS_REPLY_ERROR:
        text = absl::InternalError(std::string(reply->str, reply->len));
        break;
      default:
        text = absl::StrCat("(reply type ", reply->type, ")");
    }
    freeReplyObject(reply);
    return text;
  };
  absl::StatusOr<std::string> result =
      options_.password.empty() ? absl::StatusOr<std::string>("") : run({"AUTH", options_.password});
  if (result.ok()) result = run(args);
  redisFree(context);
  return result;
}

}  // namespace noveltygrid::testing_redis
