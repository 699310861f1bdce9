// ProviderChannel's API keys against real loopback servers: the simulated server's authentication
// and faults, keys from variables and files, no key, and the unlimited limiter's fast path.
#include "tests/worker/http/provider_channel_fixture.h"

namespace noveltygrid::provider_channel_testing {
namespace {

// A wrong key against the simulated server's real auth: one request, then every call fails at once.
TEST_F(ProviderChannelTest, WrongKeyLatchesAndStopsSending) {
  SimServer sim;
  absl::StatusOr<int> port = sim.Start({.api_key = "the-right-key"});
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
}  // namespace noveltygrid::provider_channel_testing
