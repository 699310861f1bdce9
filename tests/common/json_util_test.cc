// ParseJson and ReadJsonFile: the nlohmann reading of outside input, with nesting bounded.
#include "common/json_util.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/common/test_files.h"

namespace noveltygrid {
namespace {

using ::noveltygrid::testing_files::DeeplyNestedJson;
using ::noveltygrid::testing_files::TempDir;
using ::testing::HasSubstr;

TEST(ParseJsonTest, NestingDeeperThanTheLimitIsRefusedBeforeATreeIsBuilt) {
  for (const std::string& text :
       {DeeplyNestedJson(), std::string(100'000, '{') + "}", "{\"a\":" + DeeplyNestedJson(kMaxJsonDepth) + "}"}) {
    absl::StatusOr<Json> parsed = ParseJson(text);
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kOutOfRange) << parsed.status();
    EXPECT_THAT(parsed.status().message(), HasSubstr("JSON nested deeper than 256 levels"));
  }
  absl::StatusOr<Json> deepest = ParseJson(DeeplyNestedJson(kMaxJsonDepth));
  ASSERT_TRUE(deepest.ok()) << deepest.status();
  EXPECT_EQ(Json(*deepest), *deepest);  // a copy and a comparison: recursive, and within the stack
}

// Brackets inside strings, escaped quotes among them, are text, not nesting.
TEST(ParseJsonTest, BracketsInStringsDoNotCount) {
  const std::string brackets(100'000, '[');
  absl::StatusOr<Json> parsed = ParseJson("{\"a\\\"[\":\"" + brackets + "\\\"" + brackets + "\",\"b\":[1]}");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ((*parsed)["b"], Json::array({1}));
  EXPECT_EQ((*parsed)["a\"["].get<std::string>().size(), 2 * brackets.size() + 1);
}

TEST(ParseJsonTest, InvalidJsonIsInvalidArgument) {
  for (const char* text : {"", "{", "[1,]", "{\"a\":1} 2", "[\"]"}) {
    absl::StatusOr<Json> parsed = ParseJson(text);
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument) << text;
    EXPECT_THAT(parsed.status().message(), HasSubstr("not valid JSON")) << text;
  }
}

TEST(ReadJsonFileTest, ADeeplyNestedFileIsAnErrorNamingIt) {
  TempDir dir;
  const std::string path = dir.Write("summary.json", DeeplyNestedJson());
  absl::StatusOr<Json> read = ReadJsonFile(path);
  EXPECT_EQ(read.status().code(), absl::StatusCode::kOutOfRange) << read.status();
  EXPECT_THAT(read.status().message(), HasSubstr(path + ": JSON nested deeper than 256 levels"));
}

}  // namespace
}  // namespace noveltygrid
