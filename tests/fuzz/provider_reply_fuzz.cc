// The parsers of what a model provider replies, on any body: chat completions and embeddings
// (worker/models/openai_models.h, on JsonReader), the pair classifier's /predict and the reward
// model's replies (worker/scorers/), the retry policy's reading of status and body -- error objects,
// usage -- (worker/http/retry_policy.h) and the Retry-After header (ParseRetryAfter).
//
// First byte: bits 0-2 choose the parser, bits 3-7 a small number it takes (n choices, vectors
// expected, the HTTP status). The rest is the body (or the header value).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/time/time.h"
#include "common/json_util.h"
#include "common/noveltybench/scoring.h"
#include "tests/fuzz/fuzz_util.h"
#include "worker/http/http_client.h"
#include "worker/http/retry_policy.h"
#include "worker/models/openai_models.h"
#include "worker/scorers/http_pair_classifier.h"
#include "worker/scorers/http_reward_model.h"

namespace noveltygrid {
namespace {

// A reply JsonReader accepts is valid JSON: ParseJson must take it too.
void CheckJson(const std::string& body) {
  const absl::StatusOr<Json> tree = ParseJson(body);
  FUZZ_CHECK(tree.ok(), tree.status().ToString());
}

void ChatReplyBody(const std::string& body, int n) {
  const absl::StatusOr<ChatReply> reply = OpenAiChatModel::ParseReply(body, n);
  if (!reply.ok()) {
    FUZZ_CHECK(absl::IsInvalidArgument(reply.status()), reply.status().ToString());
    return;
  }
  CheckJson(body);
  FUZZ_CHECK(static_cast<int>(reply->choices.size()) == n);
  for (const std::string& choice : reply->choices) FUZZ_CHECK(choice.size() <= kMaxAnswerBytes);
  // Token counts feed the cost, the budgets and the provider limits: never negative.
  FUZZ_CHECK(reply->prompt_tokens >= 0 && reply->completion_tokens >= 0);
}

void EmbeddingsReply(const std::string& body, size_t count) {
  int64_t tokens = 0;
  const absl::StatusOr<std::vector<Embedding>> vectors = OpenAiEmbedder::ParseReply(body, count, &tokens);
  if (!vectors.ok()) {
    FUZZ_CHECK(absl::IsInvalidArgument(vectors.status()), vectors.status().ToString());
    return;
  }
  CheckJson(body);
  FUZZ_CHECK(vectors->size() == count);
  FUZZ_CHECK(tokens >= 0);
  for (const Embedding& v : *vectors) {
    FUZZ_CHECK(!v.empty() && v.size() == vectors->front().size());
    for (float x : v) FUZZ_CHECK(std::isfinite(x));
  }
}

void PairClassifierReply(const std::string& body, size_t expected) {
  const absl::StatusOr<Json> reply = ParseJson(body);
  if (!reply.ok()) return;
  const absl::StatusOr<std::vector<double>> same = ParsePairClassifierReply(*reply, expected, "LABEL_1");
  if (!same.ok()) {
    FUZZ_CHECK(absl::IsInvalidArgument(same.status()), same.status().ToString());
    return;
  }
  FUZZ_CHECK(same->size() == expected);
  for (double p : *same) FUZZ_CHECK(p >= 0.0 && p <= 1.0);
}

void RewardReply(const std::string& body, size_t expected) {
  const absl::StatusOr<Json> reply = ParseJson(body);
  if (!reply.ok()) return;
  const absl::StatusOr<std::vector<double>> rewards = ParseRewardReply(*reply, expected);
  if (!rewards.ok()) {
    FUZZ_CHECK(absl::IsInvalidArgument(rewards.status()), rewards.status().ToString());
    return;
  }
  FUZZ_CHECK(rewards->size() == expected);
  for (double reward : *rewards) {
    FUZZ_CHECK(std::isfinite(reward));
    const int quality = noveltybench::QualityFromReward(reward);
    FUZZ_CHECK(quality >= noveltybench::kMinQuality && quality <= noveltybench::kMaxQuality);
  }
}

// Both ways of classifying a reply -- scanned without a tree (callers that read the text
// themselves) and parsed into one -- must agree on the outcome, the error and the usage.
void Classify(const std::string& body, int status) {
  HttpResponse response;
  response.status = status;
  response.body = body;
  const Classification scanned = ClassifyAttempt(response, nullptr);
  Json tree;
  const Classification parsed = ClassifyAttempt(response, &tree);
  FUZZ_CHECK(scanned.outcome == parsed.outcome);
  // A body both call malformed may be told apart by the detail: ParseJson reports deep nesting before
  // any other fault, the scan the first fault it meets.
  const bool both_malformed = absl::StrContains(scanned.error.message(), "malformed JSON body") &&
                              absl::StrContains(parsed.error.message(), "malformed JSON body");
  FUZZ_CHECK(both_malformed ? scanned.error.code() == parsed.error.code() : scanned.error == parsed.error,
             scanned.error.ToString() + " vs " + parsed.error.ToString());
  FUZZ_CHECK(scanned.usage_tokens == parsed.usage_tokens,
             std::to_string(scanned.usage_tokens) + " vs " + std::to_string(parsed.usage_tokens));
  FUZZ_CHECK(scanned.usage_tokens >= 0);
  FUZZ_CHECK((scanned.outcome == CallOutcome::kSuccess) == scanned.error.ok());
  if (scanned.outcome == CallOutcome::kSuccess) {
    FUZZ_CHECK(status >= 200 && status < 300);
    FUZZ_CHECK(tree.is_object() || tree.is_array());
  }
}

void RetryAfter(const std::string& value) {
  const absl::Time now = absl::FromUnixSeconds(1'700'000'000);
  const std::optional<absl::Duration> wait = ParseRetryAfter(value, now);
  if (wait.has_value()) FUZZ_CHECK(*wait >= absl::ZeroDuration());
}

}  // namespace
}  // namespace noveltygrid

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace noveltygrid;
  const fuzz::Moded in = fuzz::TakeMode(data, size);
  const std::string body(in.rest);
  const int small = in.mode >> 3;  // 0..31
  switch (in.mode & 7) {
    case 0:
      ChatReplyBody(body, 1 + small % 8);
      break;
    case 1:
      EmbeddingsReply(body, small % 8);
      break;
    case 2:
      PairClassifierReply(body, small % 8);
      break;
    case 3:
      RewardReply(body, small % 8);
      break;
    case 4:
    case 5: {
      static constexpr int kStatuses[] = {200, 201, 204, 299, 400, 401, 402, 403, 404, 408, 409,
                                          422, 429, 500, 502, 503, 504, 100, 301, 0,   600, 199,
                                          300, 418, 451, 505, 511, 299, 429, 200, 200, 500};
      Classify(body, kStatuses[small]);
      break;
    }
    default:
      RetryAfter(body);
  }
  return 0;
}
