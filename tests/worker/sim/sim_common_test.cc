// The simulated models' shared helpers (worker/sim/sim_common.h).
#include "worker/sim/sim_common.h"

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "common/hashing.h"
#include "gtest/gtest.h"

namespace noveltygrid::sim {
namespace {

// Words counted one byte at a time: the definition CountWords' 16-bytes-a-step scan must match.
int64_t WordsOneByteAtATime(std::string_view text) {
  int64_t words = 0;
  bool in_word = false;
  for (char c : text) {
    const bool space = c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
    if (!space && !in_word) ++words;
    in_word = !space;
  }
  return words;
}

TEST(CountWords, CountsWhitespaceSeparatedWords) {
  EXPECT_EQ(CountWords(""), 0);
  EXPECT_EQ(CountWords("   \t\n"), 0);
  EXPECT_EQ(CountWords("one"), 1);
  EXPECT_EQ(CountWords("  two words  "), 2);
  EXPECT_EQ(CountWords("a\tb\nc\rd\ve\ff"), 6);
  // Only the six ASCII spaces separate: other control bytes, NUL and UTF-8 are word bytes.
  EXPECT_EQ(CountWords(std::string("a\x08"
                                   "b\x0e"
                                   "c",
                                   5)),
            1);
  EXPECT_EQ(CountWords(std::string("x\0y z", 5)), 2);
  EXPECT_EQ(CountWords("caf\xC3\xA9 \xE2\x82\xAC"), 2);
  // Words across the 16-byte steps: one ending at byte 15, one starting at byte 16, one spanning both.
  EXPECT_EQ(CountWords("aaaaaaaaaaaaaaa bbbbbbbbbbbbbbb cccccccccccccccccccccccccc"), 3);
  EXPECT_EQ(CountWords(absl::StrCat(std::string(15, ' '), "x", std::string(16, 'y'), " z")), 2);
}

// Random texts of every length up to 100 from bytes weighted towards the spaces and their neighbours
// (8, 14, 31, 33 and the high bytes the signed-compare pitfalls are about).
TEST(CountWords, MatchesOneByteAtATimeOnRandomTexts) {
  const std::string alphabet = std::string(" \t\n\v\f\r\x08\x0e\x1f!a\x80\xff\x7f", 14) + std::string(1, '\0');
  uint64_t state = 11;
  for (int round = 0; round < 4000; ++round) {
    std::string text(static_cast<size_t>(Mix64(++state) % 101), ' ');
    for (char& c : text) {
      const uint64_t r = Mix64(++state);
      c = r % 4 == 0 ? static_cast<char>(r >> 8) : alphabet[(r >> 8) % alphabet.size()];
    }
    ASSERT_EQ(CountWords(text), WordsOneByteAtATime(text)) << round;
  }
}

}  // namespace
}  // namespace noveltygrid::sim
