// AdvanceCallStats: what a unit's cumulative call counters gained since the last reading, and the
// reading brought up to date in place (the lease loop tells the worker's metrics each step's calls).
#include "common/records.h"

#include "gtest/gtest.h"

namespace noveltygrid {
namespace {

CallCounters Requests(int64_t requests, int64_t prompt_tokens = 0) {
  CallCounters c;
  c.requests = requests;
  c.prompt_tokens = prompt_tokens;
  return c;
}

TEST(AdvanceCallStatsTest, GivesWhatIsNewPerKeyAndLeavesOutKeysWithNothingNew) {
  CallStats seen;
  CallStats now = {{"embed:e", Requests(1)}, {"generate:m", Requests(1, 40)}};
  CallStats delta = AdvanceCallStats(now, seen);
  EXPECT_EQ(delta.size(), 2u);
  EXPECT_EQ(delta["generate:m"].prompt_tokens, 40);
  EXPECT_EQ(seen.size(), 2u);

  now["generate:m"] = Requests(2, 90);
  now["judge:j"] = Requests(1);  // a key new in the middle of the order
  delta = AdvanceCallStats(now, seen);
  ASSERT_EQ(delta.size(), 2u);
  EXPECT_EQ(delta["generate:m"].requests, 1);
  EXPECT_EQ(delta["generate:m"].prompt_tokens, 50);
  EXPECT_EQ(delta["judge:j"].requests, 1);
  EXPECT_EQ(delta.count("embed:e"), 0u);  // unchanged
  EXPECT_EQ(seen, now);

  EXPECT_TRUE(AdvanceCallStats(now, seen).empty());  // read again: nothing new
  EXPECT_EQ(seen, now);
}

TEST(AdvanceCallStatsTest, KeysOnlySeenBeforeAreKept) {
  CallStats seen = {{"a", Requests(3)}, {"c", Requests(1)}};
  const CallStats now = {{"b", Requests(2)}, {"c", Requests(4)}, {"d", Requests(1)}};
  const CallStats delta = AdvanceCallStats(now, seen);
  ASSERT_EQ(delta.size(), 3u);
  EXPECT_EQ(delta.at("b").requests, 2);
  EXPECT_EQ(delta.at("c").requests, 3);
  EXPECT_EQ(delta.at("d").requests, 1);
  ASSERT_EQ(seen.size(), 4u);
  EXPECT_EQ(seen.at("a").requests, 3);
  EXPECT_EQ(seen.at("b").requests, 2);
  EXPECT_EQ(seen.at("c").requests, 4);
  EXPECT_EQ(seen.at("d").requests, 1);
}

}  // namespace
}  // namespace noveltygrid
