// ProviderChannel over real loopback HTTP: replies, token accounting, retries and error classes
// (authentication and keys: provider_channel_key_test.cc; the fixture: provider_channel_fixture.h).
#include "tests/worker/http/provider_channel_fixture.h"

namespace noveltygrid::provider_channel_testing {
namespace {

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
  // The second reply has no usage: it counts as its reservation, the request's estimate.
  EXPECT_EQ(limiter_.released(), (std::vector<int64_t>{11, EstimateRequestTokens(server.last_body())}));
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

  // Without a token limit the estimate is reserved still, for a limit learned from the provider's
  // headers to count; with learn_limits: false nothing is estimated or reserved.
  ProviderConfig learning = Config(server.base_url());
  ASSERT_TRUE(learning.learn_limits);
  auto unlimited = Make(learning);
  ASSERT_TRUE(Call(*unlimited, body).reply.ok());
  EXPECT_EQ(limiter_.reserves().back(), estimate);
  learning.learn_limits = false;
  auto fixed = Make(learning);
  ASSERT_TRUE(Call(*fixed, body).reply.ok());
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

TEST_F(ProviderChannelTest, WaitsCountCallsInFlightAndRetryingUntilTheyEnd) {
  server_.Push({503, R"({"error":{"message":"overloaded","type":"server_error"}})", {}});
  server_.Push({0, "", {}});  // the retry hangs
  auto channel = Make(Config(server_.base_url()));
  EXPECT_EQ(channel->Waits().in_flight, 0);
  auto done = std::make_shared<absl::Notification>();
  channel->PostJson("/chat/completions", Json::object({{"model", "m"}}),
                    [done](absl::StatusOr<Json>, CallInfo) { done->Notify(); });
  for (const absl::Time deadline = absl::Now() + absl::Seconds(10); server_.requests() < 2 && absl::Now() < deadline;) {
    absl::SleepFor(absl::Milliseconds(1));  // between polls of the condition
  }
  ASSERT_EQ(server_.requests(), 2);
  const CallWaits waiting = channel->Waits();
  EXPECT_EQ(waiting.in_flight, 1);
  EXPECT_EQ(waiting.retrying, 1);
  EXPECT_EQ(waiting.limited, 0);
  EXPECT_GE(waiting.oldest, absl::ZeroDuration());
  http_->Abort();  // the hung attempt and its retries fail at once: the call ends
  ASSERT_TRUE(done->WaitForNotificationWithTimeout(absl::Seconds(10)));
  const CallWaits ended = channel->Waits();
  EXPECT_EQ(ended.in_flight, 0);
  EXPECT_EQ(ended.retrying, 0);
  EXPECT_EQ(ended.oldest, absl::ZeroDuration());
}

}  // namespace
}  // namespace noveltygrid::provider_channel_testing
