// HttpClient against real loopback servers: scripted cpp-httplib handlers and the simulated model
// server.
#include "worker/http/http_client.h"

#include <dirent.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/synchronization/blocking_counter.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"
#include "sim_server/sim_server.h"
#include "tests/worker/http/test_http_server.h"

namespace noveltygrid {
namespace {

using testing::CreateClient;
using testing::Get;
using testing::RefusingPort;
using testing::SendAndWait;
using testing::TestHttpServer;

constexpr char kChatBody[] =
    R"({"model":"sim:explorer","messages":[{"role":"user","content":"Name one unusual use for a brick."}],)"
    R"("temperature":0.7,"seed":3})";

std::unique_ptr<HttpClient> MakeClientWith(Executor* executor, int per_host, bool builtin_http1) {
  HttpClientOptions options;
  options.executor = executor;
  options.builtin_http1 = builtin_http1;
  options.max_connections_per_host = per_host;
  options.max_total_connections = std::max(per_host, 512);
  return CreateClient(options);
}

// Every HttpClientTest runs on both engines: the built-in HTTP/1.1 transport ("builtin", what plain
// http:// to an address takes) and curl.
class HttpClientTest : public ::testing::TestWithParam<bool> {
 protected:
  std::unique_ptr<HttpClient> MakeClient(Executor* executor, int per_host = 64) {
    return MakeClientWith(executor, per_host, GetParam());
  }
};

// Starts `sim` with `options`; its port, or 0 (a test failure) when it did not start.
int StartSim(SimServer& sim, const SimServerOptions& options) {
  absl::StatusOr<int> port = sim.Start(options);
  EXPECT_TRUE(port.ok()) << port.status();
  return port.value_or(0);
}

// A chat completion request (kChatBody) to the simulated server on `port`.
HttpRequest SimChat(int port) {
  HttpRequest request;
  request.url = "http://127.0.0.1:" + std::to_string(port) + "/v1/chat/completions";
  request.body = kChatBody;
  return request;
}

TEST(ParseRetryAfterTest, SecondsDecimalsAndDates) {
  const absl::Time now = absl::FromUnixSeconds(1'700'000'000);
  EXPECT_EQ(ParseRetryAfter("2", now), absl::Seconds(2));
  EXPECT_EQ(ParseRetryAfter(" 0.5 ", now), absl::Milliseconds(500));
  EXPECT_EQ(ParseRetryAfter("0", now), absl::ZeroDuration());
  // 1700000000 = Tue, 14 Nov 2023 22:13:20 GMT.
  EXPECT_EQ(ParseRetryAfter("Tue, 14 Nov 2023 22:13:50 GMT", now), absl::Seconds(30));
  EXPECT_EQ(ParseRetryAfter("Tue, 14 Nov 2023 22:00:00 GMT", now), absl::ZeroDuration());  // in the past
  // The two obsolete forms HTTP/1.1 recipients must still read: RFC 850's and asctime's.
  EXPECT_EQ(ParseRetryAfter("Tuesday, 14-Nov-23 22:13:50 GMT", now), absl::Seconds(30));
  EXPECT_EQ(ParseRetryAfter("Tue Nov 14 22:13:50 2023", now), absl::Seconds(30));
  EXPECT_EQ(ParseRetryAfter("Tue, 14 Nov 2023 22:13:50 GMT tomorrow", now), std::nullopt);
  EXPECT_EQ(ParseRetryAfter("Tue, 14 Nov 2023 22:13 GMT", now), std::nullopt);
  EXPECT_EQ(ParseRetryAfter("", now), std::nullopt);
  EXPECT_EQ(ParseRetryAfter("-3", now), std::nullopt);
  EXPECT_EQ(ParseRetryAfter("soon", now), std::nullopt);
  EXPECT_EQ(ParseRetryAfter("1.5x", now), std::nullopt);
}

TEST_P(HttpClientTest, GetAndPostWithStatusBodyAndHeaders) {
  TestHttpServer server;
  server.server().Get("/hello",
                      [](const httplib::Request&, httplib::Response& res) { res.set_content("hi", "text/plain"); });
  server.server().Post("/echo", [](const httplib::Request& req, httplib::Response& res) {
    res.status = 418;
    res.set_content(req.body + "|" + req.get_header_value("X-Test"), "application/json");
  });
  server.Start();
  ThreadPool executor(2);
  auto client = MakeClient(&executor);

  absl::StatusOr<HttpResponse> hello = SendAndWait(*client, Get(server.Url("/hello")));
  ASSERT_TRUE(hello.ok()) << hello.status();
  EXPECT_EQ(hello->status, 200);
  EXPECT_EQ(hello->body, "hi");
  EXPECT_EQ(hello->content_type, "text/plain");
  EXPECT_EQ(hello->retry_after, std::nullopt);

  HttpRequest post;
  post.url = server.Url("/echo");
  post.body = std::string(5000, 'x');  // big enough that curl would otherwise send Expect: 100-continue
  post.headers = {"X-Test: yes"};
  absl::StatusOr<HttpResponse> echo = SendAndWait(*client, post);
  ASSERT_TRUE(echo.ok()) << echo.status();
  EXPECT_EQ(echo->status, 418);
  EXPECT_EQ(echo->body, post.body + "|yes");
  EXPECT_EQ(client->Stats().requests, 2);
  EXPECT_EQ(client->Stats().in_flight, 0);
  EXPECT_EQ(client->Stats().connections_opened, 1);  // the second request reused the first connection
}

TEST_P(HttpClientTest, RetryAfterHeaders) {
  TestHttpServer server;
  server.server().Get("/seconds", [](const httplib::Request&, httplib::Response& res) {
    res.status = 429;
    res.set_header("retry-AFTER", "3");
  });
  server.server().Get("/both", [](const httplib::Request&, httplib::Response& res) {
    res.status = 429;
    res.set_header("Retry-After", "3");
    res.set_header("Retry-After-Ms", "250");
  });
  server.server().Get("/date", [](const httplib::Request&, httplib::Response& res) {
    res.status = 503;
    res.set_header("Retry-After", "Wed, 21 Oct 2015 07:28:00 GMT");  // long past: no wait
  });
  server.server().Get("/junk", [](const httplib::Request&, httplib::Response& res) {
    res.status = 503;
    res.set_header("Retry-After", "later please");
  });
  server.Start();
  ThreadPool executor(2);
  auto client = MakeClient(&executor);

  absl::StatusOr<HttpResponse> r = SendAndWait(*client, Get(server.Url("/seconds")));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, 429);
  EXPECT_EQ(r->retry_after, absl::Seconds(3));
  r = SendAndWait(*client, Get(server.Url("/both")));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->retry_after, absl::Milliseconds(250));
  r = SendAndWait(*client, Get(server.Url("/date")));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->retry_after, absl::ZeroDuration());
  r = SendAndWait(*client, Get(server.Url("/junk")));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->retry_after, std::nullopt);
}

TEST_P(HttpClientTest, TimeoutIsDeadlineExceeded) {
  absl::Notification release;
  TestHttpServer server;  // after `release`: stops (joining its handler) before `release` goes
  server.server().Get("/slow", [&](const httplib::Request&, httplib::Response& res) {
    release.WaitForNotificationWithTimeout(absl::Seconds(30));
    res.set_content("late", "text/plain");
  });
  server.Start();
  ThreadPool executor(2);
  auto client = MakeClient(&executor);
  HttpRequest request = Get(server.Url("/slow?token=secret-query"));
  request.timeout = absl::Milliseconds(100);
  request.headers = {"Authorization: Bearer sk-never-in-messages"};
  absl::StatusOr<HttpResponse> r = SendAndWait(*client, request);
  release.Notify();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kDeadlineExceeded) << r.status();
  EXPECT_NE(r.status().message().find("GET http://127.0.0.1:"), std::string::npos) << r.status();
  EXPECT_EQ(r.status().message().find("sk-never-in-messages"), std::string::npos);
  EXPECT_EQ(r.status().message().find("secret-query"), std::string::npos) << r.status();
  EXPECT_EQ(client->Stats().transport_errors, 1);
}

TEST_P(HttpClientTest, ConnectionRefusedIsUnavailable) {
  ThreadPool executor(2);
  auto client = MakeClient(&executor);
  absl::StatusOr<HttpResponse> r =
      SendAndWait(*client, Get("http://127.0.0.1:" + std::to_string(RefusingPort()) + "/x"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kUnavailable) << r.status();
}

TEST_P(HttpClientTest, DroppedConnectionIsUnavailable) {
  SimServer sim;
  const int port =
      StartSim(sim, {.fault_rate = 1.0, .faults = {SimFault::kTimeout}, .timeout_hold = absl::Milliseconds(1)});
  ASSERT_NE(port, 0);
  ThreadPool executor(2);
  auto client = MakeClient(&executor);
  HttpRequest request = SimChat(port);
  absl::StatusOr<HttpResponse> r = SendAndWait(*client, request);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kUnavailable) << r.status();
}

TEST_P(HttpClientTest, SendsTheUserAgentUnlessTheRequestHasOne) {
  TestHttpServer server;
  server.server().Get("/agent", [](const httplib::Request& req, httplib::Response& res) {
    res.set_content(std::to_string(req.get_header_value_count("User-Agent")) + " " + req.get_header_value("User-Agent"),
                    "text/plain");
  });
  server.Start();
  ThreadPool executor(2);
  auto client = MakeClient(&executor);
  absl::StatusOr<HttpResponse> plain = SendAndWait(*client, Get(server.Url("/agent")));
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ(plain->body, "1 noveltygrid");
  HttpRequest own = Get(server.Url("/agent"));
  own.headers = {"user-agent: mine/1.0"};
  absl::StatusOr<HttpResponse> mine = SendAndWait(*client, own);
  ASSERT_TRUE(mine.ok()) << mine.status();
  EXPECT_EQ(mine->body, "1 mine/1.0");
}

// Wake-up batching off and with a long window: every reply and every timer is still delivered, on
// the executor, whatever the window.
TEST_P(HttpClientTest, EveryReplyArrivesWithOrWithoutWakeUpBatching) {
  SimServer sim;
  const int port = StartSim(sim, {.latency_ms = 5});
  ASSERT_NE(port, 0);
  for (const absl::Duration window : {absl::ZeroDuration(), absl::Milliseconds(20)}) {
    ThreadPool executor(2);
    HttpClientOptions options;
    options.executor = &executor;
    options.builtin_http1 = GetParam();
    options.batch_window = window;
    absl::StatusOr<std::unique_ptr<HttpClient>> client = HttpClient::Create(options);
    ASSERT_TRUE(client.ok()) << client.status();
    constexpr int kRequests = 200;
    absl::BlockingCounter done(kRequests + 1);
    std::atomic<int> ok{0};
    for (int i = 0; i < kRequests; ++i) {
      HttpRequest request = SimChat(port);
      (*client)->Send(std::move(request), [&](absl::StatusOr<HttpResponse> r) {
        if (r.ok() && r->status == 200) ok.fetch_add(1);
        done.DecrementCount();
      });
    }
    (*client)->RunAfter(absl::Milliseconds(1), [&] { done.DecrementCount(); });
    done.Wait();
    EXPECT_EQ(ok.load(), kRequests) << "window " << window;
    EXPECT_EQ((*client)->Stats().in_flight, 0);
  }
}

TEST_P(HttpClientTest, UnsupportedSchemeIsInternal) {
  ThreadPool executor(2);
  auto client = MakeClient(&executor);
  absl::StatusOr<HttpResponse> r = SendAndWait(*client, Get("gopherx://127.0.0.1/x"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInternal) << r.status();
}

TEST_P(HttpClientTest, ManyConcurrentRequestsReuseConnections) {
  SimServer sim;
  const int port = StartSim(sim, {.latency_ms = 20, .threads = 64});
  ASSERT_NE(port, 0);
  ThreadPool executor(2);
  constexpr int kPerHost = 32;
  auto client = MakeClient(&executor, kPerHost);

  constexpr int kRequests = 600;
  absl::BlockingCounter done(kRequests);
  absl::Mutex mu;
  int ok = 0;
  std::vector<std::string> errors;
  for (int i = 0; i < kRequests; ++i) {
    HttpRequest request = SimChat(port);
    client->Send(std::move(request), [&](absl::StatusOr<HttpResponse> r) {
      {
        absl::MutexLock lock(&mu);
        if (r.ok() && r->status == 200 && r->body.find("choices") != std::string::npos) {
          ++ok;
        } else {
          errors.push_back(r.ok() ? std::to_string(r->status) : r.status().ToString());
        }
      }
      done.DecrementCount();
    });
  }
  done.Wait();
  EXPECT_EQ(ok, kRequests) << (errors.empty() ? "" : errors.front());
  const HttpClientStats stats = client->Stats();
  EXPECT_EQ(stats.requests, kRequests);
  EXPECT_EQ(stats.in_flight, 0);
  EXPECT_EQ(stats.transport_errors, 0);
  EXPECT_GE(stats.connections_opened, 1);
  EXPECT_LE(stats.connections_opened, kPerHost + 4);
  EXPECT_EQ(sim.stats().chat, kRequests);
}

TEST_P(HttpClientTest, RunAfterRunsInDueOrderOnTheExecutor) {
  ThreadPool executor(1);  // one thread: the order of execution is the order of scheduling
  auto client = MakeClient(&executor);
  absl::Mutex mu;
  std::vector<int> order;
  absl::BlockingCounter done(4);
  auto record = [&](int id) {
    return [&, id] {
      {
        absl::MutexLock lock(&mu);
        order.push_back(id);
      }
      done.DecrementCount();
    };
  };
  client->RunAfter(absl::Milliseconds(60), record(3));
  client->RunAfter(absl::Milliseconds(20), record(1));
  client->RunAfter(absl::Milliseconds(40), record(2));
  client->RunAfter(absl::ZeroDuration(), record(0));
  done.Wait();
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3}));
}

// GET /hang answers only when released (or after 30 s): a request in flight for as long as a test needs.
class HangingServer {
 public:
  HangingServer() {
    server_.server().Get("/hang", [this](const httplib::Request&, httplib::Response& res) {
      arrived_.Notify();
      release_.WaitForNotificationWithTimeout(absl::Seconds(30));
      res.set_content("late", "text/plain");
    });
    server_.Start();
  }
  ~HangingServer() { release_.Notify(); }
  std::string url() { return server_.Url("/hang"); }
  void WaitUntilArrived() { arrived_.WaitForNotification(); }

 private:
  absl::Notification release_;
  absl::Notification arrived_;
  TestHttpServer server_;  // last: stops (joining its handlers) before the notifications go
};

// One request to /hang and one timer an hour away; Wait() returns once both ran, and the request's status.
struct HangingCall {
  absl::Notification done, timer_ran;
  absl::Status status;
  void Start(HttpClient& client, HangingServer& server) {
    client.Send(Get(server.url()), [this](absl::StatusOr<HttpResponse> r) {
      status = r.status();
      done.Notify();
    });
    client.RunAfter(absl::Hours(1), [this] { timer_ran.Notify(); });
  }
  absl::Status Wait() {
    done.WaitForNotification();
    timer_ran.WaitForNotification();
    return status;
  }
};

TEST_P(HttpClientTest, DestructorCancelsTransfersAndRunsTimers) {
  HangingServer server;
  ThreadPool executor(2);
  HangingCall call;
  {
    auto client = MakeClient(&executor);
    call.Start(*client, server);
    server.WaitUntilArrived();
  }
  const absl::Status status = call.Wait();
  EXPECT_EQ(status.code(), absl::StatusCode::kCancelled) << status;
}

TEST_P(HttpClientTest, AbortCancelsTransfersTimersAndLaterRequests) {
  HangingServer server;
  ThreadPool executor(2);
  auto client = MakeClient(&executor);
  HangingCall first;
  first.Start(*client, server);
  server.WaitUntilArrived();
  client->Abort();
  const absl::Status aborted = first.Wait();
  EXPECT_EQ(aborted.code(), absl::StatusCode::kCancelled) << aborted;
  // The client stays usable as an object: later requests fail at once, later timers run at once.
  HangingCall later;
  later.Start(*client, server);
  const absl::Status refused = later.Wait();
  EXPECT_EQ(refused.code(), absl::StatusCode::kCancelled) << refused;
}

// Not a timing assertion: reports the loop thread's CPU per request with 600 requests in flight.
TEST_P(HttpClientTest, LoopCpuPerRequestAtHighConcurrency) {
  SimServer sim;
  const int port = StartSim(sim, {.latency_ms = 50, .threads = 640});
  ASSERT_NE(port, 0);
  ThreadPool executor(2);
  auto client = MakeClient(&executor, 640);
  const std::string url = "http://127.0.0.1:" + std::to_string(port) + "/v1/embeddings";

  // The loop thread's CPU time in ns, from /proc (it names itself ng-http-loop).
  auto loop_cpu_ns = [] {
    int64_t total = -1;
    DIR* dir = opendir("/proc/self/task");
    if (dir == nullptr) return total;
    while (dirent* entry = readdir(dir)) {
      const std::string task = std::string("/proc/self/task/") + entry->d_name;
      std::ifstream comm(task + "/comm");
      std::string name;
      if (!std::getline(comm, name) || name != "ng-http-loop") continue;
      std::ifstream schedstat(task + "/schedstat");
      schedstat >> total;
    }
    closedir(dir);
    return total;
  };

  constexpr int kInFlight = 600;
  constexpr int kRounds = 20;
  // Keep kInFlight requests outstanding: each completion sends the next, until the total is reached.
  std::atomic<int> sent{0};
  absl::BlockingCounter done(kInFlight * kRounds);
  std::atomic<int> failures{0};
  std::function<void()> send_one = [&] {
    if (sent.fetch_add(1) >= kInFlight * kRounds) return;
    HttpRequest request;
    request.url = url;
    request.body = R"({"model":"lexical-64","input":"a brick"})";
    client->Send(std::move(request), [&](absl::StatusOr<HttpResponse> r) {
      if (!r.ok() || r->status != 200) failures.fetch_add(1);
      send_one();
      done.DecrementCount();
    });
  };
  ASSERT_TRUE(SendAndWait(*client, Get("http://127.0.0.1:" + std::to_string(port) + "/health")).ok());  // loop named
  const int64_t before = loop_cpu_ns();
  for (int i = 0; i < kInFlight; ++i) send_one();
  done.Wait();
  const int64_t after = loop_cpu_ns();
  EXPECT_EQ(failures.load(), 0);
  if (before >= 0 && after >= 0) {
    std::printf("http loop thread: %.1f us CPU per request (%d requests, %d in flight, %lld connections)\n",
                (after - before) / 1e3 / (kInFlight * kRounds), kInFlight * kRounds, kInFlight,
                static_cast<long long>(client->Stats().connections_opened));
  }
}

INSTANTIATE_TEST_SUITE_P(Engines, HttpClientTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) { return info.param ? "builtin" : "curl"; });

}  // namespace
}  // namespace noveltygrid
