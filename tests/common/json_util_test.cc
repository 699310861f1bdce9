// ParseJson and ReadJsonFile: the nlohmann reading of outside input, with nesting bounded.
#include "common/json_util.h"

#include <optional>
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

// nlohmann stops at a NUL byte as at the end of the text; ParseJson must not accept what comes before
// it as the whole value (found by tests/fuzz/json_reader_fuzz: "0\n\0" + "0").
TEST(ParseJsonTest, ANulByteIsInvalidNotTheEnd) {
  using namespace std::string_literals;
  for (const std::string& text : {"0\n\0"s + "0", "{}\0garbage"s, "[1]\0"s, "\0"s, "\"a\0b\""s}) {
    absl::StatusOr<Json> parsed = ParseJson(text);
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument) << parsed.status();
    EXPECT_THAT(parsed.status().message(), HasSubstr("not valid JSON: a NUL byte at offset"));
  }
  EXPECT_EQ(*ParseJson("\"\\u0000\""), Json(std::string(1, '\0')));  // an escaped NUL is fine
}

// An int from outside input: integral values in int's range only; nlohmann's own get<int>() would cast
// 1e300 (undefined behaviour, found by tests/fuzz/journal_fuzz and results_rows_fuzz).
TEST(JsonToIntTest, IntegralValuesInRangeOnly) {
  EXPECT_EQ(JsonToInt(Json(5)), 5);
  EXPECT_EQ(JsonToInt(Json(-5.0)), -5);
  EXPECT_EQ(JsonToInt(Json::parse("2147483647")), 2147483647);
  EXPECT_EQ(JsonToInt(Json::parse("-2147483648")), -2147483647 - 1);
  for (const char* text : {"2147483648", "-2147483649", "1e300", "-1e300", "4e9", "5.5", "18446744073709551615",
                           "\"5\"", "true", "null", "[5]"}) {
    EXPECT_EQ(JsonToInt(Json::parse(text)), std::nullopt) << text;
  }
  const Json object = Json::parse(R"({"repeat": 2, "bad": 1e300})");
  EXPECT_EQ(IntField(object, "repeat", 0).value(), 2);
  EXPECT_EQ(IntField(object, "absent", 7).value(), 7);
  EXPECT_EQ(IntField(object, "bad", 0).status().message(), "\"bad\" is 1e+300, not an integer");
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
