#include "common/hashing.h"

#include "gtest/gtest.h"

namespace noveltygrid {
namespace {

// Unit ids, Redis keys and results files depend on these values: they must never change. (Checked
// against an independent Python implementation of FNV-1a 64 + SplitMix64 with little-endian fields.)
TEST(StableHashTest, PinnedValues) {
  EXPECT_EQ(HexId(StableHash("")), "c3817c016ba4ff30");
  EXPECT_EQ(HexId(StableHash("noveltygrid")), "c066455cecd75a52");
  EXPECT_EQ(HexId(StableHasher().Add("aidanbench").Add("sim:explorer").Add(0.7).Add(uint64_t{42}).Finish()),
            "52148107ec72f763");
}

TEST(StableHasherTest, FieldBoundariesMatter) {
  EXPECT_NE(StableHasher().Add("ab").Add("c").Finish(), StableHasher().Add("a").Add("bc").Finish());
  EXPECT_NE(StableHasher().Add("").Add("x").Finish(), StableHasher().Add("x").Add("").Finish());
  EXPECT_NE(StableHasher().Add("abc").Finish(), StableHasher().Add("ab").Add("c").Finish());
  EXPECT_EQ(StableHasher().Add("ab").Add("c").Finish(), StableHasher().Add("ab").Add("c").Finish());
}

TEST(StableHasherTest, NegativeZeroEqualsZero) {
  EXPECT_EQ(StableHasher().Add(-0.0).Finish(), StableHasher().Add(0.0).Finish());
  EXPECT_NE(StableHasher().Add(0.7).Finish(), StableHasher().Add(1.0).Finish());
}

TEST(HexIdTest, SixteenLowercaseDigits) {
  EXPECT_EQ(HexId(0), "0000000000000000");
  EXPECT_EQ(HexId(0xABCDEFull), "0000000000abcdef");
}

}  // namespace
}  // namespace noveltygrid
