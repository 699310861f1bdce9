// The writers that skip the Json tree (AppendJsonNumber, AppendStepMembers) against what DumpJson writes
// for the same values: the rows files they write must stay byte for byte what the tree wrote.
#include "common/records_json.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "common/json_util.h"
#include "gtest/gtest.h"

namespace noveltygrid {
namespace {

std::string Number(double value) {
  std::string out;
  AppendJsonNumber(value, &out);
  return out;
}

// The members of StepToJson but "error", as the tree dumps them, braces taken off.
std::string MembersByTree(const StepRecord& step) {
  Json j = StepToJson(step);
  j.erase("error");
  const std::string dumped = DumpJson(j);
  return dumped.substr(1, dumped.size() - 2);
}

std::string Members(const StepRecord& step) {
  std::string out;
  AppendStepMembers(step, &out);
  return out;
}

TEST(AppendJsonNumberTest, WritesWhatDumpJsonWrites) {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> values = {
      0.0,  -0.0, 1.0,   80.0, 0.4,    0.1 + 0.2,          1e-5, 1e-4,     123456.789, 1e15, 1e16,
      1e17, 1e21, 1e300, -2.5, 5e-324, 9007199254740993.0, 0.7,  100.0 / 3};
  for (double v : values) {
    EXPECT_EQ(Number(v), DumpJson(Json(v))) << v;
  }
  EXPECT_EQ(Number(std::numeric_limits<double>::max()), DumpJson(Json(std::numeric_limits<double>::max())));
  EXPECT_EQ(Number(std::numeric_limits<double>::min()), DumpJson(Json(std::numeric_limits<double>::min())));
  EXPECT_EQ(Number(std::nan("")), "null");
  EXPECT_EQ(Number(inf), "null");
  EXPECT_EQ(Number(-inf), "null");
  EXPECT_EQ(Number(80.0), "80.0");
  EXPECT_EQ(Number(1e-5), "1e-05");
}

TEST(AppendJsonNumberTest, AgreesWithDumpJsonOnArbitraryBitPatterns) {
  std::mt19937_64 bits(7);
  for (int i = 0; i < 20000; ++i) {
    const uint64_t raw = bits();
    double v;
    std::memcpy(&v, &raw, sizeof v);
    const std::string tree = std::isfinite(v) ? DumpJson(Json(v)) : "null";
    ASSERT_EQ(Number(v), tree) << "bits " << raw;
  }
}

TEST(AppendStepMembersTest, WritesTheMembersOfStepToJsonButError) {
  StepRecord plain;
  plain.answer_num = 3;
  plain.answer = "idea-2 of model-a";
  plain.coherence = 80;
  plain.novelty = 0.4242;
  plain.valid = true;

  StepRecord full = plain;
  full.llm_novelty = 0.25;
  full.reasoning_tokens = 1234;
  full.error = "judge unparseable";
  full.valid = false;

  StepRecord awkward = plain;
  awkward.answer = std::string("quote \" backslash \\ slash / tab \t nl \n cr \r nul ") + std::string(1, '\0') +
                   " \x01\x1f del \x7f caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80";
  awkward.coherence = std::nan("");
  awkward.novelty = -0.0;
  awkward.reasoning_tokens = -5;

  StepRecord invalid_utf8 = plain;
  invalid_utf8.answer = "bad \xff\xfe and \xc3 cut";
  invalid_utf8.llm_novelty = 1e-7;

  for (const StepRecord& step : {plain, full, awkward, invalid_utf8, StepRecord{}}) {
    EXPECT_EQ(Members(step), MembersByTree(step)) << step.answer;
  }
  EXPECT_EQ(Members(plain),
            R"("answer_num":3,"answer":"idea-2 of model-a","coherence":80.0,"novelty":0.4242,"valid":true)");
}

}  // namespace
}  // namespace noveltygrid
