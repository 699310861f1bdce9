// The OpenAI-compatible parsers make the channel's checks of a 2xx body in their own pass
// (ProviderChannel::PostRead): for every body -- real replies and their random mutations -- their
// BodyScan must say what ScanBody says, or a reply would be retried, failed or charged differently.
#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "worker/http/retry_policy.h"
#include "worker/models/openai_models.h"

namespace noveltygrid {
namespace {

std::string Nested(int depth) { return std::string(depth, '[') + "1" + std::string(depth, ']'); }

std::vector<std::string> ChatBodies() {
  const std::string choice = R"({"index":0,"message":{"role":"assistant","content":"An idea.\nAnother \"one\"."},)"
                             R"("logprobs":null,"finish_reason":"stop"})";
  return {
      absl::StrCat(R"({"id":"c1","object":"chat.completion","choices":[)", choice,
                   R"(],"usage":{"prompt_tokens":14,"completion_tokens":21,"total_tokens":35}})"),
      absl::StrCat(R"({"choices":[)", choice, R"(],"usage":{"prompt_tokens":14,"completion_tokens":2.5}})"),
      absl::StrCat(R"({"choices":[)", choice, R"(],"usage":{"input_tokens":3,"output_tokens":4,)",
                   R"("cache_read_input_tokens":5,"cache_creation_input_tokens":6}})"),
      absl::StrCat(R"({"choices":[)", choice, R"(],"usage":{"total_tokens":-3},"usage":{"prompt_tokens":"7"}})"),
      absl::StrCat(R"({"choices":[)", choice, R"(],"usage":[1,2],"error":null})"),
      absl::StrCat(R"({"choices":[)", choice, R"(],"error":{"message":"busy","type":"server_error"}})"),
      absl::StrCat(R"({"error":null,"choices":[)", choice, R"(],"error":{"message":"x"},"error":null})"),
      absl::StrCat(R"({"us\u0061ge":{"total_tokens":9},"choices":[)", choice, R"(]})"),
      absl::StrCat(R"({"choices":[)", choice, R"(],"extra":)", Nested(kMaxJsonDepth + 2), "}"),
      absl::StrCat(R"({"choices":[)", Nested(kMaxJsonDepth - 1), "]}"),
      absl::StrCat(R"({"choices":[{"message":{"content":)", Nested(kMaxJsonDepth), "}}]}"),
      R"([{"choices":[]}])",
      R"("a string")",
      "  \xEF\xBB\xBF{}",
      "",
  };
}

std::vector<std::string> EmbeddingBodies() {
  // Two float32 vectors of 2 values: [1, 2] and [0.5, -1] as base64, and as arrays.
  return {
      R"({"object":"list","data":[{"object":"embedding","index":0,"embedding":"AACAPwAAAEA="},)"
      R"({"object":"embedding","index":1,"embedding":"AAAAPwAAgL8="}],"model":"e","usage":{"prompt_tokens":8,)"
      R"("total_tokens":8}})",
      R"({"data":[{"embedding":[1,2.0]},{"embedding":[0.5,-1e0]}],"usage":{"prompt_tokens":3}})",
      R"({"data":[{"index":1,"embedding":"AAAAPwAAgL8="},{"index":0,"embedding":"AACAPw\/AAEA="}]})",
      R"({"data":[{"embedding":"AACAPw\qAAEA="},{"embedding":"AAAAPwAAgL8="}]})",
      R"({"data":[{"embedding":"AACAPwAAAEA="}],"error":{"message":"partial"}})",
      absl::StrCat(R"({"data":[{"embedding":)", Nested(kMaxJsonDepth), R"(},{"embedding":[1]}]})"),
      R"({"data":[]})",
  };
}

// 1 to 3 random edits: a byte deleted, inserted (mostly JSON's own characters) or replaced, or a
// slice repeated.
std::string Mutate(std::string body, std::mt19937& random) {
  static const std::string kAlphabet = "{}[],:\"\\ 0123456789.eE-+tfnulraxyz/\x01\xC3\xA9";
  const int edits = 1 + static_cast<int>(random() % 3);
  for (int e = 0; e < edits; ++e) {
    const size_t at = body.empty() ? 0 : random() % (body.size() + 1);
    const char c = kAlphabet[random() % kAlphabet.size()];
    switch (random() % 4) {
      case 0:
        if (at < body.size()) body.erase(at, 1);
        break;
      case 1:
        body.insert(at, 1, c);
        break;
      case 2:
        if (at < body.size()) body[at] = c;
        break;
      default: {
        const size_t length = std::min<size_t>(random() % 12, body.size() - std::min(at, body.size()));
        body.insert(at, body.substr(at, length));
      }
    }
  }
  return body;
}

// Whether `got` answers as ScanBody does for `body`: always its validity, the rest where it counts
// (ClassifyAttempt reads the other fields of a valid body, and too_deep of an invalid one).
void ExpectSameScan(const std::string& body, const BodyScan& got, int* valid_bodies) {
  const BodyScan want = ScanBody(body);
  ASSERT_EQ(got.valid, want.valid) << body;
  if (want.valid) {
    ++*valid_bodies;
    ASSERT_EQ(got.container, want.container) << body;
    ASSERT_EQ(got.has_error, want.has_error) << body;
    ASSERT_EQ(got.usage_tokens, want.usage_tokens) << body;
  } else {
    ASSERT_EQ(got.too_deep, want.too_deep) << body;
  }
}

TEST(ReplyScanTest, ChatParserChecksAsScanBodyDoes) {
  std::mt19937 random(11);
  int valid = 0, bodies = 0;
  for (const std::string& seed : ChatBodies()) {
    for (int round = 0; round < 2500; ++round) {
      const std::string body = round == 0 ? seed : Mutate(seed, random);
      BodyScan got;
      (void)OpenAiChatModel::ParseReply(body, 1, &got);
      ExpectSameScan(body, got, &valid);
      if (HasFatalFailure()) return;
      ++bodies;
    }
  }
  EXPECT_GT(valid, 3000);           // the mutations keep many bodies valid...
  EXPECT_LT(valid, bodies - 3000);  // ...and break many
}

TEST(ReplyScanTest, EmbeddingsParserChecksAsScanBodyDoes) {
  std::mt19937 random(12);
  int valid = 0, bodies = 0;
  for (const std::string& seed : EmbeddingBodies()) {
    for (int round = 0; round < 2500; ++round) {
      const std::string body = round == 0 ? seed : Mutate(seed, random);
      BodyScan got;
      (void)OpenAiEmbedder::ParseReply(body, 2, nullptr, nullptr, &got);
      ExpectSameScan(body, got, &valid);
      if (HasFatalFailure()) return;
      ++bodies;
    }
  }
  EXPECT_GT(valid, 1500);
  EXPECT_LT(valid, bodies - 1500);
}

}  // namespace
}  // namespace noveltygrid
