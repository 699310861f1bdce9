// serve-sim's rate limits: the token buckets on a fake clock (RateLimiter), the header formats, and the
// server refusing the request past its limit with 429 and retry-after on both APIs.
#include "sim_server/rate_limiter.h"

#include "tests/sim_server/sim_server_fixture.h"

namespace noveltygrid::sim_server_testing {
namespace {

TEST(RateLimiter, RequestsPerMinuteCountDownAndRefillContinuously) {
  FakeClock clock;
  RateLimiter limiter({.requests_per_minute = 3}, &clock);
  for (int64_t remaining : {2, 1, 0}) {
    RateDecision d = limiter.Admit(0);
    ASSERT_TRUE(d.admitted);
    ASSERT_TRUE(d.requests.has_value());
    EXPECT_FALSE(d.tokens.has_value());
    EXPECT_EQ(d.requests->limit, 3);
    EXPECT_EQ(d.requests->remaining, remaining);
    EXPECT_EQ(d.requests->reset, absl::Seconds(20) * (3 - remaining));  // until full, at 1 per 20 s
  }
  RateDecision refused = limiter.Admit(0);
  EXPECT_FALSE(refused.admitted);
  EXPECT_EQ(refused.limited_by, "requests");
  EXPECT_EQ(refused.retry_after, absl::Seconds(20));
  EXPECT_EQ(refused.requests->remaining, 0);
  clock.Advance(absl::Seconds(19));
  EXPECT_FALSE(limiter.Admit(0).admitted);
  EXPECT_EQ(limiter.Admit(0).retry_after, absl::Seconds(1));  // refusals take nothing
  clock.Advance(absl::Seconds(1));
  RateDecision again = limiter.Admit(0);
  EXPECT_TRUE(again.admitted);
  EXPECT_EQ(again.requests->remaining, 0);
  clock.Advance(absl::Hours(1));  // never above the limit
  EXPECT_EQ(limiter.Admit(0).requests->remaining, 2);
}

TEST(RateLimiter, TokensPerMinuteChargeTheEstimate) {
  FakeClock clock;
  RateLimiter limiter({.requests_per_minute = 100, .tokens_per_minute = 600}, &clock);
  RateDecision first = limiter.Admit(500);
  ASSERT_TRUE(first.admitted);
  EXPECT_EQ(first.tokens->remaining, 100);
  EXPECT_EQ(first.tokens->reset, absl::Seconds(50));  // 500 tokens at 10 per second
  EXPECT_EQ(first.requests->remaining, 99);
  RateDecision refused = limiter.Admit(150);
  EXPECT_FALSE(refused.admitted);
  EXPECT_EQ(refused.limited_by, "tokens");
  EXPECT_EQ(refused.retry_after, absl::Seconds(5));
  EXPECT_EQ(refused.requests->remaining, 99);
  clock.Advance(absl::Seconds(5));
  EXPECT_TRUE(limiter.Admit(150).admitted);
  // Larger than the limit itself: refused, whatever the wait.
  clock.Advance(absl::Minutes(1));
  RateDecision too_large = limiter.Admit(601);
  EXPECT_FALSE(too_large.admitted);
  EXPECT_NE(too_large.message.find("more than the limit"), std::string::npos) << too_large.message;
  EXPECT_EQ(too_large.tokens->remaining, 600);
}

TEST(RateLimiter, NoLimitsAdmitEverything) {
  FakeClock clock;
  RateLimiter limiter({}, &clock);
  EXPECT_FALSE(limiter.enabled());
  RateDecision d = limiter.Admit(1'000'000);
  EXPECT_TRUE(d.admitted);
  EXPECT_FALSE(d.requests.has_value());
  EXPECT_FALSE(d.tokens.has_value());
  EXPECT_TRUE(OpenAiRateLimitHeaders(d).empty());
}

TEST(RateLimiter, DurationFormats) {
  EXPECT_EQ(OpenAiDuration(absl::ZeroDuration()), "0s");
  EXPECT_EQ(OpenAiDuration(absl::Milliseconds(120)), "120ms");
  EXPECT_EQ(OpenAiDuration(absl::Microseconds(1500)), "2ms");  // rounded up
  EXPECT_EQ(OpenAiDuration(absl::Seconds(1)), "1s");
  EXPECT_EQ(OpenAiDuration(absl::Milliseconds(59160)), "59.16s");
  EXPECT_EQ(OpenAiDuration(absl::Minutes(6)), "6m0s");
  EXPECT_EQ(OpenAiDuration(absl::Milliseconds(90500)), "1m30.5s");
  EXPECT_EQ(OpenAiDuration(absl::Hours(1)), "1h0m0s");
  EXPECT_EQ(SecondsToRetry(absl::Seconds(20)), "20");
  EXPECT_EQ(SecondsToRetry(absl::Milliseconds(200)), "1");
  EXPECT_EQ(SecondsToRetry(absl::Seconds(6) + absl::Nanoseconds(1)), "7");
}

TEST(RateLimiter, HeaderNamesAndValues) {
  FakeClock clock(absl::FromUnixSeconds(1'700'000'000));  // 2023-11-14T22:13:20Z
  RateLimiter limiter({.requests_per_minute = 3, .tokens_per_minute = 6000}, &clock);
  RateDecision d = limiter.Admit(150);
  using Headers = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(OpenAiRateLimitHeaders(d), (Headers{{"x-ratelimit-limit-requests", "3"},
                                                {"x-ratelimit-remaining-requests", "2"},
                                                {"x-ratelimit-reset-requests", "20s"},
                                                {"x-ratelimit-limit-tokens", "6000"},
                                                {"x-ratelimit-remaining-tokens", "5850"},
                                                {"x-ratelimit-reset-tokens", "1.5s"}}));
  EXPECT_EQ(AnthropicRateLimitHeaders(d), (Headers{{"anthropic-ratelimit-requests-limit", "3"},
                                                   {"anthropic-ratelimit-requests-remaining", "2"},
                                                   {"anthropic-ratelimit-requests-reset", "2023-11-14T22:13:40Z"},
                                                   {"anthropic-ratelimit-tokens-limit", "6000"},
                                                   {"anthropic-ratelimit-tokens-remaining", "5850"},
                                                   {"anthropic-ratelimit-tokens-reset", "2023-11-14T22:13:22Z"}}));
}

TEST(SimServerRateLimits, RequestPastTheLimitGets429UntilTheBucketRefills) {
  FakeClock clock;
  SimServerOptions options;
  options.rate_limits.requests_per_minute = 2;
  Running sim(options, &clock);
  const std::string body = ChatBody("sim:explorer", 0.7, 1).dump();
  for (const char* remaining : {"1", "0"}) {
    httplib::Result ok = sim.Post("/v1/chat/completions", body);
    ASSERT_TRUE(ok);
    EXPECT_EQ(ok->status, 200) << ok->body;
    EXPECT_EQ(ok->get_header_value("x-ratelimit-limit-requests"), "2");
    EXPECT_EQ(ok->get_header_value("x-ratelimit-remaining-requests"), remaining);
    EXPECT_FALSE(ok->has_header("x-ratelimit-limit-tokens"));
  }
  httplib::Result limited = sim.Post("/v1/chat/completions", body);
  ASSERT_TRUE(limited);
  EXPECT_EQ(limited->status, 429);
  EXPECT_EQ(limited->get_header_value("retry-after"), "30");
  EXPECT_EQ(limited->get_header_value("x-ratelimit-remaining-requests"), "0");
  EXPECT_EQ(limited->get_header_value("x-ratelimit-reset-requests"), "1m0s");
  json error = Parse(limited)["error"];
  EXPECT_EQ(error["type"], "requests");
  EXPECT_EQ(error["code"], "rate_limit_exceeded");
  EXPECT_TRUE(error["message"].is_string());

  // The Anthropic route shares the account's limits.
  httplib::Result anthropic = sim.Post(
      "/v1/messages",
      R"({"model":"sim:explorer","max_tokens":20,"messages":[{"role":"user","content":"Name a use for a brick."}]})",
      {{"anthropic-version", "2023-06-01"}});
  ASSERT_TRUE(anthropic);
  EXPECT_EQ(anthropic->status, 429);
  EXPECT_EQ(Parse(anthropic)["error"]["type"], "rate_limit_error");
  EXPECT_EQ(anthropic->get_header_value("anthropic-ratelimit-requests-remaining"), "0");
  EXPECT_EQ(anthropic->get_header_value("retry-after"), "30");

  clock.Advance(absl::Seconds(30));
  httplib::Result refilled = sim.Post("/v1/chat/completions", body);
  ASSERT_TRUE(refilled);
  EXPECT_EQ(refilled->status, 200);
  EXPECT_EQ(refilled->get_header_value("x-ratelimit-remaining-requests"), "0");
  json stats = Parse(sim.Get("/stats"));
  EXPECT_EQ(stats["chat"], 3);
  EXPECT_EQ(stats["messages"], 0);
  EXPECT_EQ(stats["rate_limited"], 2);
  // The scorers' endpoints are not limited.
  EXPECT_EQ(sim.Post("/v1/reward", R"({"prompt":"p","response":"r"})")->status, 200);
}

TEST(SimServerRateLimits, TokensAreThePromptPlusMaxTokens) {
  FakeClock clock;
  SimServerOptions options;
  options.rate_limits.tokens_per_minute = 1000;
  Running sim(options, &clock);
  // 7 prompt words + max_tokens 200.
  json body = ChatBody("sim:explorer", 0.7, 1);
  body["max_tokens"] = 200;
  httplib::Result first = sim.Post("/v1/chat/completions", body.dump());
  ASSERT_TRUE(first);
  EXPECT_EQ(first->status, 200);
  EXPECT_EQ(first->get_header_value("x-ratelimit-remaining-tokens"), "793");
  EXPECT_FALSE(first->has_header("x-ratelimit-limit-requests"));
  // n choices are charged n * max_tokens: 7 + 800 > 793.
  body["n"] = 4;
  httplib::Result limited = sim.Post("/v1/chat/completions", body.dump());
  ASSERT_TRUE(limited);
  EXPECT_EQ(limited->status, 429);
  EXPECT_EQ(Parse(limited)["error"]["type"], "tokens");
  EXPECT_EQ(limited->get_header_value("retry-after"), "1");  // 14 tokens at 16.7 per second
  // Embeddings: the input's words.
  httplib::Result embedded = sim.Post("/v1/embeddings", R"({"model":"lexical","input":["a b c","d e"]})");
  ASSERT_TRUE(embedded);
  EXPECT_EQ(embedded->get_header_value("x-ratelimit-remaining-tokens"), "788");
  // Anthropic: system and messages plus max_tokens.
  httplib::Result anthropic = sim.Post("/v1/messages",
                                       R"({"model":"sim:steady","max_tokens":100,"system":"Be brief.",)"
                                       R"("messages":[{"role":"user","content":"Name a use for a brick."}]})",
                                       {{"anthropic-version", "2023-06-01"}});
  ASSERT_TRUE(anthropic);
  EXPECT_EQ(anthropic->status, 200) << anthropic->body;
  EXPECT_EQ(anthropic->get_header_value("anthropic-ratelimit-tokens-remaining"), "680");
  EXPECT_EQ(anthropic->get_header_value("anthropic-ratelimit-tokens-limit"), "1000");
}

TEST(SimServerRateLimits, NoHeadersWithoutLimits) {
  Running sim;
  httplib::Result ok = sim.Post("/v1/chat/completions", kChatBody);
  ASSERT_TRUE(ok);
  EXPECT_FALSE(ok->has_header("x-ratelimit-limit-requests"));
  EXPECT_FALSE(ok->has_header("x-ratelimit-limit-tokens"));
}

TEST(SimServerRateLimits, NegativeLimitsAreRefused) {
  SimServerOptions options;
  options.rate_limits.requests_per_minute = -1;
  SimServer server;
  EXPECT_FALSE(server.Start(options).ok());
}

}  // namespace
}  // namespace noveltygrid::sim_server_testing
