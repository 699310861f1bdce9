// The built-in HTTP/1.1 transport at its limits: connection caps shared by several hosts, a long queue
// of requests whose connections all fail at once, and a server that answers before it has read the
// request's body. Real loopback servers (tests/worker/http/raw_test_server.h); no sleeps.
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/synchronization/blocking_counter.h"
#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"
#include "tests/worker/http/raw_test_server.h"
#include "tests/worker/http/test_http_server.h"
#include "worker/http/http_client.h"

namespace noveltygrid {
namespace {

using testing::CreateClient;
using testing::EchoHandler;
using testing::Get;
using testing::RawConn;
using testing::RawServer;
using testing::RefusingPort;
using testing::SendAndWait;

std::unique_ptr<HttpClient> MakeBuiltinClient(Executor* executor, int per_host, int total) {
  HttpClientOptions options;
  options.executor = executor;
  options.builtin_http1 = true;
  options.max_connections_per_host = per_host;
  options.max_total_connections = total;
  return CreateClient(options);
}

// One connection in all: host A's idle connection is closed to make room for host B instead of B's
// request waiting (until its timeout) behind it.
TEST(Http1TransportCapsTest, AtTheTotalCapAnotherHostsIdleConnectionMakesRoom) {
  RawServer a(EchoHandler);
  RawServer b(EchoHandler);
  ThreadPool executor(2);
  auto client = MakeBuiltinClient(&executor, /*per_host=*/4, /*total=*/1);
  for (RawServer* server : {&a, &b, &a}) {
    HttpRequest request = Get(server->Url("/x"));
    request.timeout = absl::Seconds(30);  // a request left waiting would fail here, not pass
    absl::StatusOr<HttpResponse> r = SendAndWait(*client, request);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->status, 200);
  }
  EXPECT_EQ(client->Stats().connections_opened, 3);
  client.reset();
  a.Stop();
  b.Stop();
  EXPECT_EQ(a.accepted(), 2);
  EXPECT_EQ(b.accepted(), 1);
}

// Two thousand requests queued behind a one-connection cap to a port that refuses: each connection
// fails, the next queued request gets its turn (Close leaves it to Drain, a loop rather than a
// recursion as deep as the queue), and every request ends Unavailable; none is lost or left waiting.
TEST(Http1TransportCapsTest, AQueueOfRefusedConnectionsFailsRequestByRequest) {
  ThreadPool executor(2);
  auto client = MakeBuiltinClient(&executor, /*per_host=*/1, /*total=*/1);
  const std::string url = "http://127.0.0.1:" + std::to_string(RefusingPort()) + "/x";
  constexpr int kRequests = 2000;
  absl::BlockingCounter done(kRequests);
  std::atomic<int> unavailable{0};
  for (int i = 0; i < kRequests; ++i) {
    client->Send(Get(url), [&](absl::StatusOr<HttpResponse> r) {
      if (!r.ok() && r.status().code() == absl::StatusCode::kUnavailable) unavailable.fetch_add(1);
      done.DecrementCount();
    });
  }
  done.Wait();
  EXPECT_EQ(unavailable.load(), kRequests);
  EXPECT_EQ(client->Stats().in_flight, 0);
}

// The server answers 413 as soon as a request begins and reads nothing more, so the client cannot have
// written its 32 MB body (more than the socket buffers hold) when the reply arrives: the connection is
// closed, not reused (the server would take the next request for the rest of the body), and the next
// request goes over a new one.
TEST(Http1TransportCapsTest, AReplyBeforeTheWholeBodyWasSentEndsTheConnection) {
  absl::Notification finished;  // the handler of the first connection holds it open until then
  RawServer server([&finished](RawConn& conn) {
    if (conn.index() == 0) {
      if (conn.PeekByte() < 0) return;
      conn.Write("HTTP/1.1 413 Payload Too Large\r\nContent-Length: 0\r\n\r\n");
      finished.WaitForNotification();
      return;
    }
    EchoHandler(conn);
  });
  // Released on every way out (a failed ASSERT too), before the server joins its handlers.
  absl::Cleanup release = [&finished] {
    if (!finished.HasBeenNotified()) finished.Notify();
  };
  ThreadPool executor(2);
  auto client = MakeBuiltinClient(&executor, /*per_host=*/4, /*total=*/16);
  HttpRequest big;
  big.url = server.Url("/upload");
  big.body = std::string(size_t{32} << 20, 'b');
  big.timeout = absl::Seconds(60);
  absl::StatusOr<HttpResponse> refused = SendAndWait(*client, big);
  ASSERT_TRUE(refused.ok()) << refused.status();
  EXPECT_EQ(refused->status, 413);

  HttpRequest next = Get(server.Url("/next"));
  next.timeout = absl::Seconds(30);  // on the first connection it would never be answered
  absl::StatusOr<HttpResponse> r = SendAndWait(*client, next);
  std::move(release).Invoke();
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(client->Stats().connections_opened, 2);
  client.reset();
  server.Stop();
  EXPECT_EQ(server.accepted(), 2);
}

}  // namespace
}  // namespace noveltygrid
