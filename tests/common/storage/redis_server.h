// RedisServer: a real redis-server child process for tests, on a free loopback port with its own data
// folder. Start() returns once the server answers PING; the destructor kills it and removes the folder.
//
// The binary is $NOVELTYGRID_REDIS_SERVER or redis-server on PATH; if neither exists Start() fails
// saying how to install it. The child gets SIGKILL if the thread that started it dies, so a crashed
// test leaves no server behind. Not thread-safe: drive it from the test's thread.
#ifndef NOVELTYGRID_TESTS_COMMON_STORAGE_REDIS_SERVER_H_
#define NOVELTYGRID_TESTS_COMMON_STORAGE_REDIS_SERVER_H_

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tests/common/test_files.h"

namespace noveltygrid::testing_redis {

class RedisServer {
 public:
  struct Options {
    std::string password;      // --requirepass; empty: none
    bool append_only = false;  // --appendonly yes: the data survives Stop() + Restart()
  };

  static absl::StatusOr<std::unique_ptr<RedisServer>> Start(Options options);
  static absl::StatusOr<std::unique_ptr<RedisServer>> Start() { return Start(Options{}); }
  ~RedisServer();
  RedisServer(const RedisServer&) = delete;
  RedisServer& operator=(const RedisServer&) = delete;

  // SIGTERM and wait for the exit (Redis flushes its append-only file on the way out).
  absl::Status Stop();
  // Starts it again on the same port and data folder.
  absl::Status Restart();

  int port() const { return port_; }
  std::string host_port() const;
  // "redis://[:password@]127.0.0.1:port/db"
  std::string url(int db = 0) const;

  // Runs one command on a fresh connection (AUTH first if needed); returns the reply as text
  // (status, string or integer), or an error for an error reply.
  absl::StatusOr<std::string> Command(const std::vector<std::string>& args) const;

 private:
  RedisServer(std::string binary, Options options);
  absl::Status Launch();  // fork + exec on port_, then wait for PING

  const std::string binary_;
  const Options options_;
  testing_files::TempDir dir_;
  int port_ = 0;
  pid_t pid_ = -1;
};

// A loopback port nothing listens on right now (bound to port 0, then released).
int FreeLoopbackPort();

}  // namespace noveltygrid::testing_redis

#endif  // NOVELTYGRID_TESTS_COMMON_STORAGE_REDIS_SERVER_H_
