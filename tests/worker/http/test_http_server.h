// TestHttpServer: a cpp-httplib server on 127.0.0.1:0 for scripted replies (any status, headers, body),
// and small helpers for requests whose callbacks run on an executor.
#ifndef NOVELTYGRID_TESTS_WORKER_HTTP_TEST_HTTP_SERVER_H_
#define NOVELTYGRID_TESTS_WORKER_HTTP_TEST_HTTP_SERVER_H_

#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"
#include "worker/http/http_client.h"

namespace noveltygrid::testing {

class TestHttpServer {
 public:
  TestHttpServer() {
    // cpp-httplib writes with send(..., 0): a client that hangs up mid-reply (a body over its limit, a
    // timeout) would raise SIGPIPE, which kills the test binary.
    std::signal(SIGPIPE, SIG_IGN);
    server_.set_keep_alive_max_count(100000);
    server_.set_keep_alive_timeout(1);  // bounds how long Stop waits for idle connections
    port_ = server_.bind_to_any_port("127.0.0.1");
    EXPECT_GT(port_, 0);
  }
  ~TestHttpServer() { Stop(); }

  httplib::Server& server() { return server_; }

  // Call after registering handlers.
  void Start() {
    thread_ = std::thread([this] {
      server_.listen_after_bind();
      done_ = true;
    });
    while (!server_.is_running() && !done_) std::this_thread::yield();
  }
  void Stop() {
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }

  std::string Url(const std::string& path) const { return absl::StrCat("http://127.0.0.1:", port_, path); }
  int port() const { return port_; }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::atomic<bool> done_{false};
};

// HttpClient::Create(options), failing the test (and returning null) when it fails.
inline std::unique_ptr<HttpClient> CreateClient(const HttpClientOptions& options) {
  absl::StatusOr<std::unique_ptr<HttpClient>> client = HttpClient::Create(options);
  EXPECT_TRUE(client.ok()) << client.status();
  return client.ok() ? *std::move(client) : nullptr;
}

// Sends one request and waits for its callback.
inline absl::StatusOr<HttpResponse> SendAndWait(HttpClient& client, HttpRequest request) {
  absl::Notification done;
  absl::StatusOr<HttpResponse> result;
  client.Send(std::move(request), [&](absl::StatusOr<HttpResponse> r) {
    result = std::move(r);
    done.Notify();
  });
  done.WaitForNotification();
  return result;
}

inline HttpRequest Get(const std::string& url) {
  HttpRequest request;
  request.method = "GET";
  request.url = url;
  return request;
}

// A loopback port nobody listens on: bound, never listened, closed.
inline int RefusingPort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

}  // namespace noveltygrid::testing

#endif  // NOVELTYGRID_TESTS_WORKER_HTTP_TEST_HTTP_SERVER_H_
