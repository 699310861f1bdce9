// PromptCache: the longest cached breakpoint, lifetimes on a fake clock, and the LRU bound.
#include "sim_server/prompt_cache.h"

#include "gtest/gtest.h"

namespace noveltygrid {
namespace {

using Prefixes = std::vector<PromptCache::Prefix>;

TEST(PromptCache, ReturnsTheLongestCachedPrefixThenCachesAll) {
  FakeClock clock;
  PromptCache cache(&clock, 16);
  EXPECT_EQ(cache.Use(Prefixes{{1}, {2}}), -1);
  EXPECT_EQ(cache.Use(Prefixes{{1}, {3}}), 0);
  EXPECT_EQ(cache.Use(Prefixes{{1}, {3}}), 1);
  EXPECT_EQ(cache.Use(Prefixes{{4}, {2}}), 1);  // the longest that is cached, even past a new one
  EXPECT_EQ(cache.size(), 4u);
}

TEST(PromptCache, EntriesExpireTtlAfterTheirLastUse) {
  FakeClock clock;
  PromptCache cache(&clock, 16);
  cache.Use(Prefixes{{1, absl::Minutes(5)}});
  clock.Advance(absl::Minutes(5) - absl::Nanoseconds(1));
  EXPECT_EQ(cache.Use(Prefixes{{1, absl::Minutes(5)}}), 0);
  clock.Advance(absl::Minutes(5));
  EXPECT_EQ(cache.Use(Prefixes{{1, absl::Minutes(5)}}), -1);
  // A 5-minute use does not shorten a 1-hour entry.
  cache.Use(Prefixes{{2, absl::Hours(1)}});
  cache.Use(Prefixes{{2, absl::Minutes(5)}});
  clock.Advance(absl::Minutes(30));
  EXPECT_EQ(cache.Use(Prefixes{{2, absl::Minutes(5)}}), 0);
}

TEST(PromptCache, KeepsAtMostCapacityDroppingTheLeastRecentlyUsed) {
  FakeClock clock;
  PromptCache cache(&clock, 3);
  for (uint64_t key : {1, 2, 3}) cache.Use(Prefixes{{key}});
  cache.Use(Prefixes{{1}});  // 2 is now the least recently used
  cache.Use(Prefixes{{4}});
  EXPECT_EQ(cache.size(), 3u);
  EXPECT_EQ(cache.Use(Prefixes{{1}}), 0);
  EXPECT_EQ(cache.Use(Prefixes{{3}}), 0);
  EXPECT_EQ(cache.Use(Prefixes{{2}}), -1);
  for (uint64_t key = 10; key < 1000; ++key) cache.Use(Prefixes{{key}});
  EXPECT_EQ(cache.size(), 3u);
}

}  // namespace
}  // namespace noveltygrid
