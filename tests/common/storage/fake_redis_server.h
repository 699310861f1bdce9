// FakeRedisServer: a scripted stand-in for redis-server on a loopback port, for the failures a real
// server does not produce on demand -- a connection that dies after a command was sent, LOADING
// replies, a server that never answers. It parses RESP commands and asks a Responder what to do.
//
// Serves one connection at a time on its own thread (enough for a client used sequentially); the
// Responder runs on that thread. commands() may be read from any thread.
#ifndef NOVELTYGRID_TESTS_COMMON_STORAGE_FAKE_REDIS_SERVER_H_
#define NOVELTYGRID_TESTS_COMMON_STORAGE_FAKE_REDIS_SERVER_H_

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace noveltygrid::testing_redis {

class FakeRedisServer {
 public:
  // The raw RESP bytes to answer `command` with; "" to answer nothing (the client waits); nullopt to
  // close the connection without answering.
  using Responder = std::function<std::optional<std::string>(const std::vector<std::string>& command)>;

  explicit FakeRedisServer(Responder respond);
  ~FakeRedisServer();
  FakeRedisServer(const FakeRedisServer&) = delete;
  FakeRedisServer& operator=(const FakeRedisServer&) = delete;

  int port() const { return port_; }
  std::string url() const;
  // Every command received so far, in order.
  std::vector<std::vector<std::string>> commands() const;
  // How many received commands had this name (argument 0).
  int count(const std::string& name) const;

 private:
  void Serve();
  void ServeConnection(int fd);

  const Responder respond_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  mutable absl::Mutex mu_;
  std::vector<std::vector<std::string>> commands_ ABSL_GUARDED_BY(mu_);
  std::thread thread_;  // last: starts after everything above is ready
};

}  // namespace noveltygrid::testing_redis

#endif  // NOVELTYGRID_TESTS_COMMON_STORAGE_FAKE_REDIS_SERVER_H_
