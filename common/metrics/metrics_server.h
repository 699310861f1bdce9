// MetricsServer: serves Prometheus text format on http://HOST:PORT/metrics (`--metrics-listen`), from
// collectables the caller keeps alive (a prometheus::Registry for event metrics such as histograms,
// CallbackCollectable for state read at scrape time). One small HTTP server (civetweb, through
// prometheus-cpp's Exposer) on its own threads; stopping it is destroying it, which returns once
// civetweb's threads have ended (a few ms; see ~MetricsServer).
#ifndef NOVELTYGRID_COMMON_METRICS_METRICS_SERVER_H_
#define NOVELTYGRID_COMMON_METRICS_METRICS_SERVER_H_

#include <sys/socket.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "prometheus/collectable.h"

namespace prometheus {
class Exposer;
}  // namespace prometheus

namespace noveltygrid {

// OK when `listen` has the HOST:PORT form Start takes; InvalidArgument naming --metrics-listen otherwise.
absl::Status CheckMetricsListen(const std::string& listen);

class MetricsServer {
 public:
  // Listens on `listen` ("HOST:PORT", "[V6]:PORT"; port 0 picks a free one). InvalidArgument for an
  // address that is not HOST:PORT, Unavailable when it cannot be bound (naming it).
  static absl::StatusOr<std::unique_ptr<MetricsServer>> Start(
      const std::string& listen, std::vector<std::shared_ptr<prometheus::Collectable>> collectables);
  ~MetricsServer();

  int port() const { return port_; }

  struct Address {  // a socket address ~MetricsServer knocks on (see metrics_server.cc)
    sockaddr_storage storage{};
    socklen_t size = 0;
  };

 private:
  MetricsServer() = default;
  std::vector<std::shared_ptr<prometheus::Collectable>> collectables_;
  std::unique_ptr<prometheus::Exposer> exposer_;
  std::vector<Address> knock_;  // where ~MetricsServer knocks to wake civetweb's listener
  int port_ = 0;
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COMMON_METRICS_METRICS_SERVER_H_
