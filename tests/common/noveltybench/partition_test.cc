#include "common/noveltybench/partition.h"

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace noveltygrid::noveltybench {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

using Pairs = std::set<std::pair<std::string, std::string>>;

// Equivalent iff the pair is listed (in either order); records every question asked.
class ListedPairs : public Equivalence {
 public:
  explicit ListedPairs(std::set<std::pair<std::string, std::string>> pairs) : pairs_(std::move(pairs)) {}
  bool Equivalent(std::string_view /*prompt*/, std::string_view first, std::string_view candidate) const override {
    asked_.emplace_back(first, candidate);
    return pairs_.count({std::string(first), std::string(candidate)}) > 0 ||
           pairs_.count({std::string(candidate), std::string(first)}) > 0;
  }
  mutable std::vector<std::pair<std::string, std::string>> asked_;

 private:
  std::set<std::pair<std::string, std::string>> pairs_;
};

const std::string kLongA = "one two three four five six A";
const std::string kLongB = "one two three four five six B";
const std::string kLongC = "one two three four five six C";

TEST(ShortTextRuleTest, DecidesOnlyUpToFiveWords) {
  EXPECT_EQ(ShortTextEquivalence("a b c d e", "a b c d e"), true);
  EXPECT_EQ(ShortTextEquivalence("a b c d e f", "a b c d e f"), std::nullopt);  // 6 words: the predicate's
  EXPECT_EQ(ShortTextEquivalence("a", "a b c d e f"), std::nullopt);            // the LONGER one counts
}

TEST(ShortTextRuleTest, TwiceTheCommonWordsAgainstTheLongerCount) {
  // max count 5: 3 common words (6 >= 5) is enough, 2 (4 < 5) is not.
  EXPECT_EQ(ShortTextEquivalence("a b c", "a b c d e"), true);
  EXPECT_EQ(ShortTextEquivalence("a b x", "a b c d e"), false);
  // max count 4: exactly half the words in common is enough (2 * 2 >= 4).
  EXPECT_EQ(ShortTextEquivalence("a b", "a b c d"), true);
  EXPECT_EQ(ShortTextEquivalence("a", "a b c d"), false);
  // Sets, not counts: "a a a a" shares one distinct word with "a b c d".
  EXPECT_EQ(ShortTextEquivalence("a a a a", "a b c d"), false);
}

TEST(ShortTextRuleTest, LowercasesAndSplitsOnWhitespaceOnly) {
  EXPECT_EQ(ShortTextEquivalence("  Paris\n", "paris"), true);
  EXPECT_EQ(ShortTextEquivalence("Paris.", "Paris"), false);  // punctuation stays part of the word
  EXPECT_EQ(ShortTextEquivalence("", ""), true);              // 0 words: 0 >= 0
  EXPECT_EQ(ShortTextEquivalence("", "word"), false);
  EXPECT_THAT(LowercaseWords(" Blue\tSKY\r\n  "), ElementsAre("blue", "sky"));
}

TEST(GreedyPartitionTest, ComparesWithEachClassFirstMemberOnly) {
  // B ~ A and C ~ B, but C !~ A: C is compared with A (class 0's first member) only, never with B.
  ListedPairs eq({{kLongA, kLongB}, {kLongB, kLongC}});
  EXPECT_THAT(GreedyPartition("p", {kLongA, kLongB, kLongC}, eq), ElementsAre(0, 0, 1));
  EXPECT_THAT(eq.asked_, ElementsAre(std::make_pair(kLongA, kLongB), std::make_pair(kLongA, kLongC)));
}

TEST(GreedyPartitionTest, JoinsTheFirstEquivalentClassInOrder) {
  // D is equivalent to the first members of both class 1 (B) and class 2 (C): it joins class 1.
  const std::string d = "one two three four five six D";
  ListedPairs eq({{kLongB, d}, {kLongC, d}});
  EXPECT_THAT(GreedyPartition("p", {kLongA, kLongB, kLongC, d}, eq), ElementsAre(0, 1, 2, 1));
}

TEST(GreedyPartitionTest, ShortTextRuleComesBeforeThePredicate) {
  ListedPairs nothing_equivalent(Pairs{});
  EXPECT_THAT(GreedyPartition("p", {"Paris", "paris", "Lyon", kLongA}, nothing_equivalent), ElementsAre(0, 0, 1, 2));
  // The predicate only ever sees pairs with more than five words in the longer text.
  for (const auto& [first, candidate] : nothing_equivalent.asked_) {
    EXPECT_TRUE(LowercaseWords(first).size() > 5 || LowercaseWords(candidate).size() > 5);
  }
  // ... and the rule overrides it: a predicate saying "same" cannot merge two different short texts.
  ListedPairs everything(Pairs{{"Paris", "Lyon"}});
  EXPECT_THAT(GreedyPartition("p", {"Paris", "Lyon"}, everything), ElementsAre(0, 1));
  EXPECT_THAT(everything.asked_, IsEmpty());
}

TEST(GreedyPartitionTest, EmptyInputGivesEmptyPartition) {
  ListedPairs eq(Pairs{});
  EXPECT_THAT(GreedyPartition("p", {}, eq), IsEmpty());
}

TEST(PartitionTest, ValidateAcceptsOnlyCanonicalNumbering) {
  EXPECT_TRUE(ValidatePartition({0, 0, 1, 0, 2}).ok());
  EXPECT_THAT(std::string(ValidatePartition({1, 0}).message()), HasSubstr("partition[0] is 1"));
  EXPECT_THAT(std::string(ValidatePartition({0, 2, 1}).message()), HasSubstr("partition[1] is 2"));
  EXPECT_THAT(std::string(ValidatePartition({0, -1}).message()), HasSubstr("partition[1] is -1"));
  EXPECT_FALSE(ValidatePartition({}).ok());
}

TEST(PartitionTest, DistinctCountsClassesAndOpenersMarkFirstMembers) {
  EXPECT_EQ(DistinctCount({0, 0, 0}), 1);
  EXPECT_EQ(DistinctCount({0, 1, 1, 2, 0}), 3);
  EXPECT_THAT(ClassOpeners({0, 1, 1, 2, 0}), ElementsAre(true, true, false, true, false));
}

}  // namespace
}  // namespace noveltygrid::noveltybench
