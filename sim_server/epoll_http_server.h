// EpollHttpServer (namespace sim_http, apart from the worker's HTTP client types): a small HTTP/1.1 server built for
// serve-sim's load: thousands of keep-alive connections whose requests each wait a simulated latency before a cheap
// reply.
//
// Each of `loops` threads runs an event::EventLoop (common/event: epoll set, timers, wake-up) and owns
// the connections it accepted from the one shared listening socket (EPOLLEXCLUSIVE, so a new connection
// wakes one loop). A request is parsed incrementally (HttpRequestParser), handed to the handler, which returns
// at once with a delay and a `respond` callback; the loop runs `respond` when the delay is over (a loop
// timer; the loop sleeps until the earliest one, to the microsecond where the kernel has epoll_pwait2), so a waiting
// request costs no thread and no CPU. Responses are written with sendmsg (partial writes resumed on EPOLLOUT). One
// request per connection is handled at a time; pipelined requests wait in the input buffer and are answered in order.
// Sockets are non-blocking, edge-triggered, TCP_NODELAY.
//
// Responses carry Content-Type, Content-Length, the handler's extra headers and, when the connection
// is closing, "Connection: close". Protocol errors (see http_request_parser.h) get the `errors`
// callback's response and the connection is closed after it.
//
// Threading: Start and Stop from one owning thread. The handler and every `respond` run on the loop
// thread that owns the connection; they must not block (with loops > 1, they run concurrently).
#ifndef NOVELTYGRID_SIM_SERVER_EPOLL_HTTP_SERVER_H_
#define NOVELTYGRID_SIM_SERVER_EPOLL_HTTP_SERVER_H_

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "sim_server/http_request_parser.h"

namespace noveltygrid::sim_http {

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::vector<std::pair<std::string, std::string>> headers;  // extra headers
  std::string body;
  // Set: the headers announce this Content-Length, no body is sent and the connection is closed right
  // after the headers (a response cut off mid-body). `body` is ignored.
  std::optional<size_t> promised_length;
};

// The handler's decision for one request.
struct HttpReply {
  absl::Duration delay = absl::ZeroDuration();
  // Runs once on the loop thread after `delay`, or at once with stopping = true when the server stops
  // first. Destroyed without being run when the connection fails before (reset, read error); a client
  // that only half-closes still gets its reply. It may own RAII state.
  absl::AnyInvocable<HttpResponse(bool stopping)> respond;
};

struct EpollHttpServerOptions {
  std::string host = "127.0.0.1";  // a numeric address or a name (first address that binds)
  int port = 0;                    // 0 picks a free port
  int loops = 1;                   // event-loop threads
  HttpParseLimits limits;
};

class EpollHttpServer {
 public:
  using Handler = std::function<HttpReply(HttpRequest& request)>;
  using ErrorResponder = std::function<HttpResponse(int status, absl::string_view message)>;

  EpollHttpServer(Handler handler, ErrorResponder errors);
  ~EpollHttpServer();  // Stops
  EpollHttpServer(const EpollHttpServer&) = delete;
  EpollHttpServer& operator=(const EpollHttpServer&) = delete;

  // Binds (SO_REUSEADDR, not SO_REUSEPORT: a port in use is an error), listens and starts the loops.
  // Returns the bound port. Call once.
  absl::StatusOr<int> Start(const EpollHttpServerOptions& options);
  // Stops accepting; answers every waiting request at once (respond(stopping = true)) with a best-effort
  // write, closes every connection and joins the loops. Idempotent.
  void Stop();

 private:
  class Loop;

  // Constant after Start.
  bool started_ = false;
  Handler handler_;
  ErrorResponder errors_;
  int listen_fd_ = -1;
  std::vector<std::unique_ptr<Loop>> loops_;
};

// The status line and headers of `response` ("HTTP/1.1 200 OK\r\n...\r\n\r\n"), with a
// "Connection: <connection>" header unless `connection` is empty.
std::string HttpResponseHead(const HttpResponse& response, absl::string_view connection);

}  // namespace noveltygrid::sim_http

#endif  // NOVELTYGRID_SIM_SERVER_EPOLL_HTTP_SERVER_H_
