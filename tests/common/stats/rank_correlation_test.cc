// The expected coefficients are worked out by hand in the comments (and were checked against a
// from-the-definition Python version: scipy is not installed here).
#include "common/stats/rank_correlation.h"

#include <cmath>
#include <limits>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace noveltygrid {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr double kTol = 1e-12;

TEST(AverageRanksTest, TiesShareTheMeanRank) {
  EXPECT_THAT(AverageRanks(std::vector<double>{10, 20, 20, 30}), ElementsAre(1, 2.5, 2.5, 4));
  EXPECT_THAT(AverageRanks(std::vector<double>{3, 1, 2}), ElementsAre(3, 1, 2));
  EXPECT_THAT(AverageRanks(std::vector<double>{5, 5, 5}), ElementsAre(2, 2, 2));
  EXPECT_THAT(AverageRanks(std::vector<double>{-1, 7, -1, 7, 0}), ElementsAre(1.5, 4.5, 1.5, 4.5, 3));
  EXPECT_TRUE(AverageRanks(std::vector<double>{}).empty());
}

TEST(RankCorrelationTest, NoTies) {
  // x = ranks 1..5, y swaps the pairs (1,2) and (3,4). Spearman: sum d^2 = 4, rho = 1 - 6*4/(5*24) = 0.8.
  // Kendall: 10 pairs, 2 discordant ((1,2), (3,4)), tau = (8 - 2) / 10 = 0.6. Pearson equals Spearman
  // since the values are their own ranks.
  const std::vector<double> x = {1, 2, 3, 4, 5}, y = {2, 1, 4, 3, 5};
  EXPECT_NEAR(*SpearmanRho(x, y), 0.8, kTol);
  EXPECT_NEAR(*KendallTauB(x, y), 0.6, kTol);
  EXPECT_NEAR(*PearsonR(x, y), 0.8, kTol);
}

TEST(RankCorrelationTest, PearsonDiffersFromSpearman) {
  // x = 1..5, y = {2,4,5,4,5}: means 3 and 4, dx = {-2,-1,0,1,2}, dy = {-2,0,1,0,1};
  // sxy = 6, sxx = 10, syy = 6, r = 6 / sqrt(60) = 0.774597, R^2 = 0.6.
  // y's ranks {1, 2.5, 4.5, 2.5, 4.5}, centred {-2, -.5, 1.5, -.5, 1.5}: rho = 7 / sqrt(10 * 9) = 0.737865.
  // Kendall: 10 pairs, y tied in (2,4) and (3,5); (3,4) discordant, the other 7 concordant;
  // tau-b = (7 - 1) / sqrt(10 * 8) = 0.670820.
  const std::vector<double> x = {1, 2, 3, 4, 5}, y = {2, 4, 5, 4, 5};
  absl::StatusOr<PairedCorrelation> c = CorrelatePairs(x, y);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->n, 5);
  EXPECT_NEAR(c->pearson_r, 6 / std::sqrt(60.0), kTol);
  EXPECT_NEAR(c->r_squared, 0.6, kTol);
  EXPECT_NEAR(c->spearman_rho, 7 / std::sqrt(90.0), kTol);
  EXPECT_NEAR(c->kendall_tau_b, 6 / std::sqrt(80.0), kTol);
}

TEST(RankCorrelationTest, TiesInOneSample) {
  // x = {1,2,2,3} ranks {1,2.5,2.5,4}; y = {1,3,2,4}. Spearman: dx = {-1.5,0,0,1.5}, dy = {-1.5,.5,-.5,1.5},
  // sxy = 4.5, sxx = 4.5, syy = 5: rho = 4.5 / sqrt(22.5) = sqrt(0.9). Kendall: 6 pairs, (2,3) tied in x,
  // the other 5 concordant: tau-b = 5 / sqrt((6 - 1) * 6) = 5 / sqrt(30). (Tau-a would give 5/6.)
  const std::vector<double> x = {1, 2, 2, 3}, y = {1, 3, 2, 4};
  EXPECT_NEAR(*SpearmanRho(x, y), std::sqrt(0.9), kTol);
  EXPECT_NEAR(*KendallTauB(x, y), 5 / std::sqrt(30.0), kTol);
  EXPECT_NEAR(*PearsonR(x, y), 3 / std::sqrt(10.0), kTol);  // dx {-1,0,0,1}: sxy 3, sxx 2, syy 5
}

TEST(RankCorrelationTest, TiesInBothSamplesNegative) {
  // x = {1,1,2,2,3} ranks {1.5,1.5,3.5,3.5,5}; y = {3,3,2,1,1} ranks {4.5,4.5,3,1.5,1.5}.
  // Spearman: sxy = -8.25, sxx = syy = 9, rho = -11/12. Kendall: 10 pairs, 2 tied in x, 2 tied in y
  // ((1,2) in both), 7 discordant, none concordant: tau-b = -7 / sqrt(8 * 8) = -0.875.
  const std::vector<double> x = {1, 1, 2, 2, 3}, y = {3, 3, 2, 1, 1};
  EXPECT_NEAR(*SpearmanRho(x, y), -11.0 / 12, kTol);
  EXPECT_NEAR(*KendallTauB(x, y), -0.875, kTol);
  EXPECT_NEAR(*PearsonR(x, y), -3 / std::sqrt(2.8 * 4), kTol);  // means 1.8 and 2: sxy -3, sxx 2.8, syy 4
}

TEST(RankCorrelationTest, LargerSampleWithTies) {
  // Twelve models with made-up scores and ties on both sides; expected values from the Python version.
  const std::vector<double> x = {2644, 981, 857, 177, 1200, 981, 50, 3000, 2644, 10, 400, 1500};
  const std::vector<double> y = {1300.5, 1200, 1250, 1100, 1200, 1180, 1000, 1350, 1290, 1050, 1200, 1260};
  absl::StatusOr<PairedCorrelation> c = CorrelatePairs(x, y);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_NEAR(c->spearman_rho, 0.9081328780214062, 1e-12);
  EXPECT_NEAR(c->kendall_tau_b, 0.8031745051446079, 1e-12);
  EXPECT_NEAR(c->pearson_r, 0.8804655799588568, 1e-12);
  EXPECT_NEAR(c->r_squared, 0.775219637492286, 1e-12);
}

TEST(RankCorrelationTest, PerfectAndReversedOrder) {
  const std::vector<double> x = {1, 2, 3}, up = {10, 20, 40}, down = {9, 5, 1};
  EXPECT_NEAR(*SpearmanRho(x, up), 1, kTol);
  EXPECT_NEAR(*KendallTauB(x, up), 1, kTol);
  EXPECT_NEAR(*SpearmanRho(x, down), -1, kTol);
  EXPECT_NEAR(*KendallTauB(x, down), -1, kTol);
  EXPECT_NEAR(*PearsonR(x, down), -1, kTol);
  // Two pairs are enough for a coefficient (always +-1); the matching layer asks for three.
  EXPECT_NEAR(*PearsonR(std::vector<double>{1, 2}, std::vector<double>{5, 3}), -1, kTol);
}

TEST(RankCorrelationTest, ConstantSampleIsUndefinedNotZero) {
  const std::vector<double> x = {1, 2, 3}, flat = {0.1, 0.1, 0.1};
  EXPECT_TRUE(IsConstant(flat));
  EXPECT_FALSE(IsConstant(x));
  for (const absl::Status& status : {SpearmanRho(x, flat).status(), KendallTauB(flat, x).status(),
                                     PearsonR(x, flat).status(), CorrelatePairs(flat, flat).status()}) {
    EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << status;
    EXPECT_THAT(status.message(), HasSubstr("constant"));
  }
  EXPECT_THAT(PearsonR(x, flat).status().message(), HasSubstr("second"));
}

TEST(RankCorrelationTest, BadSamples) {
  const std::vector<double> three = {1, 2, 3}, two = {1, 2}, one = {1};
  EXPECT_EQ(PearsonR(three, two).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(KendallTauB(three, two).status().message(), HasSubstr("different lengths (3 and 2)"));
  EXPECT_EQ(SpearmanRho(one, one).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CorrelatePairs(std::vector<double>{}, std::vector<double>{}).status().code(),
            absl::StatusCode::kInvalidArgument);
  const std::vector<double> with_nan = {1, std::numeric_limits<double>::quiet_NaN(), 3};
  const std::vector<double> with_inf = {1, std::numeric_limits<double>::infinity(), 3};
  EXPECT_EQ(PearsonR(three, with_nan).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(SpearmanRho(with_inf, three).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(RankCorrelationTest, ExtremeScalesDoNotOverflowOrUnderflow) {
  // Squares of the raw deviations would overflow (1e600) or underflow (1e-600) to inf or 0.
  const std::vector<double> huge = {1e300, 2e300, 3e300}, tiny = {1e-300, 2e-300, 3e-300};
  const std::vector<double> ordinary = {-1, 0, 1}, mixed = {1e300, -1e300, 0};
  EXPECT_NEAR(*PearsonR(huge, ordinary), 1, 1e-12);
  EXPECT_NEAR(*PearsonR(tiny, ordinary), 1, 1e-12);
  EXPECT_NEAR(*PearsonR(huge, tiny), 1, 1e-12);
  EXPECT_NEAR(*PearsonR(mixed, ordinary), -0.5, 1e-12);  // dx {1,-1,0} (in 1e300), dy {-1,0,1}: -1 / sqrt(2 * 2)
}

}  // namespace
}  // namespace noveltygrid
