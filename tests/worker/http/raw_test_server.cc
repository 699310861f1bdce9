#include "tests/worker/http/raw_test_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"

namespace noveltygrid::testing {

std::string HeaderValue(absl::string_view request, absl::string_view name) {
  const absl::string_view head = request.substr(0, request.find("\r\n\r\n"));
  bool first = true;
  for (absl::string_view line : absl::StrSplit(head, "\r\n")) {
    if (first) {  // the request line
      first = false;
      continue;
    }
    const size_t colon = line.find(':');
    if (colon != absl::string_view::npos && absl::EqualsIgnoreCase(line.substr(0, colon), name)) {
      return std::string(absl::StripAsciiWhitespace(line.substr(colon + 1)));
    }
  }
  return "";
}

std::string RequestLine(absl::string_view request) { return std::string(request.substr(0, request.find("\r\n"))); }

std::optional<std::string> RawConn::ReadRequest() {
  while (true) {
    const size_t end = buffer_.find("\r\n\r\n");
    if (end != std::string::npos) {
      size_t length = 0;
      const std::string declared = HeaderValue(absl::string_view(buffer_).substr(0, end + 4), "content-length");
      if (!declared.empty() && !absl::SimpleAtoi(declared, &length)) return std::nullopt;
      const size_t total = end + 4 + length;
      while (buffer_.size() < total) {
        if (!Fill()) return std::nullopt;
      }
      std::string request = buffer_.substr(0, total);
      buffer_.erase(0, total);
      server_->Record(request);
      return request;
    }
    if (!Fill()) return std::nullopt;
  }
}

bool RawConn::Write(absl::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

int RawConn::PeekByte() {
  unsigned char byte = 0;
  ssize_t n;
  do {
    n = ::recv(fd_, &byte, 1, MSG_PEEK);
  } while (n < 0 && errno == EINTR);
  return n == 1 ? byte : -1;
}

bool RawConn::Fill() {
  char chunk[4096];
  ssize_t n;
  do {
    n = ::recv(fd_, chunk, sizeof chunk, 0);
  } while (n < 0 && errno == EINTR);
  if (n <= 0) return false;
  buffer_.append(chunk, static_cast<size_t>(n));
  return true;
}

RawServer::RawServer(Handler handler) : handler_(std::move(handler)) {
  std::signal(SIGPIPE, SIG_IGN);
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  EXPECT_GE(listen_fd_, 0);
  const int one = 1;
  ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  EXPECT_EQ(::listen(listen_fd_, 64), 0);
  socklen_t len = sizeof addr;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  accept_thread_ = std::thread([this] { AcceptLoop(); });
}

void RawServer::Stop() {
  if (stopped_.exchange(true)) return;
  ::shutdown(listen_fd_, SHUT_RDWR);  // accept() returns
  accept_thread_.join();
  {
    absl::MutexLock lock(&mu_);
    for (int fd : open_fds_) ::shutdown(fd, SHUT_RDWR);
  }
  for (std::thread& t : conn_threads_) t.join();
  ::close(listen_fd_);
}

std::string RawServer::Url(absl::string_view path_and_query) const {
  return absl::StrCat("http://127.0.0.1:", port_, path_and_query);
}

void RawServer::AcceptLoop() {
  for (int index = 0;; ++index) {
    int fd;
    do {
      fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0) return;
    accepted_.fetch_add(1);
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    {
      absl::MutexLock lock(&mu_);
      open_fds_.push_back(fd);
    }
    conn_threads_.emplace_back([this, fd, index] {
      RawConn conn(this, fd, index);
      handler_(conn);
      {
        absl::MutexLock lock(&mu_);
        open_fds_.erase(std::find(open_fds_.begin(), open_fds_.end(), fd));
        ::close(fd);
      }
    });
  }
}

std::string Reply(absl::string_view body, absl::string_view extra_headers) {
  return absl::StrCat("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: ", body.size(), "\r\n",
                      extra_headers, "\r\n", body);
}

void EchoHandler(RawConn& conn) {
  while (std::optional<std::string> request = conn.ReadRequest()) {
    const std::string body = absl::StrCat(RequestLine(*request), "|", HeaderValue(*request, "host"));
    if (!conn.Write(Reply(body))) return;
  }
}

}  // namespace noveltygrid::testing
