// MetricsServer: serves the registered collectables on /metrics, and destroying it really stops the
// server (the port refuses connections afterwards), whether it listened on loopback, on every address
// or on "localhost" (the destructor wakes civetweb's listener through loopback).
#include "common/metrics/metrics_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "httplib.h"
#include "prometheus/counter.h"
#include "prometheus/registry.h"

namespace noveltygrid {
namespace {

// Connects to 127.0.0.1:port; the connected socket, or -1 with errno set.
int ConnectLoopback(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)) != 0) {
    const int saved = errno;
    close(fd);
    errno = saved;
    return -1;
  }
  return fd;
}

std::shared_ptr<prometheus::Registry> RegistryWithCounter() {
  auto registry = std::make_shared<prometheus::Registry>();
  prometheus::BuildCounter().Name("test_knocks_total").Help("A counter.").Register(*registry).Add({}).Increment(3);
  return registry;
}

void ExpectServesThenStops(const std::string& listen) {
  absl::StatusOr<std::unique_ptr<MetricsServer>> server = MetricsServer::Start(listen, {RegistryWithCounter()});
  if (listen.starts_with("localhost") && !server.ok()) GTEST_SKIP() << "no localhost here: " << server.status();
  ASSERT_TRUE(server.ok()) << server.status();
  const int port = (*server)->port();
  ASSERT_GT(port, 0);
  httplib::Client client("127.0.0.1", port);
  const httplib::Result reply = client.Get("/metrics");
  ASSERT_TRUE(reply) << "GET /metrics failed";
  EXPECT_EQ(reply->status, 200);
  EXPECT_TRUE(absl::StrContains(reply->body, "test_knocks_total 3")) << reply->body;

  server->reset();
  const int fd = ConnectLoopback(port);
  const int error = errno;
  if (fd >= 0) close(fd);
  EXPECT_LT(fd, 0) << "the metrics port still accepts connections after the server was destroyed";
  EXPECT_EQ(error, ECONNREFUSED);
}

TEST(MetricsServerTest, ServesAndStopsOnLoopback) { ExpectServesThenStops("127.0.0.1:0"); }

TEST(MetricsServerTest, ServesAndStopsOnEveryAddress) { ExpectServesThenStops("0.0.0.0:0"); }

TEST(MetricsServerTest, ServesAndStopsOnLocalhost) { ExpectServesThenStops("localhost:0"); }

TEST(MetricsServerTest, RejectsAnAddressWithoutPort) {
  absl::StatusOr<std::unique_ptr<MetricsServer>> server = MetricsServer::Start("9464", {});
  ASSERT_FALSE(server.ok());
  EXPECT_TRUE(absl::StrContains(server.status().message(), "--metrics-listen expects HOST:PORT"));
}

}  // namespace
}  // namespace noveltygrid
