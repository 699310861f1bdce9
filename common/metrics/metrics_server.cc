#include "common/metrics/metrics_server.h"

#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <exception>
#include <system_error>
#include <thread>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "prometheus/exposer.h"

namespace noveltygrid {

absl::Status CheckMetricsListen(const std::string& listen) {
  const size_t colon = listen.rfind(':');
  int port = -1;
  if (colon == std::string::npos || colon == 0 || !absl::SimpleAtoi(listen.substr(colon + 1), &port) || port < 0 ||
      port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("--metrics-listen expects HOST:PORT (e.g. 0.0.0.0:9464), got '", listen, "'"));
  }
  return absl::OkStatus();
}

namespace {

// The addresses ~MetricsServer knocks on: the listen host's, looked up as numbers only (no name
// service at shutdown); a wildcard host and "localhost" through loopback. Empty for another name:
// stopping then waits for civetweb's own timeout, as before.
std::vector<MetricsServer::Address> KnockAddresses(const std::string& host, int port) {
  std::vector<std::string> targets{host};
  if (host.empty() || host == "0.0.0.0") targets = {"127.0.0.1"};
  if (host == "::") targets = {"::1"};
  if (host == "localhost") targets = {"127.0.0.1", "::1"};
  std::vector<MetricsServer::Address> addresses;
  for (const std::string& target : targets) {
    addrinfo hints{};
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
    addrinfo* found = nullptr;
    if (getaddrinfo(target.c_str(), std::to_string(port).c_str(), &hints, &found) != 0) continue;
    for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
      if (a->ai_addrlen > sizeof(sockaddr_storage)) continue;
      MetricsServer::Address address{.size = a->ai_addrlen};
      std::memcpy(&address.storage, a->ai_addr, a->ai_addrlen);
      addresses.push_back(address);
    }
    freeaddrinfo(found);
  }
  return addresses;
}

// Opens a connection to each address and closes it at once (best effort: errors are ignored).
void Knock(const std::vector<MetricsServer::Address>& addresses) {
  for (const MetricsServer::Address& address : addresses) {
    const int fd = socket(address.storage.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) continue;
    (void)connect(fd, reinterpret_cast<const sockaddr*>(&address.storage), address.size);
    close(fd);
  }
}

}  // namespace

absl::StatusOr<std::unique_ptr<MetricsServer>> MetricsServer::Start(
    const std::string& listen, std::vector<std::shared_ptr<prometheus::Collectable>> collectables) {
  if (absl::Status checked = CheckMetricsListen(listen); !checked.ok()) return checked;
  std::unique_ptr<MetricsServer> server(new MetricsServer());
  try {
    // civetweb's own threads: two serve a scrape each, more than Prometheus and a person with curl need.
    server->exposer_ = std::make_unique<prometheus::Exposer>(listen, 2);
  } catch (const std::exception& e) {
    return absl::UnavailableError(absl::StrCat("cannot serve metrics on ", listen, ": ", e.what()));
  }
  const std::vector<int> ports = server->exposer_->GetListeningPorts();
  if (ports.empty()) return absl::UnavailableError(absl::StrCat("cannot serve metrics on ", listen));
  server->port_ = ports.front();
  const std::string host = listen.substr(0, listen.rfind(':'));
  server->knock_ =
      KnockAddresses(host.size() >= 2 && host.front() == '[' ? host.substr(1, host.size() - 2) : host, server->port_);
  server->collectables_ = std::move(collectables);
  for (const auto& collectable : server->collectables_) server->exposer_->RegisterCollectable(collectable);
  return server;
}

MetricsServer::~MetricsServer() {
  if (exposer_ == nullptr) return;
  // civetweb's listening thread sees the stop only when its poll() returns: on a new connection, or
  // after its poll timeout, so destroying the exposer alone kept a finished coordinator alive another
  // 1.3-1.7 s (BENCHMARKS.md). It stops on another thread while this one knocks on the port until it has.
  if (knock_.empty()) {
    exposer_.reset();
    return;
  }
  absl::Notification stopped;
  std::thread stopper;
  try {
    stopper = std::thread([this, &stopped] {
      exposer_.reset();
      stopped.Notify();
    });
  } catch (const std::system_error&) {  // no thread to spare: stop the slow way
    exposer_.reset();
    return;
  }
  while (!stopped.WaitForNotificationWithTimeout(absl::Milliseconds(5))) Knock(knock_);
  stopper.join();
}

}  // namespace noveltygrid
