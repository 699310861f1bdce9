// JsonReader against nlohmann::json: the same texts accepted, the same strings and numbers read.
#include "worker/http/json_reader.h"

#include <random>
#include <string>
#include <vector>

#include "common/json_util.h"
#include "gtest/gtest.h"
#include "tests/common/test_files.h"

namespace noveltygrid {
namespace {

bool ReaderAccepts(const std::string& text) {
  JsonReader r(text);
  return r.Skip() && r.AtEnd();
}

TEST(JsonReaderTest, AcceptsWhatNlohmannAccepts) {
  const std::vector<std::string> texts = {
      "{}",
      "[]",
      " {\"a\" : [1, -2.5e3, true, false, null, \"x\"]} ",
      "\"\\u00e9\\ud83d\\ude00\\/\"",
      "0",
      "-0",
      "1e400",
      "1e-400",
      "\xEF\xBB\xBF{}",
      "{\"a\":1,}",
      "[1,]",
      "[1 2]",
      "{\"a\" 1}",
      "01",
      "1.",
      ".5",
      "-",
      "\"\\ud800\"",
      "\"\\udc00\"",
      "\"\\x\"",
      "\"a\nb\"",
      "\"\xC3\x28\"",
      "\"\xED\xA0\x80\"",
      "\"\xF4\x90\x80\x80\"",
      "{} x",
      "",
      "tru",
      "nul",
      "[[[[]]]]",
      "{\"a\":{\"b\":{}}}",
      "\"\xE2\x82\xAC\"",
      "[1e5, 1E+5, 2e-3]",
      "{\"a\":1}{",
      "\"unterminated",
      "[\"\\\"\"]",
      "\"\\u12\"",
      "123456789012345678901234567890",
  };
  for (const std::string& text : texts) {
    EXPECT_EQ(ReaderAccepts(text), Json::accept(text)) << text;
  }
}

// SkipUnchecked covers exactly what Skip covers on valid JSON: the next element after it is read.
TEST(JsonReaderTest, SkipUncheckedSkipsTheSameExtentAsSkipOnValidJson) {
  const std::vector<std::string> values = {"0",
                                           "-12.5e3",
                                           "true",
                                           "null",
                                           "\"\"",
                                           "\"a\\\"b\"",
                                           "\"\\\\\"",
                                           "\"x\\\\\\\"y\"",
                                           "\"[{,}]\"",
                                           "[]",
                                           "{}",
                                           "[1, [2, {\"a\": \"]\"}], \"}\"]",
                                           "{\"k\" : {\"q\\\"\": [true, \"\\u00e9\"]}}",
                                           " \"spaced\" "};
  for (const std::string& value : values) {
    const std::string text = "[" + value + ",7]";
    ASSERT_TRUE(Json::accept(text)) << text;
    JsonReader r(text);
    ASSERT_TRUE(r.BeginArray() && r.NextElement()) << text;
    ASSERT_TRUE(r.SkipUnchecked()) << text;
    ASSERT_TRUE(r.NextElement()) << text;
    double number = 0;
    bool is_integer = false;
    int64_t integer = 0;
    ASSERT_TRUE(r.ReadNumber(&number, &is_integer, &integer)) << text;
    EXPECT_EQ(integer, 7) << text;
    EXPECT_FALSE(r.NextElement()) << text;
    EXPECT_TRUE(r.AtEnd()) << text;
  }
  JsonReader unterminated("\"abc\\\"");
  EXPECT_FALSE(unterminated.SkipUnchecked());
}

// Strings are scanned 8 bytes at a time: a byte that ends the string, starts an escape or is not
// allowed (control, invalid UTF-8) must be found at every offset from the word boundaries.
TEST(JsonReaderTest, StringsWithSpecialBytesAtEveryOffset) {
  const std::vector<std::string> specials = {
      "\\\"", "\\n",  "\\u00e9", "\"", "\n", std::string(1, '\0'), "\x1f", "\x7f", "\xC3\xA9", "\xF0\x9F\x98\x80",
      "\xFF", "\xC3", "\\"};
  for (size_t length = 0; length <= 26; ++length) {
    for (size_t at = 0; at <= length; ++at) {
      for (const std::string& special : specials) {
        std::string content(length, 'b');
        content.insert(at, special);
        const std::string text = "[\"" + content + "\",1]";
        ASSERT_EQ(ReaderAccepts(text), Json::accept(text)) << text;
        if (!Json::accept(text)) continue;
        JsonReader r(text);
        std::string read;
        ASSERT_TRUE(r.BeginArray());
        ASSERT_TRUE(r.NextElement());
        ASSERT_TRUE(r.ReadString(&read));
        EXPECT_EQ(read, Json::parse(text)[0].get<std::string>()) << text;
      }
    }
  }
}

TEST(JsonReaderTest, ReadsMembersStringsAndNumbers) {
  const std::string text =
      R"({"s":"a\"b\\c\nd\u00e9\ud83d\ude00","k\u0065y":7,"f":-2.5,"e":1e2,"arr":[1,{"x":[]}],"n":null})";
  const Json tree = Json::parse(text);
  JsonReader r(text);
  ASSERT_TRUE(r.BeginObject());
  absl::string_view key;
  std::vector<std::string> keys;
  while (r.NextMember(&key)) {
    keys.emplace_back(key);
    if (key == "s") {
      std::string s;
      ASSERT_TRUE(r.ReadString(&s));
      EXPECT_EQ(s, tree["s"].get<std::string>());
    } else if (key == "key" || key == "f" || key == "e") {
      double value;
      bool is_integer;
      int64_t integer = 0;
      ASSERT_TRUE(r.ReadNumber(&value, &is_integer, &integer));
      EXPECT_EQ(is_integer, tree[std::string(key)].is_number_integer()) << key;
      EXPECT_EQ(value, tree[std::string(key)].get<double>()) << key;
      if (is_integer) {
        EXPECT_EQ(integer, 7);
      }
    } else {
      ASSERT_TRUE(r.Skip());
    }
  }
  EXPECT_TRUE(r.AtEnd());
  EXPECT_EQ(keys, (std::vector<std::string>{"s", "key", "f", "e", "arr", "n"}));
}

// Nesting beyond kMaxJsonDepth is refused (and said to be), not recursed into; the limit is the one
// ParseJson keeps, to the level.
TEST(JsonReaderTest, NestingBeyondTheLimitIsRefusedAsParseJsonRefusesIt) {
  using testing_files::DeeplyNestedJson;
  for (const std::string& text :
       {DeeplyNestedJson(), "{\"a\":" + DeeplyNestedJson() + "}", DeeplyNestedJson(kMaxJsonDepth + 1)}) {
    JsonReader r(text);
    EXPECT_FALSE(r.Skip());
    EXPECT_TRUE(r.too_deep());
    EXPECT_FALSE(ParseJson(text).ok());
  }
  const std::string deepest = DeeplyNestedJson(kMaxJsonDepth);
  JsonReader r(deepest);
  EXPECT_TRUE(r.Skip() && r.AtEnd());
  EXPECT_FALSE(r.too_deep());
  EXPECT_TRUE(ParseJson(deepest).ok());
}

// Only objects and arrays count towards the limit: a value inside the deepest container allowed is
// read, as ParseJson reads it (found by tests/fuzz/json_reader_fuzz: 256 '[' around a 1).
TEST(JsonReaderTest, AScalarInsideTheDeepestContainerIsRead) {
  const std::string open(kMaxJsonDepth, '[');
  const std::string close(kMaxJsonDepth, ']');
  for (const std::string& text : {open + "1" + close, open + "\"x\"" + close, open + "null,true" + close,
                                  std::string(kMaxJsonDepth - 1, '[') + "{\"a\":2}" + close.substr(1)}) {
    JsonReader r(text);
    EXPECT_TRUE(r.Skip() && r.AtEnd()) << text;
    EXPECT_FALSE(r.too_deep());
    EXPECT_TRUE(ParseJson(text).ok());
  }
  for (const std::string& text : {"[" + open + "1" + close + "]", open + "[]" + close, open + "{}" + close}) {
    JsonReader r(text);
    EXPECT_FALSE(r.Skip());
    EXPECT_TRUE(r.too_deep());
    EXPECT_EQ(ParseJson(text).status().code(), absl::StatusCode::kOutOfRange);
  }
}

// Skip counts the containers the reader has already entered, as ParseJson counts every level from the
// top: a member that is kMaxJsonDepth deep itself is one level too deep inside its object.
TEST(JsonReaderTest, SkipCountsTheContainersAlreadyEntered) {
  using testing_files::DeeplyNestedJson;
  const std::string inside = "{\"a\":" + DeeplyNestedJson(kMaxJsonDepth) + "}";
  JsonReader r(inside);
  absl::string_view key;
  ASSERT_TRUE(r.BeginObject() && r.NextMember(&key));
  EXPECT_FALSE(r.Skip());
  EXPECT_TRUE(r.too_deep());
  EXPECT_EQ(ParseJson(inside).status().code(), absl::StatusCode::kOutOfRange);

  const std::string fits = "{\"a\":" + DeeplyNestedJson(kMaxJsonDepth - 1) + "}";
  JsonReader ok(fits);
  ASSERT_TRUE(ok.BeginObject() && ok.NextMember(&key));
  EXPECT_TRUE(ok.Skip());
  EXPECT_FALSE(ok.NextMember(&key));
  EXPECT_TRUE(ok.AtEnd());
  EXPECT_TRUE(ParseJson(fits).ok());
}

TEST(JsonReaderTest, ErrorsLatch) {
  JsonReader r("[1,]");
  ASSERT_TRUE(r.BeginArray());
  ASSERT_TRUE(r.NextElement());
  EXPECT_TRUE(r.Skip());
  EXPECT_TRUE(r.NextElement());
  EXPECT_FALSE(r.Skip());
  EXPECT_FALSE(r.ok());
  EXPECT_FALSE(r.NextElement());
  EXPECT_FALSE(r.AtEnd());
}

TEST(AppendJsonStringTest, EscapesAsDumpJsonDoes) {
  for (const std::string& text :
       {std::string("plain"), std::string("q\"b\\s/\b\f\n\r\t\x01\x1f\x7f"), std::string("\xC3\xA9\xF0\x9F\x98\x80"),
        std::string("bad \xC3\x28 utf8 \xFF"), std::string("nul\0x", 5), std::string()}) {
    std::string out = "pre";
    AppendJsonString(text, &out);
    EXPECT_EQ(out, "pre" + DumpJson(Json(text))) << text;
  }
}

// The escaper skips 16 or 8 bytes at a time (SSE2, words): every special byte at every
// offset of short and long texts (block boundaries, tails shorter than a block) must still come out as
// DumpJson writes it.
TEST(AppendJsonStringTest, SpecialBytesAtEveryOffset) {
  const std::vector<std::string> specials = {
      "\"", "\\", "\n", std::string(1, '\0'), "\x1f", "\x7f", " ", "\xC3\xA9", "\xE2\x82\xAC", "\xFF", "\xC3"};
  for (size_t length = 0; length <= 70; ++length) {
    for (size_t at = 0; at <= length; ++at) {
      for (const std::string& special : specials) {
        std::string text(length, 'a');
        text.insert(at, special);
        std::string out;
        AppendJsonString(text, &out);
        ASSERT_EQ(out, DumpJson(Json(text))) << "length " << length << " at " << at;
      }
    }
  }
}

// Two special bytes close together, at every two offsets (one right after another, a UTF-8 sequence
// crossing a 16-byte block's end, a bad sequence after a good one): as DumpJson writes them.
TEST(AppendJsonStringTest, TwoSpecialBytesAtEveryPairOfOffsets) {
  const std::vector<std::string> specials = {"\"", "\n", "\x01", "\xC3\xA9", "\xF0\x9F\x98\x80", "\xC3"};
  for (size_t length : {14, 17, 33}) {
    for (size_t first = 0; first <= length; ++first) {
      for (size_t second = first; second <= length; ++second) {
        for (const std::string& a : specials) {
          for (const std::string& b : specials) {
            std::string text(length, 'a');
            text.insert(second, b);
            text.insert(first, a);
            std::string out;
            AppendJsonString(text, &out);
            ASSERT_EQ(out, DumpJson(Json(text))) << "length " << length << " at " << first << ", " << second;
          }
        }
      }
    }
  }
}

TEST(AppendJsonStringTest, RandomTextsEscapeAsDumpJsonDoes) {
  std::mt19937 random(7);
  const std::string alphabet = std::string("abc \"\\\n\t\x01\x7f", 11) + "\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\xFF";
  for (int round = 0; round < 2010; ++round) {
    std::string text;
    // Short texts, and ten long ones (their escapes outgrow the room reserved for them).
    const size_t length = round < 2000 ? random() % 64 : 4000 + random() % 4000;
    // The long ones ASCII only: random bytes of the UTF-8 sequences make invalid UTF-8, which the
    // escaper hands to DumpJson whole (the test would compare DumpJson with itself).
    const size_t letters = round < 2000 ? alphabet.size() : 11;
    for (size_t i = 0; i < length; ++i) text.push_back(alphabet[random() % letters]);
    std::string out = round % 2 == 0 ? "" : "pre";
    AppendJsonString(text, &out);
    ASSERT_EQ(out, (round % 2 == 0 ? "" : "pre") + DumpJson(Json(text))) << "round " << round;
  }
}

}  // namespace
}  // namespace noveltygrid
