#include "common/percentile.h"

#include <numeric>
#include <vector>

#include "gtest/gtest.h"

namespace noveltygrid {
namespace {

TEST(NearestRankPercentileTest, NearestRank) {
  std::vector<int64_t> samples(100);
  std::iota(samples.begin(), samples.end(), 1);  // 1..100
  EXPECT_EQ(NearestRankPercentile(samples, 50), 50);
  EXPECT_EQ(NearestRankPercentile(samples, 99), 99);
  EXPECT_EQ(NearestRankPercentile(samples, 100), 100);
  EXPECT_EQ(NearestRankPercentile(samples, 0.5), 1);
}

TEST(NearestRankPercentileTest, FewAndNoSamples) {
  std::vector<int64_t> none;
  EXPECT_EQ(NearestRankPercentile(none, 99), 0);
  std::vector<int64_t> three = {30, 10, 20};
  EXPECT_EQ(NearestRankPercentile(three, 50), 20);
  EXPECT_EQ(NearestRankPercentile(three, 99), 30);
  std::vector<int64_t> one = {7};
  EXPECT_EQ(NearestRankPercentile(one, 0.1), 7);
}

}  // namespace
}  // namespace noveltygrid
