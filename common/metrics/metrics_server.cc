#include "common/metrics/metrics_server.h"

#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <exception>
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
  server->host_ = host.size() >= 2 && host.front() == '[' ? host.substr(1, host.size() - 2) : host;
  server->collectables_ = std::move(collectables);
  for (const auto& collectable : server->collectables_) server->exposer_->RegisterCollectable(collectable);
  return server;
}

namespace {

// Opens a connection to HOST:PORT and closes it at once (best effort: errors are ignored). A wildcard
// host is knocked on through loopback.
void Knock(const std::string& host, int port) {
  const std::string target = host.empty() || host == "0.0.0.0" ? "127.0.0.1" : host == "::" ? "::1" : host;
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(target.c_str(), std::to_string(port).c_str(), &hints, &found) != 0) return;
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    const int fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    const bool knocked = connect(fd, a->ai_addr, a->ai_addrlen) == 0 || errno == EINPROGRESS;
    close(fd);
    if (knocked) break;
  }
  freeaddrinfo(found);
}

}  // namespace

MetricsServer::~MetricsServer() {
  if (exposer_ == nullptr) return;
  // civetweb's listening thread sees the stop only when its poll() returns: on a new connection, or
  // after its poll timeout, so destroying the exposer alone kept a finished coordinator alive another
  // 1.3-1.7 s (BENCHMARKS.md). It stops on another thread while this one knocks on the port until it has.
  absl::Notification stopped;
  std::thread stopper([this, &stopped] {
    exposer_.reset();
    stopped.Notify();
  });
  while (!stopped.WaitForNotificationWithTimeout(absl::Milliseconds(5))) Knock(host_, port_);
  stopper.join();
}

}  // namespace noveltygrid
