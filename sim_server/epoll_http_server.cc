#include "sim_server/epoll_http_server.h"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <deque>
#include <thread>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/event/event_loop.h"

namespace noveltygrid::sim_http {
namespace {

constexpr size_t kReadChunk = 64u << 10;
constexpr int kMaxAcceptsPerWake = 256;  // then serve the other events before accepting more
constexpr int kListenBacklog = 4096;     // capped by net.core.somaxconn
constexpr int kMaxIovecs = 64;
constexpr size_t kCompactInputBytes = 64u << 10;
// The listening socket's event-loop tag; a connection's tag is (serial << 32 | fd) and never equals it
// (nor event::EventLoop::kReservedTag).
constexpr uint64_t kListenTag = ~uint64_t{0} - 1;

absl::string_view ReasonPhrase(int status) {
  switch (status) {
    case 100:
      return "Continue";
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 404:
      return "Not Found";
    case 411:
      return "Length Required";
    case 413:
      return "Payload Too Large";
    case 429:
      return "Too Many Requests";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 503:
      return "Service Unavailable";
    case 505:
      return "HTTP Version Not Supported";
    default:
      return "Status";
  }
}

std::string ErrnoText(int error) { return std::strerror(error); }

}  // namespace

std::string HttpResponseHead(const HttpResponse& response, absl::string_view connection) {
  std::string head = absl::StrCat(
      "HTTP/1.1 ", response.status, " ", ReasonPhrase(response.status), "\r\nContent-Type: ", response.content_type,
      "\r\nContent-Length: ", response.promised_length.value_or(response.body.size()), "\r\n");
  for (const auto& [name, value] : response.headers) absl::StrAppend(&head, name, ": ", value, "\r\n");
  if (!connection.empty()) absl::StrAppend(&head, "Connection: ", connection, "\r\n");
  head += "\r\n";
  return head;
}

// One event-loop thread: an event::EventLoop (epoll set, timers, the wake-up Stop uses), and the
// connections it accepted (all owned by the thread once it runs).
class EpollHttpServer::Loop : public event::EventLoop::Handler {
 public:
  Loop(EpollHttpServer* server, int listen_fd, HttpParseLimits limits)
      : server_(server), listen_fd_(listen_fd), limits_(limits), scratch_(kReadChunk) {}

  ~Loop() override { Join(); }

  absl::Status Init() {
    absl::StatusOr<std::unique_ptr<event::EventLoop>> loop = event::EventLoop::Create(this, {});
    if (!loop.ok()) return loop.status();
    loop_ = std::move(*loop);
    // EPOLLEXCLUSIVE: a new connection wakes one loop, not all.
    if (!loop_->Watch(listen_fd_, EPOLLIN | EPOLLEXCLUSIVE, kListenTag)) {
      return absl::InternalError(absl::StrCat("epoll_ctl on the listening socket: ", ErrnoText(errno)));
    }
    return absl::OkStatus();
  }

  void Run() {
    thread_ = std::thread([this] {
      loop_->Run();
      Shutdown();
    });
  }
  void Quit() {
    if (loop_ != nullptr) loop_->Quit();
  }
  void Join() {
    if (thread_.joinable()) thread_.join();
  }

  void OnReady(uint64_t tag, uint32_t events) override {
    if (tag == kListenTag) {
      Accept();
    } else if (Conn* conn = Find(static_cast<int>(tag & 0xffffffffu), static_cast<uint32_t>(tag >> 32))) {
      OnEvent(*conn, events);
    }
  }

 private:
  struct Framing {
    bool keep_alive = true;
    bool http10 = false;
  };
  struct Conn {
    explicit Conn(HttpParseLimits limits) : parser(limits) {}
    int fd = -1;
    uint32_t serial = 0;
    std::string in;  // received bytes; the unconsumed ones start at in_start
    size_t in_start = 0;
    HttpRequestParser parser;
    bool continue_sent = false;  // "100 Continue" for the request being received
    bool input_full = false;     // stopped reading: the buffer holds a maximal request already
    bool peer_eof = false;
    bool no_more_requests = false;  // closes once the queued responses are written
    // The request waiting for its timer; responses go out in request order, so at most one.
    absl::AnyInvocable<HttpResponse(bool)> pending;
    Framing pending_framing;
    std::deque<std::string> out;  // queued response bytes; the first chunk is sent up to out_offset
    size_t out_offset = 0;
  };
  size_t InputCap() const { return limits_.max_header_bytes + limits_.max_body_bytes + kReadChunk; }

  Conn* Find(int fd, uint32_t serial) {
    if (fd < 0 || static_cast<size_t>(fd) >= conns_.size()) return nullptr;
    Conn* conn = conns_[fd].get();
    return conn != nullptr && conn->serial == serial ? conn : nullptr;
  }

  void Accept() {
    for (int i = 0; i < kMaxAcceptsPerWake; ++i) {
      const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) {
        if (errno == EINTR || errno == ECONNABORTED) continue;
        return;  // EAGAIN: another loop took it, or none left
      }
      const int yes = 1;
      // Without it, Nagle's algorithm and the client's delayed ACK add ~40 ms when a response leaves
      // in two segments.
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
      auto conn = std::make_unique<Conn>(limits_);
      conn->fd = fd;
      conn->serial = ++next_serial_;
      const uint64_t tag = (static_cast<uint64_t>(conn->serial) << 32) | static_cast<uint32_t>(fd);
      if (!loop_->Watch(fd, EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, tag)) {
        ::close(fd);
        continue;
      }
      if (static_cast<size_t>(fd) >= conns_.size()) conns_.resize(fd + 1);
      conns_[fd] = std::move(conn);
    }
  }

  void OnEvent(Conn& conn, uint32_t events) {
    if (events & EPOLLERR) {
      Close(conn);
      return;
    }
    if ((events & EPOLLOUT) && !Flush(conn)) return;
    if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP)) {
      if (!Read(conn, /*stop_on_short_read=*/(events & (EPOLLRDHUP | EPOLLHUP)) == 0)) return;
      Service(conn);
    }
  }

  // Reads until EAGAIN (edge-triggered), EOF or a full buffer. False when the connection was closed.
  // With `stop_on_short_read`, a read that did not fill the chunk ends it too: the socket had no more
  // at that moment, and bytes (or a FIN) arriving later raise a new edge, so the recv that would only
  // answer EAGAIN -- one per request, a sixth of the server's system calls -- is skipped.
  bool Read(Conn& conn, bool stop_on_short_read = false) {
    for (;;) {
      if (conn.in.size() - conn.in_start >= InputCap()) {
        conn.input_full = true;
        return true;
      }
      const ssize_t n = ::recv(conn.fd, scratch_.data(), scratch_.size(), 0);
      if (n > 0) {
        conn.in.append(scratch_.data(), static_cast<size_t>(n));
        if (stop_on_short_read && static_cast<size_t>(n) < scratch_.size()) return true;
      } else if (n == 0) {
        conn.peer_eof = true;
        return true;
      } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
        return true;
      } else if (errno != EINTR) {
        Close(conn);
        return false;
      }
    }
  }

  // Handles every complete request in the buffer (until one waits for its timer), then writes.
  void Service(Conn& conn) {
    for (;;) {
      Process(conn);
      if (!conn.input_full || conn.in.size() - conn.in_start >= InputCap()) break;
      conn.input_full = false;
      if (!Read(conn)) return;
    }
    Flush(conn);
  }

  void Process(Conn& conn) {
    while (!conn.pending && !conn.no_more_requests && conn.in_start < conn.in.size()) {
      const absl::string_view input = absl::string_view(conn.in).substr(conn.in_start);
      const HttpRequestParser::State state = conn.parser.Parse(input);
      if (state == HttpRequestParser::State::kIncomplete) {
        if (conn.parser.headers_done() && conn.parser.request().expect_continue && !conn.continue_sent) {
          conn.out.emplace_back("HTTP/1.1 100 Continue\r\n\r\n");
          conn.continue_sent = true;
        }
        break;
      }
      if (state == HttpRequestParser::State::kError) {
        Queue(conn, server_->errors_(conn.parser.error_status(), conn.parser.error_message()), Framing{false, false});
        conn.in.clear();
        conn.in_start = 0;
        return;
      }
      conn.in_start += conn.parser.consumed();
      HttpRequest request = std::move(conn.parser.request());
      conn.parser.Reset();
      conn.continue_sent = false;
      const Framing framing{request.keep_alive, request.minor_version == 0};
      if (!request.keep_alive) conn.no_more_requests = true;
      HttpReply reply = server_->handler_(request);
      if (reply.delay <= absl::ZeroDuration()) {
        Queue(conn, reply.respond(false), framing);
      } else {
        conn.pending = std::move(reply.respond);
        conn.pending_framing = framing;
        // Two words of captures: stored in the timer itself, no allocation.
        loop_->After(reply.delay, [this, fd = conn.fd, serial = conn.serial] { OnTimer(fd, serial); });
      }
    }
    if (conn.in_start == conn.in.size()) {
      conn.in.clear();
      conn.in_start = 0;
    } else if (conn.in_start >= kCompactInputBytes && conn.in_start * 2 >= conn.in.size()) {
      conn.in.erase(0, conn.in_start);
      conn.in_start = 0;
    }
  }

  void Queue(Conn& conn, HttpResponse response, Framing framing) {
    const bool close = !framing.keep_alive || response.promised_length.has_value();
    if (close) conn.no_more_requests = true;
    conn.out.push_back(HttpResponseHead(response, close ? "close" : framing.http10 ? "keep-alive" : ""));
    if (!response.promised_length.has_value() && !response.body.empty()) conn.out.push_back(std::move(response.body));
  }

  // Writes what it can. False when the connection was closed (write error, or done and not kept).
  bool Flush(Conn& conn) {
    while (!conn.out.empty()) {
      iovec iov[kMaxIovecs];
      int count = 0;
      size_t offset = conn.out_offset;
      for (auto it = conn.out.begin(); it != conn.out.end() && count < kMaxIovecs; ++it, offset = 0) {
        iov[count].iov_base = it->data() + offset;
        iov[count].iov_len = it->size() - offset;
        ++count;
      }
      msghdr message{};
      message.msg_iov = iov;
      message.msg_iovlen = count;
      ssize_t n = ::sendmsg(conn.fd, &message, MSG_NOSIGNAL);
      if (n < 0) {
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return true;  // EPOLLOUT resumes
        Close(conn);
        return false;
      }
      for (size_t left = static_cast<size_t>(n); left > 0;) {
        const size_t chunk = conn.out.front().size() - conn.out_offset;
        if (left < chunk) {
          conn.out_offset += left;
          break;
        }
        left -= chunk;
        conn.out.pop_front();
        conn.out_offset = 0;
      }
    }
    if (!conn.pending && (conn.no_more_requests || conn.peer_eof)) {
      Close(conn);
      return false;
    }
    return true;
  }

  // The delay of the request waiting on connection (fd, serial) is over.
  void OnTimer(int fd, uint32_t serial) {
    Conn* conn = Find(fd, serial);
    if (conn == nullptr || !conn->pending) return;  // the client left
    absl::AnyInvocable<HttpResponse(bool)> respond = std::move(conn->pending);
    conn->pending = nullptr;
    Queue(*conn, respond(false), conn->pending_framing);
    respond = nullptr;  // releases what it holds before the next request is handled
    Service(*conn);
  }

  // Answers the waiting requests (stopping = true), writes what the sockets take, closes everything.
  void Shutdown() {
    for (size_t fd = 0; fd < conns_.size(); ++fd) {
      Conn* conn = conns_[fd].get();
      if (conn == nullptr) continue;
      if (conn->pending) {
        absl::AnyInvocable<HttpResponse(bool)> respond = std::move(conn->pending);
        conn->pending = nullptr;
        Queue(*conn, respond(true), Framing{false, false});
        if (!Flush(*conn)) continue;
      }
      Close(*conn);
    }
    // Timers still pending find no connection; they go with loop_, unfired.
  }

  void Close(Conn& conn) {
    const int fd = conn.fd;
    ::close(fd);  // also leaves the epoll set
    conns_[fd].reset();
  }

  EpollHttpServer* const server_;
  const int listen_fd_;
  const HttpParseLimits limits_;
  std::unique_ptr<event::EventLoop> loop_;
  std::thread thread_;

  // Owned by the loop thread while it runs.
  std::vector<std::unique_ptr<Conn>> conns_;  // by fd
  uint32_t next_serial_ = 0;
  std::vector<char> scratch_;
};

EpollHttpServer::EpollHttpServer(Handler handler, ErrorResponder errors)
    : handler_(std::move(handler)), errors_(std::move(errors)) {}

EpollHttpServer::~EpollHttpServer() { Stop(); }

absl::StatusOr<int> EpollHttpServer::Start(const EpollHttpServerOptions& options) {
  if (started_) return absl::FailedPreconditionError("EpollHttpServer::Start called twice");
  started_ = true;
  if (options.loops < 1) return absl::InvalidArgumentError("EpollHttpServer needs at least one loop");
  const std::string where = absl::StrCat(options.host, ":", options.port);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* addresses = nullptr;
  const std::string port_text = std::to_string(options.port);
  if (const int rc =
          ::getaddrinfo(options.host.empty() ? nullptr : options.host.c_str(), port_text.c_str(), &hints, &addresses);
      rc != 0) {
    return absl::InvalidArgumentError(absl::StrCat("cannot listen on ", where, ": ", ::gai_strerror(rc)));
  }
  int error = 0;
  for (addrinfo* a = addresses; a != nullptr && listen_fd_ < 0; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      error = errno;
      continue;
    }
    const int yes = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);  // no SO_REUSEPORT: a busy port must fail
    if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, kListenBacklog) == 0) {
      listen_fd_ = fd;
    } else {
      error = errno;
      ::close(fd);
    }
  }
  ::freeaddrinfo(addresses);
  if (listen_fd_ < 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot listen on ", where, ": ", ErrnoText(error), " (address in use or not local?)"));
  }
  sockaddr_storage bound{};
  socklen_t length = sizeof bound;
  if (::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&bound), &length) != 0) {
    const int e = errno;
    Stop();
    return absl::InternalError(absl::StrCat("getsockname on ", where, ": ", ErrnoText(e)));
  }
  const int port = ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                                     : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  for (int i = 0; i < options.loops; ++i) {
    loops_.push_back(std::make_unique<Loop>(this, listen_fd_, options.limits));
    if (absl::Status status = loops_.back()->Init(); !status.ok()) {
      Stop();
      return status;
    }
  }
  for (auto& loop : loops_) loop->Run();
  return port;
}

void EpollHttpServer::Stop() {
  for (auto& loop : loops_) loop->Quit();
  for (auto& loop : loops_) loop->Join();
  loops_.clear();
  if (listen_fd_ >= 0) ::close(listen_fd_);
  listen_fd_ = -1;
}

}  // namespace noveltygrid::sim_http
