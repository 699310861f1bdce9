// ProviderChannel over real loopback HTTP: a scripted server for exact replies, the simulated model
// server for authentication and injected faults, and a fake limiter that records what it is charged.
#include "worker/http/provider_channel.h"

#include <unistd.h>

#include <cstdio>
#include <deque>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/blocking_counter.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim_server/sim_server.h"
#include "tests/worker/http/test_http_server.h"
#include "worker/http/token_estimate.h"

namespace noveltygrid {
namespace {

using testing::RefusingPort;
using testing::TestHttpServer;

constexpr char kKey[] = "sk-test-DISTINCTIVE-9f3a7c";

// Admits at once (on the executor) and records every Release.
class FakeLimiter : public ProviderLimiter {
 public:
  explicit FakeLimiter(Executor* executor) : executor_(executor) {}
  using ProviderLimiter::Acquire;
  void Acquire(absl::AnyInvocable<void(TokenReservation) &&> go, int64_t reserve_tokens) override {
    absl::MutexLock lock(&mu_);
    ++admitted_;
    reserves_.push_back(reserve_tokens);
    executor_->Schedule(
        [go = std::move(go), r = TokenReservation{reserve_tokens, kMinute}]() mutable { std::move(go)(r); });
  }
  void Release(int64_t tokens, TokenReservation reserved) override {
    absl::MutexLock lock(&mu_);
    released_.push_back(tokens);
    settled_.push_back(reserved);
  }
  static constexpr int64_t kMinute = 29'000'000;
  std::vector<int64_t> reserves() const {
    absl::MutexLock lock(&mu_);
    return reserves_;
  }
  std::vector<TokenReservation> settled() const {
    absl::MutexLock lock(&mu_);
    return settled_;
  }
  ProviderLimiterStats Stats() const override {
    absl::MutexLock lock(&mu_);
    ProviderLimiterStats s;
    s.admitted = admitted_;
    s.in_flight = admitted_ - static_cast<int64_t>(released_.size());
    return s;
  }
  void Pump() override {}
  std::vector<int64_t> released() const {
    absl::MutexLock lock(&mu_);
    return released_;
  }

 private:
  Executor* const executor_;
  mutable absl::Mutex mu_;
  int64_t admitted_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<int64_t> released_ ABSL_GUARDED_BY(mu_);
  std::vector<int64_t> reserves_ ABSL_GUARDED_BY(mu_);
  std::vector<TokenReservation> settled_ ABSL_GUARDED_BY(mu_);
};

struct Scripted {
  int status = 200;
  std::string body = R"({"choices":[{"message":{"content":"ok"}}],"usage":{"total_tokens":42}})";
  std::map<std::string, std::string> headers;
};

// Serves POST /v1/chat/completions from a script (then the default reply); counts requests and
// remembers the last Authorization and Content-Type headers.
class ScriptedProvider {
 public:
  ScriptedProvider() {
    server_.server().Post("/v1/chat/completions", [this](const httplib::Request& req, httplib::Response& res) {
      Scripted reply;
      {
        absl::MutexLock lock(&mu_);
        ++requests_;
        authorization_ = req.get_header_value("Authorization");
        content_type_ = req.get_header_value("Content-Type");
        last_body_ = req.body;
        if (!script_.empty()) {
          reply = script_.front();
          script_.pop_front();
        }
      }
      if (reply.status == 0) {  // hang until released
        release_.WaitForNotificationWithTimeout(absl::Seconds(30));
        reply = Scripted();
      }
      res.status = reply.status;
      for (const auto& [name, value] : reply.headers) res.set_header(name, value);
      res.set_content(reply.body, "application/json");
    });
    server_.Start();
  }
  ~ScriptedProvider() { release_.Notify(); }

  void Push(Scripted reply) {
    absl::MutexLock lock(&mu_);
    script_.push_back(std::move(reply));
  }
  void PushMany(int n, const Scripted& reply) {
    for (int i = 0; i < n; ++i) Push(reply);
  }
  int requests() const {
    absl::MutexLock lock(&mu_);
    return requests_;
  }
  std::string authorization() const {
    absl::MutexLock lock(&mu_);
    return authorization_;
  }
  std::string content_type() const {
    absl::MutexLock lock(&mu_);
    return content_type_;
  }
  std::string last_body() const {
    absl::MutexLock lock(&mu_);
    return last_body_;
  }
  std::string base_url() const { return server_.Url("/v1"); }

 private:
  TestHttpServer server_;
  absl::Notification release_;
  mutable absl::Mutex mu_;
  std::deque<Scripted> script_ ABSL_GUARDED_BY(mu_);
  int requests_ ABSL_GUARDED_BY(mu_) = 0;
  std::string authorization_ ABSL_GUARDED_BY(mu_);
  std::string content_type_ ABSL_GUARDED_BY(mu_);
  std::string last_body_ ABSL_GUARDED_BY(mu_);
};

ProviderConfig Config(const std::string& base_url, int max_retries = 3) {
  ProviderConfig config;
  config.name = "test";
  config.base_url = base_url;
  config.api_key_env = "TEST_PROVIDER_KEY";
  config.max_retries = max_retries;
  config.initial_backoff = absl::Milliseconds(1);
  config.max_backoff = absl::Milliseconds(4);
  config.timeout = absl::Seconds(20);
  return config;
}

SecretLookup Env(std::map<std::string, std::string> values) {
  return [values = std::move(values)](const std::string& name) -> std::optional<std::string> {
    auto it = values.find(name);
    if (it == values.end()) return std::nullopt;
    return it->second;
  };
}

struct Result {
  absl::StatusOr<Json> reply;
  CallInfo info;
  std::thread::id thread;
};

class ProviderChannelTest : public ::testing::Test {
 protected:
  std::unique_ptr<ProviderChannel> Make(const ProviderConfig& config) {
    absl::StatusOr<std::unique_ptr<ProviderChannel>> channel = ProviderChannel::Create(
        config, http_.get(), &limiter_, &executor_, Env({{"TEST_PROVIDER_KEY", std::string("  ") + kKey + "\n"}}),
        /*max_hint=*/absl::Milliseconds(5));
    EXPECT_TRUE(channel.ok()) << channel.status();
    return channel.ok() ? *std::move(channel) : nullptr;
  }

  // For tests with a server of their own: close the connections before that server stops.
  void CloseClient() { http_.reset(); }

  Result Call(ProviderChannel& channel, Json body = Json::object({{"model", "m"}, {"n", 1}})) {
    absl::Notification done;
    Result result{absl::UnknownError("no reply"), {}, {}};
    channel.PostJson("/chat/completions", std::move(body), [&](absl::StatusOr<Json> reply, CallInfo info) {
      result = Result{std::move(reply), info, std::this_thread::get_id()};
      done.Notify();
    });
    done.WaitForNotification();
    if (!result.reply.ok()) {  // the key never shows in a Status
      EXPECT_EQ(result.reply.status().message().find(kKey), std::string::npos) << result.reply.status();
    }
    return result;
  }

  // Destroyed in reverse: the client first (closing its keep-alive connections, so the servers stop
  // at once), the executor last.
  ThreadPool executor_{2};
  ScriptedProvider server_;
  FakeLimiter limiter_{&executor_};
  std::unique_ptr<HttpClient> http_ = [this] {
    HttpClientOptions options;
    options.executor = &executor_;
    return *HttpClient::Create(options);
  }();
};

TEST_F(ProviderChannelTest, SuccessSendsKeyAndJsonAndChargesTokens) {
  ScriptedProvider& server = server_;
  auto channel = Make(Config(server.base_url() + "/"));  // a trailing slash is tolerated
  Result r = Call(*channel, Json::object({{"model", "gpt"}, {"temperature", 0.5}}));
  ASSERT_TRUE(r.reply.ok()) << r.reply.status();
  EXPECT_EQ((*r.reply)["choices"][0]["message"]["content"], "ok");
  EXPECT_EQ(r.info.attempts, 1);
  EXPECT_EQ(r.info.retries(), 0);
  EXPECT_NE(r.thread, std::this_thread::get_id());
  EXPECT_EQ(server.authorization(), std::string("Bearer ") + kKey);
  EXPECT_EQ(server.content_type(), "application/json");
  EXPECT_EQ(server.last_body(), R"({"model":"gpt","temperature":0.5})");
  EXPECT_EQ(limiter_.released(), (std::vector<int64_t>{42}));
  EXPECT_EQ(channel->config().name, "test");
}

TEST_F(ProviderChannelTest, PromptPlusCompletionTokensWithoutTotal) {
  ScriptedProvider& server = server_;
  server.Push({200, R"({"data":[],"usage":{"prompt_tokens":5,"completion_tokens":6}})", {}});
  server.Push({200, R"({"data":[]})", {}});
  auto channel = Make(Config(server.base_url()));
  ASSERT_TRUE(Call(*channel).reply.ok());
  ASSERT_TRUE(Call(*channel).reply.ok());
  EXPECT_EQ(limiter_.released(), (std::vector<int64_t>{11, 0}));
}

TEST_F(ProviderChannelTest, UnderATokenLimitEachAttemptReservesTheRequestsEstimate) {
  ScriptedProvider& server = server_;
  server.Push({503, R"({"error":{"message":"overloaded","type":"server_error"}})", {}});
  ProviderConfig config = Config(server.base_url());
  config.limits.tokens_per_minute = 100'000;
  auto channel = Make(config);
  const Json body = Json::object({{"model", "m"}, {"max_tokens", 300}, {"n", 4}});
  ASSERT_TRUE(Call(*channel, body).reply.ok());
  const int64_t estimate = EstimateRequestTokens(server.last_body());
  EXPECT_EQ(estimate, (static_cast<int64_t>(server.last_body().size()) + 3) / 4 + 1200);
  EXPECT_EQ(limiter_.reserves(), (std::vector<int64_t>{estimate, estimate}));  // the retry reserves again
  EXPECT_EQ(limiter_.released(), (std::vector<int64_t>{0, 42}));
  for (const TokenReservation& settled : limiter_.settled()) {
    EXPECT_EQ(settled.tokens, estimate);
    EXPECT_EQ(settled.minute, FakeLimiter::kMinute);
  }

  // Without a token limit nothing is estimated or reserved.
  auto unlimited = Make(Config(server.base_url()));
  ASSERT_TRUE(Call(*unlimited, body).reply.ok());
  EXPECT_EQ(limiter_.reserves().back(), 0);
  EXPECT_EQ(limiter_.settled().back().tokens, 0);

  // A reply without usage counts as having used its reservation; an estimate above the limit is
  // capped at it.
  server.Push({200, R"({"choices":[{"message":{"content":"no usage"}}]})", {}});
  config.limits.tokens_per_minute = 50;
  auto capped = Make(config);
  ASSERT_TRUE(Call(*capped, body).reply.ok());
  EXPECT_EQ(limiter_.reserves().back(), 50);
  EXPECT_EQ(limiter_.released().back(), 50);
}

TEST_F(ProviderChannelTest, RetriesTransientFailuresThenSucceeds) {
  ScriptedProvider& server = server_;
  server.Push({503, R"({"error":{"message":"overloaded","type":"server_error"}})", {{"Retry-After", "1"}}});
  server.Push({429, R"({"error":{"message":"slow down","code":"rate_limit_exceeded"}})", {{"retry-after-ms", "3"}}});
  server.Push({200, "<html>bad gateway</html>", {}});
  server.Push({200, R"({"choices":[{"mess)", {}});
  server.Push({200, R"({"error":{"message":"upstream","type":"server_error"}})", {}});
  server.Push({408, "", {}});
  auto channel = Make(Config(server.base_url(), /*max_retries=*/6));
  Result r = Call(*channel);
  ASSERT_TRUE(r.reply.ok()) << r.reply.status();
  EXPECT_EQ(r.info.attempts, 7);
  EXPECT_EQ(r.info.retries(), 6);
  EXPECT_EQ(server.requests(), 7);
  EXPECT_EQ(limiter_.released(), (std::vector<int64_t>{0, 0, 0, 0, 0, 0, 42}));
  const ProviderChannelStats stats = channel->Stats();
  EXPECT_EQ(stats.calls, 1);
  EXPECT_EQ(stats.attempts, 7);
  EXPECT_EQ(stats.retries, 6);
  EXPECT_EQ(stats.failures, 0);
}

TEST_F(ProviderChannelTest, GivesUpAfterMaxRetriesWithTheLastError) {
  ScriptedProvider& server = server_;
  server.Push({500, R"({"error":{"message":"first failure"}})", {}});
  server.Push({500, R"({"error":{"message":"second failure"}})", {}});
  server.Push({502, R"({"error":{"message":"last failure"}})", {}});
  auto channel = Make(Config(server.base_url(), /*max_retries=*/2));
  Result r = Call(*channel);
  ASSERT_FALSE(r.reply.ok());
  EXPECT_EQ(r.reply.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(r.reply.status().message(), "provider 'test': gave up after 3 attempts: HTTP 502: last failure");
  EXPECT_EQ(r.info.attempts, 3);
  EXPECT_EQ(server.requests(), 3);
  EXPECT_EQ(channel->Stats().failures, 1);
}

TEST_F(ProviderChannelTest, TimeoutsGiveUpAsDeadlineExceeded) {
  ScriptedProvider& server = server_;
  server.Push({0, "", {}});  // hang
  server.Push({0, "", {}});
  ProviderConfig config = Config(server.base_url(), /*max_retries=*/1);
  config.timeout = absl::Milliseconds(100);
  auto channel = Make(config);
  Result r = Call(*channel);
  ASSERT_FALSE(r.reply.ok());
  EXPECT_EQ(r.reply.status().code(), absl::StatusCode::kDeadlineExceeded) << r.reply.status();
  EXPECT_NE(r.reply.status().message().find("provider 'test': gave up after 2 attempts: POST http://127.0.0.1:"),
            std::string::npos)
      << r.reply.status();
}

TEST_F(ProviderChannelTest, ConnectionRefusedIsRetriedThenUnavailable) {
  auto channel = Make(Config("http://127.0.0.1:" + std::to_string(RefusingPort()) + "/v1", /*max_retries=*/2));
  Result r = Call(*channel);
  ASSERT_FALSE(r.reply.ok());
  EXPECT_EQ(r.reply.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(r.info.attempts, 3);
}

TEST_F(ProviderChannelTest, PermanentErrorsFailAtOnce) {
  struct Case {
    Scripted reply;
    absl::StatusCode code;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{400, R"({"error":{"message":"Bad field 'x'"}})", {}},
       absl::StatusCode::kInvalidArgument,
       "provider 'test': HTTP 400: Bad field 'x'"},
      {{402, R"({"error":"Payment required"})", {}},
       absl::StatusCode::kResourceExhausted,
       "provider 'test': HTTP 402: Payment required"},
      {{404, R"({"error":{"message":"The model `m` does not exist"}})", {}},
       absl::StatusCode::kNotFound,
       "provider 'test': HTTP 404: The model `m` does not exist"},
      {{429,
        R"({"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}})",
        {{"Retry-After", "1"}}},
       absl::StatusCode::kResourceExhausted,
       "provider 'test': HTTP 429 insufficient_quota: You exceeded your current quota"},
      {{200, R"({"error":{"message":"context length exceeded","code":400}})", {}},
       absl::StatusCode::kInvalidArgument,
       "provider 'test': HTTP 200 with an error object: context length exceeded"},
  };
  ScriptedProvider& server = server_;
  auto channel = Make(Config(server.base_url()));
  int expected_requests = 0;
  for (const Case& c : cases) {
    server.Push(c.reply);
    Result r = Call(*channel);
    ++expected_requests;
    ASSERT_FALSE(r.reply.ok());
    EXPECT_EQ(r.reply.status().code(), c.code) << r.reply.status();
    EXPECT_EQ(r.reply.status().message(), c.message);
    EXPECT_EQ(r.info.attempts, 1);
    EXPECT_EQ(server.requests(), expected_requests);  // none of these latches: each call sends
  }
  EXPECT_TRUE(Call(*channel).reply.ok());
}

TEST_F(ProviderChannelTest, ForbiddenFailsTheCallButDoesNotLatch) {
  ScriptedProvider& server = server_;
  server.Push({403, R"({"error":{"message":"Project does not have access to model"}})", {}});
  server.Push({200, R"({"ok":true})", {}});
  auto channel = Make(Config(server.base_url()));
  Result first = Call(*channel);
  ASSERT_FALSE(first.reply.ok());
  EXPECT_EQ(first.reply.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(first.info.attempts, 1);  // not retried
  Result second = Call(*channel);     // another model or request may well be allowed
  EXPECT_TRUE(second.reply.ok()) << second.reply.status();
  EXPECT_EQ(server.requests(), 2);
}

// A wrong key against the simulated server's real auth: one request, then every call fails at once.
TEST_F(ProviderChannelTest, WrongKeyLatchesAndStopsSending) {
  SimServer sim;
  SimServerOptions options;
  options.api_key = "the-right-key";
  absl::StatusOr<int> port = sim.Start(options);
  ASSERT_TRUE(port.ok()) << port.status();
  auto channel = Make(Config("http://127.0.0.1:" + std::to_string(*port) + "/v1"));
  const Json body = Json::parse(R"({"model":"sim:explorer","messages":[{"role":"user","content":"hi"}]})");

  Result first = Call(*channel, body);
  ASSERT_FALSE(first.reply.ok());
  EXPECT_EQ(first.reply.status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_THAT(std::string(first.reply.status().message()),
              ::testing::StartsWith("provider 'test': HTTP 401: Incorrect API key provided (the key from $"));
  EXPECT_EQ(first.info.attempts, 1);

  // Concurrent calls after the latch: none sends.
  constexpr int kCalls = 20;
  absl::BlockingCounter done(kCalls);
  absl::Mutex mu;
  std::vector<Result> results;
  for (int i = 0; i < kCalls; ++i) {
    channel->PostJson("/chat/completions", body, [&](absl::StatusOr<Json> reply, CallInfo info) {
      {
        absl::MutexLock lock(&mu);
        results.push_back(Result{std::move(reply), info, std::this_thread::get_id()});
      }
      done.DecrementCount();
    });
  }
  done.Wait();
  for (const Result& r : results) {
    EXPECT_EQ(r.reply.status(), first.reply.status());
    EXPECT_EQ(r.reply.status().message().find(kKey), std::string::npos);
    EXPECT_EQ(r.info.attempts, 0);
    EXPECT_NE(r.thread, std::this_thread::get_id());  // on the executor, not the caller's stack
  }
  // The 401 counts nowhere past the key check, so look at the limiter instead: one request only.
  EXPECT_EQ(limiter_.released().size(), 1u);
  EXPECT_EQ(channel->Stats().attempts, 1);
  EXPECT_EQ(channel->Stats().failures, 1 + kCalls);
  CloseClient();
}

// The right key against the simulated server with every kind of fault: all calls succeed in the end.
TEST_F(ProviderChannelTest, SurvivesInjectedFaults) {
  SimServer sim;
  SimServerOptions options;
  options.api_key = kKey;
  options.fault_rate = 0.3;
  options.faults = {SimFault::kRateLimit, SimFault::kServerError, SimFault::kMalformed, SimFault::kTruncated};
  options.seed = 7;
  absl::StatusOr<int> port = sim.Start(options);
  ASSERT_TRUE(port.ok()) << port.status();
  auto channel = Make(Config("http://127.0.0.1:" + std::to_string(*port) + "/v1", /*max_retries=*/20));
  constexpr int kCalls = 100;
  absl::BlockingCounter done(kCalls);
  std::atomic<int> ok{0};
  std::atomic<int> attempts{0};
  for (int i = 0; i < kCalls; ++i) {
    Json body =
        Json::parse(R"({"model":"sim:explorer","messages":[{"role":"user","content":"Name a use for a brick."}]})");
    body["seed"] = i;
    channel->PostJson("/chat/completions", std::move(body), [&](absl::StatusOr<Json> reply, CallInfo info) {
      if (reply.ok() && reply->contains("choices")) ok.fetch_add(1);
      attempts.fetch_add(info.attempts);
      done.DecrementCount();
    });
  }
  done.Wait();
  EXPECT_EQ(ok.load(), kCalls);
  EXPECT_GT(sim.stats().faults_injected, 0);
  EXPECT_EQ(attempts.load(), kCalls + sim.stats().faults_injected);
  EXPECT_EQ(channel->Stats().retries, sim.stats().faults_injected);
  CloseClient();
}

TEST_F(ProviderChannelTest, MissingKeyVariableFailsNamingItButNoValue) {
  ProviderConfig config = Config("http://127.0.0.1:1/v1");
  for (const SecretLookup& env : {Env({}), Env({{"TEST_PROVIDER_KEY", "   "}})}) {
    absl::StatusOr<std::unique_ptr<ProviderChannel>> channel =
        ProviderChannel::Create(config, http_.get(), &limiter_, &executor_, env);
    ASSERT_FALSE(channel.ok());
    EXPECT_EQ(channel.status().code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_NE(channel.status().message().find("TEST_PROVIDER_KEY"), std::string::npos) << channel.status();
    EXPECT_NE(channel.status().message().find("provider 'test'"), std::string::npos) << channel.status();
  }
  // The process environment by default.
  config.api_key_env = "NOVELTYGRID_HTTP_TEST_SURELY_UNSET_VARIABLE";
  absl::StatusOr<std::unique_ptr<ProviderChannel>> channel =
      ProviderChannel::Create(config, http_.get(), &limiter_, &executor_);
  ASSERT_FALSE(channel.ok());
  EXPECT_NE(channel.status().message().find("NOVELTYGRID_HTTP_TEST_SURELY_UNSET_VARIABLE"), std::string::npos);
}

TEST_F(ProviderChannelTest, KeyFromFileFirstLineTrimmed) {
  ScriptedProvider& server = server_;
  const std::string path = ::testing::TempDir() + "/http_test_key_" + std::to_string(::getpid());
  {
    std::ofstream out(path);
    out << "  " << kKey << "-file \r\nsecond line\n";
  }
  ProviderConfig config = Config(server.base_url());
  config.api_key_env.clear();
  config.api_key_file = path;
  absl::StatusOr<std::unique_ptr<ProviderChannel>> channel =
      ProviderChannel::Create(config, http_.get(), &limiter_, &executor_);
  ASSERT_TRUE(channel.ok()) << channel.status();
  ASSERT_TRUE(Call(**channel).reply.ok());
  EXPECT_EQ(server.authorization(), std::string("Bearer ") + kKey + "-file");
  std::remove(path.c_str());

  config.api_key_file = path + ".missing";
  channel = ProviderChannel::Create(config, http_.get(), &limiter_, &executor_);
  ASSERT_FALSE(channel.ok());
  EXPECT_EQ(channel.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(channel.status().message().find(config.api_key_file), std::string::npos) << channel.status();
}

TEST_F(ProviderChannelTest, NoKeyConfiguredSendsNoAuthorization) {
  ScriptedProvider& server = server_;
  ProviderConfig config = Config(server.base_url());
  config.api_key_env.clear();
  absl::StatusOr<std::unique_ptr<ProviderChannel>> channel =
      ProviderChannel::Create(config, http_.get(), nullptr, &executor_);  // no limiter either
  ASSERT_TRUE(channel.ok()) << channel.status();
  ASSERT_TRUE(Call(**channel).reply.ok());
  EXPECT_EQ(server.authorization(), "");
}

// With no limit configured the channel takes its slot from the limiter at once (AcquireNow) and sends
// from the caller's thread; the limiter still counts the request and its release.
TEST_F(ProviderChannelTest, UnlimitedLimiterSendsWithoutWaitingAndCountsTheCall) {
  ScriptedProvider& server = server_;
  ProviderLimiterOptions options;
  options.provider = "test";
  options.executor = &executor_;
  absl::StatusOr<std::unique_ptr<ProviderLimiter>> limiter = MakeProviderLimiter(options);
  ASSERT_TRUE(limiter.ok()) << limiter.status();
  absl::StatusOr<std::unique_ptr<ProviderChannel>> channel = ProviderChannel::Create(
      Config(server.base_url()), http_.get(), limiter->get(), &executor_, Env({{"TEST_PROVIDER_KEY", kKey}}));
  ASSERT_TRUE(channel.ok()) << channel.status();
  for (int i = 0; i < 3; ++i) {
    Result r = Call(**channel);
    ASSERT_TRUE(r.reply.ok()) << r.reply.status();
    EXPECT_NE(r.thread, std::this_thread::get_id());  // the reply still comes on the executor
  }
  const ProviderLimiterStats stats = (*limiter)->Stats();
  EXPECT_EQ(stats.admitted, 3);
  EXPECT_EQ(stats.in_flight, 0);
  EXPECT_EQ(stats.waiting, 0);
  CloseClient();
}

}  // namespace
}  // namespace noveltygrid
