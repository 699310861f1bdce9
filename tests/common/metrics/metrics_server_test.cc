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

// GET /metrics over HTTP/1.0; the whole reply ("" when the connection fails).
std::string Scrape(int port) {
  const int fd = ConnectLoopback(port);
  if (fd < 0) return "";
  const std::string request = "GET /metrics HTTP/1.0\r\nHost: localhost\r\n\r\n";
  if (write(fd, request.data(), request.size()) != static_cast<ssize_t>(request.size())) {
    close(fd);
    return "";
  }
  std::string reply;
  char buffer[4096];
  for (ssize_t n; (n = read(fd, buffer, sizeof(buffer))) > 0;) reply.append(buffer, static_cast<size_t>(n));
  close(fd);
  return reply;
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
  const std::string reply = Scrape(port);
  EXPECT_TRUE(absl::StrContains(reply, "200 OK")) << reply;
  EXPECT_TRUE(absl::StrContains(reply, "test_knocks_total 3")) << reply;

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
