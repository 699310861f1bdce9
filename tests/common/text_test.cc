#include "common/text.h"

#include "gtest/gtest.h"

namespace noveltygrid {
namespace {

TEST(ExtractLastTagTest, NoTagIsNullopt) {
  EXPECT_EQ(ExtractLastTag("just text", "answer"), std::nullopt);
  EXPECT_EQ(ExtractLastTag("<answers>x</answers>", "answer"), std::nullopt);
}

TEST(ExtractLastTagTest, SeveralTagsGiveTheLastStripped) {
  EXPECT_EQ(ExtractLastTag("<answer>one</answer> and <answer>  two \n</answer> tail", "answer"), "two");
}

TEST(ExtractLastTagTest, BodyMaySpanLinesAndMatchIsNonGreedy) {
  EXPECT_EQ(ExtractLastTag("<answer>\nline 1\nline 2\n</answer>", "answer"), "line 1\nline 2");
  // Non-greedy: the first close tag ends the body.
  EXPECT_EQ(ExtractLastTag("<a>x</a>y</a>", "a"), "x");
}

TEST(ExtractLastTagTest, UnclosedTagIsIgnored) {
  EXPECT_EQ(ExtractLastTag("<answer>never closed", "answer"), std::nullopt);
  EXPECT_EQ(ExtractLastTag("<answer>done</answer> <answer>open", "answer"), "done");
}

TEST(ExtractLastTagTest, EmptyBody) { EXPECT_EQ(ExtractLastTag("<s></s>", "s"), ""); }

TEST(ParsePythonIntTest, FollowsPythonInt) {
  EXPECT_EQ(ParsePythonInt(" 75 "), 75);
  EXPECT_EQ(ParsePythonInt("75\n"), 75);
  EXPECT_EQ(ParsePythonInt("-3"), -3);
  EXPECT_EQ(ParsePythonInt("+8"), 8);
  EXPECT_EQ(ParsePythonInt("1_000"), 1000);
  EXPECT_EQ(ParsePythonInt("75.0"), std::nullopt);
  EXPECT_EQ(ParsePythonInt("abc"), std::nullopt);
  EXPECT_EQ(ParsePythonInt(""), std::nullopt);
  EXPECT_EQ(ParsePythonInt("-"), std::nullopt);
  EXPECT_EQ(ParsePythonInt("1__0"), std::nullopt);
  EXPECT_EQ(ParsePythonInt("_1"), std::nullopt);
  EXPECT_EQ(ParsePythonInt("1_"), std::nullopt);
}

TEST(SanitizeUtf8Test, ReplacesInvalidBytesAndKeepsValidMultibyte) {
  EXPECT_EQ(SanitizeUtf8("plain"), "plain");
  const std::string valid = "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80";  // café € 😀
  EXPECT_EQ(SanitizeUtf8(valid), valid);
  EXPECT_EQ(SanitizeUtf8("a\xFF"
                         "b"),
            "a\xEF\xBF\xBD"
            "b");
  // A truncated sequence and an overlong encoding are replaced byte by byte.
  EXPECT_EQ(SanitizeUtf8("x\xE2\x82"), "x\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(SanitizeUtf8("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");
  // UTF-16 surrogates are not valid UTF-8.
  EXPECT_EQ(SanitizeUtf8("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
}

}  // namespace
}  // namespace noveltygrid
