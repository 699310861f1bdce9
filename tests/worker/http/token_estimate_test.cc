#include "worker/http/token_estimate.h"

#include <string>

#include "gtest/gtest.h"

namespace noveltygrid {
namespace {

int64_t Prompt(const std::string& body) { return (static_cast<int64_t>(body.size()) + 3) / 4; }

TEST(TokenEstimateTest, PromptBytesPlusTheCompletionBudgetOfEveryChoice) {
  const std::string chat = R"({"model":"gpt-4o","messages":[{"role":"user","content":"Name a use for a brick."}],)"
                           R"("max_tokens":512,"n":10,"temperature":1.0})";
  EXPECT_EQ(EstimateRequestTokens(chat), Prompt(chat) + 5120);
  const std::string newer = R"({"max_completion_tokens":64,"messages":[]})";
  EXPECT_EQ(EstimateRequestTokens(newer), Prompt(newer) + 64);
  const std::string one = R"({"max_tokens":100.7})";  // a fraction is dropped; n defaults to 1
  EXPECT_EQ(EstimateRequestTokens(one), Prompt(one) + 100);
  // Field names, brackets and escaped quotes inside the prompt's text are text, not fields.
  const std::string tricky =
      R"({"messages":[{"role":"user","content":"say \"max_tokens\":7, \\\"n\":3 [{ \\"}],"max_tokens":10})";
  EXPECT_EQ(EstimateRequestTokens(tricky), Prompt(tricky) + 10);
}

TEST(TokenEstimateTest, BodiesWithoutACompletionCountTheirSize) {
  for (const std::string& body :
       {std::string(R"({"model":"e","input":["a","b"]})"), std::string("[1,2,3]"), std::string("not json"),
        std::string(R"({"max_tokens":"many"})"), std::string(R"({"max_tokens":-5,"n":3})"), std::string()}) {
    SCOPED_TRACE(body);
    EXPECT_EQ(EstimateRequestTokens(body), Prompt(body));  // a negative budget counts as 0
  }
}

TEST(TokenEstimateTest, AbsurdNumbersSaturateInsteadOfOverflowing) {
  const std::string body = R"({"max_tokens":9000000000000000000,"n":9000000000000000000})";
  const int64_t estimate = EstimateRequestTokens(body);
  EXPECT_GT(estimate, int64_t{1} << 40);
  EXPECT_LE(estimate, (int64_t{1} << 60) + Prompt(body));
}

}  // namespace
}  // namespace noveltygrid
