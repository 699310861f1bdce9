#include "common/metrics/metrics_server.h"

#include <exception>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
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
  server->collectables_ = std::move(collectables);
  for (const auto& collectable : server->collectables_) server->exposer_->RegisterCollectable(collectable);
  return server;
}

MetricsServer::~MetricsServer() = default;

}  // namespace noveltygrid
