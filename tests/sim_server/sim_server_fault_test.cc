// SimServer's injected faults, waiting requests, API key, start/stop and options over real loopback
// HTTP (raw sockets where the bytes matter).
#include <algorithm>

#include "tests/sim_server/sim_server_fixture.h"

namespace noveltygrid::sim_server_testing {
namespace {

SimServerOptions FaultOptions(SimFault fault) {
  SimServerOptions options;
  options.fault_rate = 1.0;
  options.faults = {fault};
  return options;
}

TEST(SimServer, Fault429HasRetryHeaders) {
  Running sim(FaultOptions(SimFault::kRateLimit));
  httplib::Result result = sim.Post("/v1/chat/completions", kChatBody);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, 429);
  EXPECT_EQ(result->get_header_value("Retry-After"), "1");
  EXPECT_EQ(result->get_header_value("retry-after-ms"), "200");
  EXPECT_TRUE(Parse(result)["error"]["message"].is_string());
  // Never on /stats or /health.
  json stats = Parse(sim.Get("/stats"));
  EXPECT_EQ(stats["faults_injected"], 1);
  EXPECT_EQ(stats["chat"], 1);
  EXPECT_EQ(sim.Get("/health")->status, 200);
}

TEST(SimServer, Fault500) {
  Running sim(FaultOptions(SimFault::kServerError));
  httplib::Result result = sim.Post("/v1/embeddings", R"({"model":"lexical","input":"x"})");
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, 500);
  EXPECT_TRUE(Parse(result).contains("error"));
}

TEST(SimServer, FaultMalformedIs200WithNonJsonBody) {
  Running sim(FaultOptions(SimFault::kMalformed));
  httplib::Result result = sim.Post("/v1/chat/completions", kChatBody);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, 200);
  EXPECT_TRUE(json::parse(result->body, nullptr, false).is_discarded());
}

TEST(SimServer, FaultTruncatedIsFirstHalfOfTheRealBody) {
  Running clean;
  Running sim(FaultOptions(SimFault::kTruncated));
  const std::string full = clean.Post("/v1/chat/completions", kChatBody)->body;
  httplib::Result result = sim.Post("/v1/chat/completions", kChatBody);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, 200);
  EXPECT_EQ(result->body, full.substr(0, full.size() / 2));
  EXPECT_EQ(result->get_header_value("Content-Length"), std::to_string(full.size() / 2));
  EXPECT_TRUE(json::parse(result->body, nullptr, false).is_discarded());
}

TEST(SimServer, FaultTimeoutSendsNothingUntilStopped) {
  Running sim(FaultOptions(SimFault::kTimeout));
  sim.client().set_read_timeout(0, 200'000);
  httplib::Result result = sim.Post("/v1/chat/completions", kChatBody);
  EXPECT_FALSE(result);  // the client gave up; Stop (in the destructor) ends the server's wait
  EXPECT_EQ(sim.server().stats().faults_injected, 1);
}

TEST(SimServer, TimeoutFaultPromisesABodyAndDropsTheConnectionOnStop) {
  SimServer server;
  absl::StatusOr<int> port = server.Start(FaultOptions(SimFault::kTimeout));
  ASSERT_TRUE(port.ok()) << port.status();
  testing::RawHttpConnection c(*port);
  ASSERT_TRUE(c.Send(absl::StrCat("POST /v1/chat/completions HTTP/1.1\r\nContent-Length: ", std::strlen(kChatBody),
                                  "\r\n\r\n", kChatBody)));
  while (server.stats().faults_injected < 1) std::this_thread::yield();
  server.Stop();
  testing::RawResponse r = c.Read();
  EXPECT_EQ(r.status, 0);  // the body never came
  EXPECT_TRUE(r.HasHeader("HTTP/1.1 200 OK\r\n")) << r.head;
  EXPECT_TRUE(r.HasHeader("Content-Length: 1024\r\n")) << r.head;
  EXPECT_EQ(r.body, "");
}

// Waiting requests are timers on the event loop, not parked threads: one loop holds hundreds at once.
TEST(SimServer, OneLoopHoldsManyWaitingRequestsAndStopAnswersThem) {
  SimServerOptions options;
  options.threads = 1;
  options.latency_ms = 3'600'000;
  SimServer server;
  absl::StatusOr<int> port = server.Start(options);
  ASSERT_TRUE(port.ok()) << port.status();
  constexpr int kWaiting = 300;
  const std::string body = ChatBody("sim:steady", 0.5, 1).dump();
  std::vector<std::unique_ptr<testing::RawHttpConnection>> connections;
  for (int i = 0; i < kWaiting; ++i) {
    connections.push_back(std::make_unique<testing::RawHttpConnection>(*port));
    ASSERT_TRUE(connections.back()->Send(
        absl::StrCat("POST /v1/chat/completions HTTP/1.1\r\nContent-Length: ", body.size(), "\r\n\r\n", body)));
  }
  while (server.stats().chat < kWaiting) std::this_thread::yield();
  EXPECT_EQ(server.stats().in_flight_peak, kWaiting);
  server.Stop();
  for (auto& c : connections) {
    testing::RawResponse r = c->Read();
    EXPECT_EQ(r.status, 503);
    EXPECT_NE(r.body.find("shutting down"), std::string::npos) << r.body;
  }
}

TEST(SimServer, WrongMethodAndChunkedBodyAreRefused) {
  Running sim;
  httplib::Result get = sim.Get("/v1/chat/completions");
  ASSERT_TRUE(get);
  EXPECT_EQ(get->status, 404);
  EXPECT_NE(Parse(get)["error"]["message"].get<std::string>().find("GET /v1/chat/completions"), std::string::npos);
  testing::RawHttpConnection c(sim.port());
  ASSERT_TRUE(c.Send("POST /v1/embeddings HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"));
  testing::RawResponse r = c.Read();
  EXPECT_EQ(r.status, 411);
  json error = json::parse(r.body, nullptr, false);
  EXPECT_EQ(error["error"]["type"], "invalid_request_error") << r.body;
  EXPECT_EQ(sim.server().stats().embeddings, 0);
}

TEST(SimServer, FaultsAreDeterministicPerSeedAndSequence) {
  SimServerOptions options;
  options.fault_rate = 0.5;
  options.faults = {SimFault::kRateLimit, SimFault::kServerError};
  options.seed = 7;
  auto statuses = [&options] {
    Running sim(options);
    std::vector<int> out;
    for (int i = 0; i < 20; ++i) out.push_back(sim.Post("/v1/reward", R"({"prompt":"p","response":"r"})")->status);
    return out;
  };
  std::vector<int> first = statuses();
  EXPECT_EQ(first, statuses());
  EXPECT_NE(std::count(first.begin(), first.end(), 200), 0);
  EXPECT_NE(std::count(first.begin(), first.end(), 200), 20);
}

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) { setenv(name, value, 1); }
  ~ScopedEnv() { unsetenv(name_); }

 private:
  const char* name_;
};

TEST(SimServer, ApiKeyFromEnvironmentIsRequired) {
  ScopedEnv env("NOVELTYGRID_SIM_API_KEY", "sk-sim-secret");
  SimServerOptions options;
  options.api_key = SimApiKeyFromEnvironment();
  Running sim(options);
  for (const httplib::Headers& headers : {httplib::Headers{}, httplib::Headers{{"Authorization", "Bearer wrong"}},
                                          httplib::Headers{{"Authorization", "sk-sim-secret"}}}) {
    httplib::Result result = sim.Post("/v1/chat/completions", kChatBody, headers);
    ExpectError(result, 401, "invalid_api_key");
    EXPECT_EQ(result->body.find("sk-sim-secret"), std::string::npos);
  }
  ExpectError(sim.Post("/predict", R"({"inputs":[["a","b"]]})"), 401, "invalid_api_key");
  const httplib::Headers good = {{"Authorization", "Bearer sk-sim-secret"}};
  httplib::Result ok = sim.Post("/v1/chat/completions", kChatBody, good);
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200);
  EXPECT_EQ(ok->body.find("sk-sim-secret"), std::string::npos);
  EXPECT_EQ(sim.Get("/health")->status, 200);
  EXPECT_EQ(Parse(sim.Get("/stats"))["chat"], 1);  // rejected requests are not counted
}

TEST(SimServer, StopRightAfterStartAndTwice) {
  SimServer server;
  ASSERT_TRUE(server.Start({}).ok());
  server.Stop();
  server.Stop();
}

TEST(SimServer, BusyPortIsAnError) {
  Running first;
  SimServerOptions options;
  options.port = first.port();
  SimServer second;
  absl::StatusOr<int> port = second.Start(options);
  ASSERT_FALSE(port.ok());
  EXPECT_NE(port.status().message().find(std::to_string(first.port())), std::string::npos);
}

TEST(SimServer, RejectsBadOptions) {
  SimServerOptions options;
  options.fault_rate = 1.5;
  SimServer server;
  EXPECT_FALSE(server.Start(options).ok());
}

TEST(ParseSimFaults, KnownNamesAndErrors) {
  absl::StatusOr<std::vector<SimFault>> faults = ParseSimFaults("429, timeout,429");
  ASSERT_TRUE(faults.ok());
  EXPECT_EQ(*faults, (std::vector<SimFault>{SimFault::kRateLimit, SimFault::kTimeout}));
  EXPECT_EQ(ParseSimFaults("all")->size(), 5u);
  absl::StatusOr<std::vector<SimFault>> bad = ParseSimFaults("500,503");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("503"), std::string::npos);
}

}  // namespace
}  // namespace noveltygrid::sim_server_testing
