#include "worker/http/retry_policy.h"

#include <string>

#include "gtest/gtest.h"
#include "tests/common/test_files.h"

namespace noveltygrid {
namespace {

HttpResponse Reply(int status, std::string body, std::optional<absl::Duration> retry_after = std::nullopt) {
  HttpResponse r;
  r.status = status;
  r.body = std::move(body);
  r.content_type = "application/json";
  r.retry_after = retry_after;
  return r;
}

std::string OpenAiError(const std::string& message, const std::string& type, const std::string& code) {
  return R"({"error":{"message":")" + message + R"(","type":")" + type + R"(","code":")" + code + R"("}})";
}

struct Row {
  int status;
  std::string body;
  CallOutcome outcome;
  absl::StatusCode code;
  std::string message;  // expected substring
};

TEST(ClassifyAttemptTest, EveryStatusRow) {
  const std::string plain = OpenAiError("Something", "invalid_request_error", "");
  const std::vector<Row> rows = {
      {400, OpenAiError("Bad field", "invalid_request_error", ""), CallOutcome::kFail,
       absl::StatusCode::kInvalidArgument, "HTTP 400: Bad field"},
      {401, OpenAiError("Incorrect API key provided", "invalid_request_error", "invalid_api_key"), CallOutcome::kFail,
       absl::StatusCode::kUnauthenticated, "HTTP 401: Incorrect API key provided"},
      {402, plain, CallOutcome::kFail, absl::StatusCode::kResourceExhausted, "HTTP 402: Something"},
      {403, plain, CallOutcome::kFail, absl::StatusCode::kPermissionDenied, "HTTP 403: Something"},
      {404, R"({"error":"model not found"})", CallOutcome::kFail, absl::StatusCode::kNotFound,
       "HTTP 404: model not found"},
      {422, R"({"detail":"bad input"})", CallOutcome::kFail, absl::StatusCode::kFailedPrecondition,
       "HTTP 422: bad input"},
      {413, "", CallOutcome::kFail, absl::StatusCode::kFailedPrecondition, "HTTP 413"},
      {408, "", CallOutcome::kRetry, absl::StatusCode::kDeadlineExceeded, "HTTP 408"},
      {409, plain, CallOutcome::kRetry, absl::StatusCode::kUnavailable, "HTTP 409: Something"},
      {429, OpenAiError("Rate limit reached", "requests", "rate_limit_exceeded"), CallOutcome::kRetry,
       absl::StatusCode::kUnavailable, "HTTP 429: Rate limit reached"},
      {429, OpenAiError("You exceeded your current quota", "insufficient_quota", "insufficient_quota"),
       CallOutcome::kFail, absl::StatusCode::kResourceExhausted,
       "HTTP 429 insufficient_quota: You exceeded your current quota"},
      {429, OpenAiError("quota", "billing", "insufficient_quota"), CallOutcome::kFail,
       absl::StatusCode::kResourceExhausted, "insufficient_quota"},
      {500, OpenAiError("The server had an error", "server_error", ""), CallOutcome::kRetry,
       absl::StatusCode::kUnavailable, "HTTP 500: The server had an error"},
      {502, "<html>bad gateway</html>", CallOutcome::kRetry, absl::StatusCode::kUnavailable,
       "HTTP 502: <html>bad gateway</html>"},
      {503, R"({"object":"error","message":"overloaded","type":"ServiceUnavailable","code":503})", CallOutcome::kRetry,
       absl::StatusCode::kUnavailable, "HTTP 503: overloaded"},
      {504, "", CallOutcome::kRetry, absl::StatusCode::kDeadlineExceeded, "HTTP 504"},
      {301, "", CallOutcome::kFail, absl::StatusCode::kFailedPrecondition, "HTTP 301"},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(std::to_string(row.status) + " " + row.body);
    Classification c = ClassifyAttempt(Reply(row.status, row.body), nullptr);
    EXPECT_EQ(c.outcome, row.outcome);
    EXPECT_EQ(c.error.code(), row.code) << c.error;
    EXPECT_NE(c.error.message().find(row.message), std::string::npos) << c.error;
  }
}

TEST(ClassifyAttemptTest, SuccessParsesOnce) {
  Json parsed;
  Classification c = ClassifyAttempt(Reply(200, R"({"choices":[],"usage":{"total_tokens":7}})"), &parsed);
  EXPECT_EQ(c.outcome, CallOutcome::kSuccess);
  EXPECT_TRUE(c.error.ok());
  EXPECT_EQ(parsed["usage"]["total_tokens"], 7);
  EXPECT_EQ(ClassifyAttempt(Reply(201, R"({"error":null,"x":1})"), nullptr).outcome, CallOutcome::kSuccess);
}

// Usage counts are clamped to [0, kMaxUsageTokens] alike by the scan and the tree: a negative or absurd
// count is 0, and the sum of two cannot overflow (found by tests/fuzz/provider_reply_fuzz, which checks
// that both ways agree: INT64_MAX prompt and completion tokens overflowed the sum).
TEST(ClassifyAttemptTest, UsageCountsAreClampedNotOverflowed) {
  const struct {
    const char* usage;
    int64_t tokens;
  } rows[] = {
      {R"({"prompt_tokens":9223372036854775807,"completion_tokens":9223372036854775807})", 0},
      {R"({"prompt_tokens":-5,"completion_tokens":7})", 7},
      {R"({"prompt_tokens":1099511627776,"completion_tokens":1099511627776})", int64_t{2} << 40},
      {R"({"total_tokens":1099511627777,"prompt_tokens":3})", 0},
      {R"({"total_tokens":1e300})", 0},
      {R"({"total_tokens":-1.5})", 0},
      {R"({"total_tokens":12.9})", 12},
  };
  for (const auto& row : rows) {
    SCOPED_TRACE(row.usage);
    const std::string body = std::string(R"({"choices":[],"usage":)") + row.usage + "}";
    Json parsed;
    EXPECT_EQ(ClassifyAttempt(Reply(200, body), nullptr).usage_tokens, row.tokens);
    EXPECT_EQ(ClassifyAttempt(Reply(200, body), &parsed).usage_tokens, row.tokens);
  }
}

TEST(ClassifyAttemptTest, MalformedOrTruncatedSuccessBodyIsRetried) {
  const std::string secretish = std::string(200, 'a') + "SHOULD-NOT-APPEAR";
  for (const std::string& body : {std::string("<html>proxy error</html>"), std::string(R"({"choices":[{"mess)"),
                                  std::string("42"), std::string(""), secretish}) {  // a 2xx array is a reply (TEI)
    SCOPED_TRACE(body);
    Json parsed = Json::object({{"untouched", true}});
    Classification c = ClassifyAttempt(Reply(200, body), &parsed);
    EXPECT_EQ(c.outcome, CallOutcome::kRetry);
    EXPECT_EQ(c.error.code(), absl::StatusCode::kUnavailable);
    EXPECT_NE(c.error.message().find("malformed JSON body (" + std::to_string(body.size()) + " bytes)"),
              std::string::npos)
        << c.error;
    EXPECT_EQ(c.error.message().find("SHOULD-NOT-APPEAR"), std::string::npos);
    EXPECT_EQ(parsed, Json::object({{"untouched", true}}));
  }
}

// A reply nested 100,000 deep, whole or inside its error object, with a tree wanted or not: a malformed
// reply (retried, as a truncated one is), saying why; never a tree walked to the bottom.
TEST(ClassifyAttemptTest, ADeeplyNestedBodyIsMalformedNotAStackOverflow) {
  const std::string deep = testing_files::DeeplyNestedJson();
  for (const std::string& body : {deep, "{\"error\":" + deep + "}", "{\"choices\":[" + deep + "]}"}) {
    for (const bool tree : {false, true}) {
      SCOPED_TRACE(body.substr(0, 12) + (tree ? " (tree)" : ""));
      Json parsed;
      const Classification c = ClassifyAttempt(Reply(200, body), tree ? &parsed : nullptr);
      EXPECT_EQ(c.outcome, CallOutcome::kRetry);
      EXPECT_NE(c.error.message().find("malformed JSON body (" + std::to_string(body.size()) +
                                       " bytes, nested deeper than 256 levels)"),
                std::string::npos)
          << c.error;
    }
  }
  const Classification failed = ClassifyAttempt(Reply(500, "{\"error\":" + deep + "}"), nullptr);
  EXPECT_EQ(failed.outcome, CallOutcome::kRetry);
  EXPECT_EQ(failed.error.code(), absl::StatusCode::kUnavailable);
}

TEST(ClassifyAttemptTest, ErrorObjectInside200) {
  struct Case {
    std::string body;
    CallOutcome outcome;
  };
  const std::vector<Case> cases = {
      {OpenAiError("upstream failed", "server_error", ""), CallOutcome::kRetry},
      {OpenAiError("slow down", "", "rate_limit_exceeded"), CallOutcome::kRetry},
      {OpenAiError("busy", "overloaded_error", ""), CallOutcome::kRetry},
      {OpenAiError("took too long", "", "timeout"), CallOutcome::kRetry},
      {R"({"error":{"message":"Provider returned error","code":502}})", CallOutcome::kRetry},
      {R"({"error":{"message":"Too many","code":429}})", CallOutcome::kRetry},
      {R"({"error":{"message":"context too long","code":400}})", CallOutcome::kFail},
      {OpenAiError("content filtered", "invalid_request_error", "content_filter"), CallOutcome::kFail},
      {R"({"error":"something odd"})", CallOutcome::kFail},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.body);
    Json parsed;
    Classification result = ClassifyAttempt(Reply(200, c.body), &parsed);
    EXPECT_EQ(result.outcome, c.outcome);
    EXPECT_EQ(result.error.code(),
              c.outcome == CallOutcome::kRetry ? absl::StatusCode::kUnavailable : absl::StatusCode::kInvalidArgument);
    EXPECT_NE(result.error.message().find("HTTP 200 with an error object: "), std::string::npos) << result.error;
  }
  Classification filtered = ClassifyAttempt(Reply(200, OpenAiError("content filtered", "x", "y")), nullptr);
  EXPECT_NE(filtered.error.message().find("content filtered"), std::string::npos);
}

TEST(ClassifyAttemptTest, LongProviderMessagesAreTruncated) {
  const std::string long_message(2000, 'm');
  Classification c = ClassifyAttempt(Reply(400, OpenAiError(long_message, "", "")), nullptr);
  EXPECT_LT(c.error.message().size(), 400u);
  EXPECT_NE(c.error.message().find("HTTP 400: mmm"), std::string::npos);
}

TEST(ClassifyAttemptTest, TransportErrors) {
  EXPECT_EQ(ClassifyAttempt(absl::DeadlineExceededError("t"), nullptr).outcome, CallOutcome::kRetry);
  EXPECT_EQ(ClassifyAttempt(absl::UnavailableError("refused"), nullptr).outcome, CallOutcome::kRetry);
  Classification internal = ClassifyAttempt(absl::InternalError("bad url"), nullptr);
  EXPECT_EQ(internal.outcome, CallOutcome::kFail);
  EXPECT_EQ(internal.error.code(), absl::StatusCode::kInternal);
  EXPECT_EQ(ClassifyAttempt(absl::CancelledError("shutdown"), nullptr).outcome, CallOutcome::kFail);
  // A reply over the body limit would come back as large: not retried.
  Classification too_large = ClassifyAttempt(absl::OutOfRangeError("larger than the limit"), nullptr);
  EXPECT_EQ(too_large.outcome, CallOutcome::kFail);
  EXPECT_EQ(too_large.error.code(), absl::StatusCode::kOutOfRange);
}

TEST(ClassifyAttemptTest, HintIsPassedOn) {
  Classification c = ClassifyAttempt(Reply(429, "", absl::Milliseconds(200)), nullptr);
  EXPECT_EQ(c.outcome, CallOutcome::kRetry);
  EXPECT_EQ(c.hint, absl::Milliseconds(200));
}

TEST(IsCredentialErrorTest, OnlyAuthErrors) {
  EXPECT_TRUE(IsCredentialError(absl::UnauthenticatedError("x")));
  EXPECT_FALSE(IsCredentialError(absl::PermissionDeniedError("x")));  // per request or per model
  EXPECT_FALSE(IsCredentialError(absl::ResourceExhaustedError("x")));
  EXPECT_FALSE(IsCredentialError(absl::UnavailableError("x")));
  EXPECT_FALSE(IsCredentialError(absl::OkStatus()));
}

TEST(RetryDelayTest, ExponentialJitteredAndCapped) {
  RetryOptions options;
  options.initial_backoff = absl::Milliseconds(100);
  options.max_backoff = absl::Seconds(1);
  options.max_hint = absl::Seconds(5);
  EXPECT_EQ(RetryDelay(options, 1, std::nullopt, 0.0), absl::Milliseconds(50));
  EXPECT_EQ(RetryDelay(options, 1, std::nullopt, 1.0), absl::Milliseconds(100));
  EXPECT_EQ(RetryDelay(options, 2, std::nullopt, 1.0), absl::Milliseconds(200));
  EXPECT_EQ(RetryDelay(options, 3, std::nullopt, 0.0), absl::Milliseconds(200));
  EXPECT_EQ(RetryDelay(options, 5, std::nullopt, 1.0), absl::Seconds(1));    // 1.6 s capped
  EXPECT_EQ(RetryDelay(options, 500, std::nullopt, 1.0), absl::Seconds(1));  // no overflow
  for (int retry = 1; retry <= 10; ++retry) {
    for (double u : {0.0, 0.25, 0.5, 0.999}) {
      const absl::Duration d = RetryDelay(options, retry, std::nullopt, u);
      EXPECT_GE(d, absl::Milliseconds(50));
      EXPECT_LE(d, absl::Seconds(1));
    }
  }
}

TEST(RetryDelayTest, ServerHintWhenLargerCappedAtMaxHint) {
  RetryOptions options;
  options.initial_backoff = absl::Milliseconds(100);
  options.max_backoff = absl::Seconds(1);
  options.max_hint = absl::Seconds(5);
  // Larger: replaces the backoff, spread over the next fifth of the hint, never earlier.
  EXPECT_EQ(RetryDelay(options, 1, absl::Seconds(2), 0.0), absl::Seconds(2));
  EXPECT_EQ(RetryDelay(options, 1, absl::Seconds(2), 0.5), absl::Milliseconds(2200));
  EXPECT_EQ(RetryDelay(options, 1, absl::Seconds(2), 1.0), absl::Milliseconds(2400));
  EXPECT_EQ(RetryDelay(options, 1, absl::Milliseconds(10), 1.0), absl::Milliseconds(100));  // smaller: ignored
  EXPECT_EQ(RetryDelay(options, 1, absl::Hours(1), 0.0), absl::Seconds(5));                 // capped
  EXPECT_EQ(RetryDelay(options, 1, absl::Hours(1), 0.5), absl::Milliseconds(5500));
  options.max_hint = absl::Milliseconds(1);
  EXPECT_EQ(RetryDelay(options, 1, absl::Seconds(2), 1.0), absl::Milliseconds(100));  // cap below backoff
}

}  // namespace
}  // namespace noveltygrid
