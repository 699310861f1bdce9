// Http1Transport (http1_transport.h), the half that carries a request over its connection: TryStart,
// opening the connection, writing the request head and body, reading and parsing the reply,
// timeouts, resending on a closed kept-alive connection, and FailAll. Which connection a request gets
// (routes, pools, caps, the waiting queues, closing) is http1_pool.cc.
#include "worker/http/http1_transport.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace noveltygrid::http1 {
namespace {

constexpr size_t kReadBufferBytes = 64 << 10;  // shared by every connection: read, parse, move on
constexpr uint32_t kSocketEvents = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;

std::string Errno(int error) { return std::strerror(error); }

}  // namespace

Http1Transport::Http1Transport(event::EventLoop* loop, const HttpClientOptions& options, std::string user_agent_header,
                               CallSink* sink)
    : loop_(loop),
      options_(options),
      user_agent_header_(std::move(user_agent_header)),
      sink_(sink),
      read_buffer_(new char[kReadBufferBytes]) {}

Http1Transport::~Http1Transport() {
  for (auto& conn : conns_) {
    if (conn != nullptr && conn->fd >= 0) close(conn->fd);
  }
}

bool Http1Transport::TryStart(std::shared_ptr<const HttpRequest>& request, HttpCallback& done) {
  if (request->method != "GET" && request->method != "POST") return false;
  Route* route = FindRoute(request->url);
  if (route == nullptr) return false;
  auto* call = new Call;
  call->request = std::move(request);
  call->done = std::move(done);
  call->route = route;
  call->deadline = absl::Now() + call->request->timeout;
  for (const std::string& header : call->request->headers) {
    if (header.find('\r') != std::string::npos || header.find('\n') != std::string::npos) {
      Complete(call, Error(absl::StatusCode::kInvalidArgument, *call, "a request header contains a line break"));
      return true;
    }
  }
  ArmTimer(call, call->deadline);
  Dispatch(call, /*fresh=*/false);
  Drain();
  return true;
}

void Http1Transport::ArmTimer(Call* call, absl::Time due) {
  loop_->Cancel(call->timer);
  call->timer = loop_->At(due, [this, call] { OnTimeout(call); });
}

void Http1Transport::Open(Pool& pool, Call* call) {
  const int fd = socket(pool.address.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    Complete(call, Error(absl::StatusCode::kUnavailable, *call, absl::StrCat("socket: ", Errno(errno))));
    return;
  }
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
  uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = static_cast<uint32_t>(conns_.size());
    conns_.push_back(nullptr);
  }
  if (conns_[slot] == nullptr) conns_[slot] = std::make_unique<Conn>(options_.max_response_bytes);
  Conn* conn = conns_[slot].get();
  conn->fd = fd;
  conn->slot = slot;
  conn->pool = &pool;
  conn->connected = false;
  conn->reused = false;
  ++pool.open;
  ++open_;
  connections_opened_.fetch_add(1, std::memory_order_relaxed);
  Assign(conn, call);
  const int rc = connect(fd, reinterpret_cast<const sockaddr*>(&pool.address), pool.address_size);
  if (rc != 0 && errno != EINPROGRESS) {
    Broken(conn,
           Error(absl::StatusCode::kUnavailable, *call, absl::StrCat("connect to ", pool.name, ": ", Errno(errno))));
    return;
  }
  // The tag names the slot and this use of it: an event of the slot's previous socket, still in the
  // loop's batch when the slot is reused in the same round, does not reach the new connection.
  conn->generation = (conn->generation + 1) & 0x3fffffffu;
  if (!loop_->Watch(fd, kSocketEvents, kTagBit | (uint64_t{conn->generation} << 32) | slot)) {
    Broken(conn, Error(absl::StatusCode::kInternal, *call, absl::StrCat("epoll_ctl: ", Errno(errno))));
    return;
  }
  if (rc == 0) {
    Connected(conn);
  } else if (call->request->connect_timeout < call->request->timeout) {
    ArmTimer(call, std::min(call->deadline, absl::Now() + call->request->connect_timeout));
  }
}

void Http1Transport::Assign(Conn* conn, Call* call) {
  conn->call = call;
  call->conn = conn;
  conn->sent = 0;
  conn->parser.Reset();
  const HttpRequest& r = *call->request;
  std::string& head = conn->head;
  head.clear();
  absl::StrAppend(&head, r.method, " ", call->route->target, " HTTP/1.1\r\n", call->route->host_header);
  bool has_agent = false;
  bool has_accept = false;
  for (const std::string& header : r.headers) {
    const size_t colon = header.find(':');
    // "Name:" with nothing after it is curl's way of leaving a header out; there is nothing to leave out here.
    if (colon == std::string::npos || absl::StripAsciiWhitespace(absl::string_view(header).substr(colon + 1)).empty()) {
      continue;
    }
    has_agent = has_agent || absl::StartsWithIgnoreCase(header, "user-agent:");
    has_accept = has_accept || absl::StartsWithIgnoreCase(header, "accept:");
    absl::StrAppend(&head, header, "\r\n");
  }
  if (!has_agent) absl::StrAppend(&head, user_agent_header_, "\r\n");
  if (!has_accept) head.append("Accept: */*\r\n");
  if (r.method == "POST") absl::StrAppend(&head, "Content-Length: ", r.body.size(), "\r\n");
  head.append("\r\n");
}

void Http1Transport::Connected(Conn* conn) {
  conn->connected = true;
  Call* call = conn->call;
  if (call != nullptr && call->request->connect_timeout < call->request->timeout) ArmTimer(call, call->deadline);
  Send(conn);
}

const std::string& Http1Transport::Body(const Call& call) {
  static const std::string kNoBody;
  return call.request->method == "POST" ? call.request->body : kNoBody;
}

size_t Http1Transport::RequestSize(const Call& call) const {
  return call.conn == nullptr ? 0 : call.conn->head.size() + Body(call).size();
}

void Http1Transport::Send(Conn* conn) {
  Call* call = conn->call;
  if (call == nullptr || !conn->connected) return;
  const std::string& body = Body(*call);
  const size_t total = conn->head.size() + body.size();
  while (conn->sent < total) {
    iovec parts[2];
    int count = 0;
    if (conn->sent < conn->head.size()) {
      parts[count++] = {conn->head.data() + conn->sent, conn->head.size() - conn->sent};
      if (!body.empty()) parts[count++] = {const_cast<char*>(body.data()), body.size()};
    } else {
      const size_t offset = conn->sent - conn->head.size();
      parts[count++] = {const_cast<char*>(body.data()) + offset, body.size() - offset};
    }
    msghdr message{};
    message.msg_iov = parts;
    message.msg_iovlen = static_cast<size_t>(count);
    const ssize_t n = sendmsg(conn->fd, &message, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return;  // EPOLLOUT (edge) resumes
      Broken(conn, Error(absl::StatusCode::kUnavailable, *call, absl::StrCat("send: ", Errno(errno))));
      return;
    }
    conn->sent += static_cast<size_t>(n);
  }
}

void Http1Transport::OnReady(uint64_t tag, uint32_t events) {
  const uint64_t slot = tag & 0xffffffffu;
  const uint64_t generation = (tag & ~kTagBit) >> 32;
  if (slot >= conns_.size() || conns_[slot] == nullptr) return;
  Conn* conn = conns_[slot].get();
  if (conn->fd < 0 || conn->generation != generation) return;  // closed, or its slot reused since
  if (!conn->connected) {
    int error = 0;
    socklen_t size = sizeof error;
    if (getsockopt(conn->fd, SOL_SOCKET, SO_ERROR, &error, &size) != 0) error = errno;
    if (error != 0) {
      Broken(conn, Error(absl::StatusCode::kUnavailable, *conn->call,
                         absl::StrCat("connect to ", conn->pool->name, ": ", Errno(error))));
      Drain();
      return;
    }
    if ((events & EPOLLOUT) != 0) Connected(conn);
  } else if ((events & EPOLLOUT) != 0) {
    Send(conn);
  }
  // Sending may have closed the connection and a queued request reopened its slot: the events are
  // the old socket's then.
  if (conn->fd >= 0 && conn->generation == generation && (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) != 0) {
    Receive(conn, events);
  }
  Drain();
}

void Http1Transport::Receive(Conn* conn, uint32_t events) {
  while (conn->fd >= 0) {
    const ssize_t n = read(conn->fd, read_buffer_.get(), kReadBufferBytes);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    Call* call = conn->call;
    if (call == nullptr) {  // an idle connection: the server closed it (or sent what nobody asked for)
      Close(conn);
      return;
    }
    if (n < 0) {
      Broken(conn, Error(absl::StatusCode::kUnavailable, *call, absl::StrCat("receive: ", Errno(errno))));
      return;
    }
    size_t consumed = 0;
    const Http1ResponseParser::Result result =
        n == 0 ? conn->parser.FeedEof()
               : conn->parser.Feed(absl::string_view(read_buffer_.get(), static_cast<size_t>(n)), &consumed);
    switch (result) {
      case Http1ResponseParser::Result::kNeedMore:
        continue;
      case Http1ResponseParser::Result::kDone: {
        // Reused only when the exchange ended cleanly: the whole request written (a server may answer
        // early, before the body), nothing after the reply, no hang-up seen with it.
        const bool reusable = conn->parser.keep_alive() && n > 0 && consumed == static_cast<size_t>(n) &&
                              conn->sent == RequestSize(*call) && (events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) == 0;
        conn->call = nullptr;
        Complete(call, conn->parser.TakeResponse());
        reusable ? Release(conn) : Close(conn);
        return;
      }
      case Http1ResponseParser::Result::kTooLarge:
        conn->call = nullptr;
        Complete(call, http_reply::TooLargeError(*call->request, options_.max_response_bytes));
        Close(conn);
        return;
      case Http1ResponseParser::Result::kInvalid:
        // A connection that ended early is the network's (Unavailable, as curl's GOT_NOTHING and
        // PARTIAL_FILE); a reply that is not HTTP is the server's (Internal, as curl's WEIRD_SERVER_REPLY).
        Broken(conn, Error(n == 0 ? absl::StatusCode::kUnavailable : absl::StatusCode::kInternal, *call,
                           conn->parser.error()));
        return;
    }
  }
}

void Http1Transport::Broken(Conn* conn, absl::Status status) {
  Call* call = conn->call;
  const bool resend = call != nullptr && conn->reused && !conn->parser.started() && !call->resent;
  conn->call = nullptr;
  Close(conn);
  if (call == nullptr) return;
  call->conn = nullptr;
  if (resend) {
    call->resent = true;
    Dispatch(call, /*fresh=*/true);
    return;
  }
  Complete(call, std::move(status));
}

void Http1Transport::Complete(Call* call, absl::StatusOr<HttpResponse> result) {
  loop_->Cancel(call->timer);
  sink_->Finished(std::move(call->done), std::move(result));
  delete call;
}

void Http1Transport::OnTimeout(Call* call) {
  call->timer = {};
  Conn* conn = call->conn;
  // The connect timeout fired, or the request's own (which may come first, or while it was queued).
  const bool connecting = conn != nullptr && !conn->connected && absl::Now() < call->deadline;
  const absl::Duration limit = connecting ? call->request->connect_timeout : call->request->timeout;
  absl::Status status =
      Error(absl::StatusCode::kDeadlineExceeded, *call,
            absl::StrCat(connecting ? "connecting timed out after " : "timed out after ", absl::FormatDuration(limit)));
  if (conn == nullptr) {  // waiting for a connection: the queue drops it later
    call->finished = true;
    call->request.reset();  // its body need not wait for that
    sink_->Finished(std::move(call->done), std::move(status));
    return;
  }
  conn->call = nullptr;
  call->conn = nullptr;
  Close(conn);
  Complete(call, std::move(status));
  Drain();
}

void Http1Transport::FailAll(const absl::Status& status) {
  for (auto& [key, pool] : pools_) {
    for (Call* call : pool->waiting) {
      if (!call->finished) {
        loop_->Cancel(call->timer);
        sink_->Finished(std::move(call->done), status);
      }
      delete call;
    }
    pool->waiting.clear();
  }
  for (auto& conn : conns_) {
    if (conn == nullptr || conn->fd < 0) continue;
    Call* call = conn->call;
    conn->call = nullptr;
    Close(conn.get());
    if (call != nullptr) Complete(call, status);
  }
  wake_.clear();
}

absl::Status Http1Transport::Error(absl::StatusCode code, const Call& call, absl::string_view what) const {
  return absl::Status(code,
                      absl::StrCat(call.request->method, " ", http_reply::RedactUrl(call.request->url), ": ", what));
}

}  // namespace noveltygrid::http1
