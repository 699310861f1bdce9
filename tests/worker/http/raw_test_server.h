// RawServer: a raw TCP server on 127.0.0.1:0 for tests whose replies must be scripted byte by byte
// (closing a kept-alive connection, answering nothing, tiny writes), with helpers to read requests
// (RawConn::ReadRequest, HeaderValue, RequestLine) and to write replies (Reply, EchoHandler).
#ifndef NOVELTYGRID_TESTS_WORKER_HTTP_RAW_TEST_SERVER_H_
#define NOVELTYGRID_TESTS_WORKER_HTTP_RAW_TEST_SERVER_H_

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"

namespace noveltygrid::testing {

// The value of header `name` (case-insensitive) in a request's head, "" when absent.
std::string HeaderValue(absl::string_view request, absl::string_view name);

std::string RequestLine(absl::string_view request);

class RawServer;

// One accepted connection of a RawServer, handed to its handler on the connection's own thread.
class RawConn {
 public:
  RawConn(RawServer* server, int fd, int index) : server_(server), fd_(fd), index_(index) {}

  int index() const { return index_; }  // 0 for the server's first connection, 1 for the next, ...
  int fd() const { return fd_; }

  // The next whole request (head and Content-Length body), recorded on the server; nullopt when the
  // client closed the connection (or reset it) first.
  std::optional<std::string> ReadRequest();
  // Blocks until the client closes the connection; drops whatever it sends meanwhile.
  void WaitForClose() {
    while (Fill()) buffer_.clear();
  }
  // One send per call (TCP_NODELAY is on): false when the client is gone.
  bool Write(absl::string_view data);
  // The first byte the client sends, without consuming it; -1 when it closes first.
  int PeekByte();

 private:
  bool Fill();

  RawServer* const server_;
  const int fd_;
  const int index_;
  std::string buffer_;  // received, not yet taken as a request
};

// A TCP server on 127.0.0.1:0 that hands every accepted connection to `handler` on a thread of its
// own and closes it when the handler returns. Stop (or the destructor) stops accepting, shuts down
// the connections still open -- so handlers blocked reading return -- and joins every thread.
class RawServer {
 public:
  using Handler = std::function<void(RawConn&)>;

  explicit RawServer(Handler handler);
  ~RawServer() { Stop(); }

  void Stop();

  int port() const { return port_; }
  std::string Url(absl::string_view path_and_query) const;
  int accepted() const { return accepted_.load(); }
  std::vector<std::string> requests() const {
    absl::MutexLock lock(&mu_);
    return requests_;
  }
  std::vector<std::string> request_lines() const {
    std::vector<std::string> lines;
    for (const std::string& r : requests()) lines.push_back(RequestLine(r));
    return lines;
  }
  void Record(const std::string& request) {
    absl::MutexLock lock(&mu_);
    requests_.push_back(request);
  }

 private:
  void AcceptLoop();

  const Handler handler_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::thread accept_thread_;
  std::vector<std::thread> conn_threads_;  // accept thread until Stop joins it
  std::atomic<int> accepted_{0};
  std::atomic<bool> stopped_{false};
  mutable absl::Mutex mu_;
  std::vector<int> open_fds_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> requests_ ABSL_GUARDED_BY(mu_);
};

// A 200 text/plain reply with `body` and its Content-Length; `extra_headers` are whole lines.
std::string Reply(absl::string_view body, absl::string_view extra_headers = "");

// Answers every request on the connection with its request line and Host header, until the client
// closes it.
void EchoHandler(RawConn& conn);

}  // namespace noveltygrid::testing

#endif  // NOVELTYGRID_TESTS_WORKER_HTTP_RAW_TEST_SERVER_H_
