#include "tests/integration/capture_proxy.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <map>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace noveltygrid::testing {
namespace {

constexpr std::string_view kClientPreface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
constexpr uint8_t kData = 0x0, kHeaders = 0x1, kContinuation = 0x9;
constexpr uint8_t kPadded = 0x8, kPriority = 0x20;

sockaddr_in Loopback(int port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  return addr;
}

uint32_t BigEndian(std::string_view bytes, size_t at, int width) {
  uint32_t value = 0;
  for (int i = 0; i < width; ++i) value = (value << 8) | static_cast<uint8_t>(bytes[at + i]);
  return value;
}

// The frames of one direction of one connection, into `out`; DATA payloads are appended per stream
// to `data` (a gRPC message may span frames).
void ReadFrames(std::string_view bytes, const std::string& label, Http2Traffic* out,
                std::map<uint32_t, std::string>* data) {
  size_t at = 0;
  while (bytes.size() - at >= 9) {
    const uint32_t length = BigEndian(bytes, at, 3);
    const uint8_t type = static_cast<uint8_t>(bytes[at + 3]);
    const uint8_t flags = static_cast<uint8_t>(bytes[at + 4]);
    const uint32_t stream = BigEndian(bytes, at + 5, 4) & 0x7fffffff;
    if (bytes.size() - at - 9 < length) break;
    std::string_view payload = bytes.substr(at + 9, length);
    at += 9 + length;
    if ((type == kData || type == kHeaders) && (flags & kPadded) != 0 && !payload.empty()) {
      const size_t pad = static_cast<uint8_t>(payload[0]);
      payload = payload.substr(1, payload.size() - 1 - std::min(pad, payload.size() - 1));
    }
    if (type == kHeaders && (flags & kPriority) != 0) payload.remove_prefix(std::min<size_t>(5, payload.size()));
    if (type == kData) {
      (*data)[stream].append(payload);
    } else if (type == kHeaders || type == kContinuation) {
      out->header_blocks.append(payload);
    } else {
      out->other.append(payload);
    }
  }
  if (at != bytes.size()) absl::StrAppend(&out->errors, label, ": ", bytes.size() - at, " bytes of a cut frame\n");
}

// The length-prefixed gRPC messages of one stream's DATA, into `out`.
void ReadMessages(std::string_view data, const std::string& label, Http2Traffic* out) {
  size_t at = 0;
  while (data.size() - at >= 5) {
    const bool compressed = data[at] != 0;
    const uint32_t length = BigEndian(data, at + 1, 4);
    if (data.size() - at - 5 < length) break;
    out->messages.append(data.substr(at + 5, length));
    ++out->message_count;
    if (compressed) ++out->compressed_messages;
    at += 5 + length;
  }
  if (at != data.size()) absl::StrAppend(&out->errors, label, ": ", data.size() - at, " bytes of a cut message\n");
}

}  // namespace

absl::StatusOr<std::unique_ptr<CaptureProxy>> CaptureProxy::Start(int upstream_port, const std::string& listen_host,
                                                                  bool record) {
  sockaddr_in addr = Loopback(0);
  if (::inet_pton(AF_INET, listen_host.c_str(), &addr.sin_addr) != 1) {
    return absl::InvalidArgumentError(absl::StrCat("not an IPv4 address: ", listen_host));
  }
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  socklen_t len = sizeof(addr);
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 || ::listen(fd, 64) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    if (fd >= 0) ::close(fd);
    return absl::UnavailableError(absl::StrCat("cannot listen on ", listen_host, ": errno ", errno));
  }
  return std::unique_ptr<CaptureProxy>(new CaptureProxy(fd, listen_host, ntohs(addr.sin_port), upstream_port, record));
}

CaptureProxy::CaptureProxy(int listen_fd, std::string listen_host, int port, int upstream_port, bool record)
    : listen_fd_(listen_fd),
      listen_host_(std::move(listen_host)),
      port_(port),
      upstream_port_(upstream_port),
      record_(record) {
  acceptor_ = std::thread([this] { AcceptLoop(); });
}

CaptureProxy::~CaptureProxy() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  ::shutdown(listen_fd_, SHUT_RDWR);  // wakes accept()
  acceptor_.join();
  ::close(listen_fd_);
  std::vector<Connection*> connections;
  {
    absl::MutexLock lock(&mu_);
    for (auto& c : connections_) connections.push_back(c.get());
  }
  for (Connection* c : connections) {
    ::shutdown(c->client_fd, SHUT_RDWR);  // wakes the pumps' reads
    ::shutdown(c->upstream_fd, SHUT_RDWR);
    c->to_upstream.join();
    c->to_client.join();
    ::close(c->client_fd);
    ::close(c->upstream_fd);
  }
}

void CaptureProxy::AcceptLoop() {
  while (true) {
    const int client = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) {
      absl::MutexLock lock(&mu_);
      if (stopping_) return;
      continue;  // EINTR, a connection reset before it was accepted, ...
    }
    const int upstream = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const sockaddr_in addr = Loopback(upstream_port_);
    if (upstream < 0 || ::connect(upstream, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)) != 0) {
      if (upstream >= 0) ::close(upstream);
      ::close(client);  // the client sees the upstream's refusal as a reset
      continue;
    }
    absl::MutexLock lock(&mu_);
    if (stopping_) {
      ::close(client);
      ::close(upstream);
      return;
    }
    auto c = std::make_unique<Connection>();
    c->client_fd = client;
    c->upstream_fd = upstream;
    Connection* raw = c.get();
    c->to_upstream = std::thread([this, raw] { Pump(raw->client_fd, raw->upstream_fd, &raw->from_client); });
    c->to_client = std::thread([this, raw] { Pump(raw->upstream_fd, raw->client_fd, &raw->from_upstream); });
    connections_.push_back(std::move(c));
  }
}

void CaptureProxy::Pump(int from, int to, std::string* record) {
  char buffer[64 * 1024];
  while (true) {
    const ssize_t n = ::read(from, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    if (record_) {
      absl::MutexLock lock(&mu_);
      record->append(buffer, static_cast<size_t>(n));
    }
    ssize_t sent = 0;
    while (sent < n) {
      const ssize_t w = ::send(to, buffer + sent, static_cast<size_t>(n - sent), MSG_NOSIGNAL);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) break;
      sent += w;
    }
    if (sent < n) break;
  }
  ::shutdown(to, SHUT_WR);  // pass the end on
}

std::string CaptureProxy::Raw() const {
  absl::MutexLock lock(&mu_);
  std::string all;
  for (const auto& c : connections_) absl::StrAppend(&all, c->from_client, c->from_upstream);
  return all;
}

Http2Traffic CaptureProxy::Http2Split() const {
  absl::MutexLock lock(&mu_);
  Http2Traffic traffic;
  for (size_t i = 0; i < connections_.size(); ++i) {
    const Connection& c = *connections_[i];
    const std::string label = absl::StrCat("connection ", i);
    std::string_view from_client = c.from_client;
    if (from_client.substr(0, kClientPreface.size()) != kClientPreface) {
      absl::StrAppend(&traffic.errors, label, ": no HTTP/2 client preface (is it TLS?)\n");
      continue;
    }
    from_client.remove_prefix(kClientPreface.size());
    std::map<uint32_t, std::string> requests;
    std::map<uint32_t, std::string> responses;
    ReadFrames(from_client, label + " requests", &traffic, &requests);
    ReadFrames(c.from_upstream, label + " responses", &traffic, &responses);
    for (const auto* direction : {&requests, &responses}) {
      for (const auto& [stream, data] : *direction) {
        ReadMessages(data, absl::StrCat(label, " stream ", stream), &traffic);
      }
    }
  }
  return traffic;
}

}  // namespace noveltygrid::testing
