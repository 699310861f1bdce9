#include "tests/common/storage/fake_redis_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>

#include "absl/strings/str_cat.h"

namespace noveltygrid::testing_redis {
namespace {

constexpr int kPollMillis = 20;  // how often the serving thread checks stop_

// Takes one complete command ("*N\r\n" then N "$len\r\n<bytes>\r\n") off the front of `buffer`.
std::optional<std::vector<std::string>> TakeCommand(std::string& buffer) {
  size_t pos = 0;
  auto line = [&]() -> std::optional<std::string> {
    const size_t end = buffer.find("\r\n", pos);
    if (end == std::string::npos) return std::nullopt;
    std::string text = buffer.substr(pos, end - pos);
    pos = end + 2;
    return text;
  };
  const std::optional<std::string> header = line();
  if (!header || header->empty() || (*header)[0] != '*') return std::nullopt;
  std::vector<std::string> args;
  for (long i = 0, n = std::strtol(header->c_str() + 1, nullptr, 10); i < n; ++i) {
    const std::optional<std::string> length = line();
    if (!length || length->empty()) return std::nullopt;
    const size_t size = std::strtoul(length->c_str() + 1, nullptr, 10);
    if (buffer.size() < pos + size + 2) return std::nullopt;
    args.push_back(buffer.substr(pos, size));
    pos += size + 2;
  }
  buffer.erase(0, pos);
  return args;
}

}  // namespace

FakeRedisServer::FakeRedisServer(Responder respond) : respond_(std::move(respond)) {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 || ::listen(listen_fd_, 16) != 0 ||
      ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    std::abort();  // loopback sockets are a test precondition
  }
  port_ = ntohs(addr.sin_port);
  thread_ = std::thread([this] { Serve(); });
}

FakeRedisServer::~FakeRedisServer() {
  stop_ = true;
  thread_.join();
  ::close(listen_fd_);
}

std::string FakeRedisServer::url() const { return absl::StrCat("redis://127.0.0.1:", port_, "/0"); }

std::vector<std::vector<std::string>> FakeRedisServer::commands() const {
  absl::MutexLock lock(&mu_);
  return commands_;
}

int FakeRedisServer::count(const std::string& name) const {
  absl::MutexLock lock(&mu_);
  int n = 0;
  for (const std::vector<std::string>& command : commands_) n += !command.empty() && command[0] == name;
  return n;
}

void FakeRedisServer::Serve() {
  while (!stop_) {
    pollfd listening = {.fd = listen_fd_, .events = POLLIN, .revents = 0};
    if (::poll(&listening, 1, kPollMillis) <= 0) continue;
    const int fd = ::accept(listen_fd_, nullptr, nullptr);
    if (fd < 0) continue;
    ServeConnection(fd);
    ::close(fd);
  }
}

void FakeRedisServer::ServeConnection(int fd) {
  std::string buffer;
  while (!stop_) {
    pollfd connection = {.fd = fd, .events = POLLIN, .revents = 0};
    if (::poll(&connection, 1, kPollMillis) <= 0) continue;
    char chunk[4096];
    const ssize_t n = ::read(fd, chunk, sizeof(chunk));
    if (n <= 0) return;  // the client went away
    buffer.append(chunk, static_cast<size_t>(n));
    while (std::optional<std::vector<std::string>> command = TakeCommand(buffer)) {
      {
        absl::MutexLock lock(&mu_);
        commands_.push_back(*command);
      }
      const std::optional<std::string> reply = respond_(*command);
      if (!reply) return;  // "crash" with the command unanswered
      for (size_t sent = 0; sent < reply->size();) {
        const ssize_t wrote = ::send(fd, reply->data() + sent, reply->size() - sent, MSG_NOSIGNAL);
        if (wrote <= 0) return;
        sent += static_cast<size_t>(wrote);
      }
    }
  }
}

}  // namespace noveltygrid::testing_redis
