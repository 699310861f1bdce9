// Means and 95% t-intervals across repeats (coordinator/benchmarks/repeat_interval.h), checked against
// values computed by hand and Student t quantiles from a table.
#include "coordinator/benchmarks/repeat_interval.h"

#include <cmath>

#include "gtest/gtest.h"

namespace noveltygrid {
namespace {

TEST(RepeatIntervalTest, StudentQuantilesMatchTheTableAndApproachTheNormal) {
  EXPECT_NEAR(StudentT975(1), 12.7062, 1e-4);
  EXPECT_NEAR(StudentT975(4), 2.7764, 1e-4);
  EXPECT_NEAR(StudentT975(30), 2.0423, 1e-4);
  EXPECT_NEAR(StudentT975(40), 2.0211, 1e-3);
  EXPECT_NEAR(StudentT975(120), 1.9799, 1e-3);
  EXPECT_NEAR(StudentT975(100000), 1.95996, 1e-4);
}

TEST(RepeatIntervalTest, MeanAndHalfWidthOfFiveRepeats) {
  // Mean 12; deviations -2, -1, 0, 1, 2: s^2 = 10 / 4 = 2.5.
  const RepeatInterval r = IntervalOf({10, 11, 12, 13, 14});
  EXPECT_EQ(r.n, 5);
  EXPECT_DOUBLE_EQ(r.mean, 12);
  EXPECT_NEAR(r.half_width, 2.7764 * std::sqrt(2.5) / std::sqrt(5.0), 1e-4);
  EXPECT_EQ(FormatInterval(r, 1), "12.0 +- 2.0");
}

TEST(RepeatIntervalTest, OneRepeatHasNoWidthAndNoneHasNoMean) {
  EXPECT_EQ(IntervalOf({3.5}).half_width, 0);
  EXPECT_EQ(IntervalOf({3.5}).mean, 3.5);
  EXPECT_EQ(IntervalOf({}).n, 0);
  EXPECT_EQ(IntervalOf({4, 4, 4}).half_width, 0) << "identical repeats";
}

TEST(RepeatIntervalTest, JsonCarriesTheBoundsAndValues) {
  const std::vector<double> values = {1, 3};
  const Json j = IntervalJson(IntervalOf(values), values);
  EXPECT_EQ(j["n"], 2);
  EXPECT_DOUBLE_EQ(j["mean"].get<double>(), 2);
  EXPECT_NEAR(j["ci95"][1].get<double>() - j["ci95"][0].get<double>(), 2 * j["half_width"].get<double>(), 1e-12);
  EXPECT_EQ(j["values"], Json::array({1.0, 3.0}));
}

}  // namespace
}  // namespace noveltygrid
