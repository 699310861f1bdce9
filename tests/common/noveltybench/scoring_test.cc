#include "common/noveltybench/scoring.h"

#include <cmath>
#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace noveltygrid::noveltybench {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<std::optional<int>> Q(std::initializer_list<int> values) {
  std::vector<std::optional<int>> q;
  for (int v : values) q.push_back(v == 0 ? std::nullopt : std::optional<int>(v));
  return q;
}

TEST(QualityFromRewardTest, BisectLeftPlusOne) {
  EXPECT_EQ(QualityFromReward(-100), 1);
  EXPECT_EQ(QualityFromReward(-7.71875), 1);  // equal to an edge: the lower bucket
  EXPECT_EQ(QualityFromReward(-7.7), 2);
  EXPECT_EQ(QualityFromReward(-6.0), 3);
  EXPECT_EQ(QualityFromReward(std::nextafter(-6.0, 0.0)), 4);
  EXPECT_EQ(QualityFromReward(-5.0), 6);
  EXPECT_EQ(QualityFromReward(-2.046875), 9);
  EXPECT_EQ(QualityFromReward(-2.0), 10);
  EXPECT_EQ(QualityFromReward(30), 10);
  for (size_t i = 0; i < kRewardThresholds.size(); ++i) {
    EXPECT_EQ(QualityFromReward(kRewardThresholds[i]), static_cast<int>(i) + 1);
  }
}

TEST(UtilityTest, OneClassOfQualityTenAmongTen) {
  std::vector<int> earned(10, 0);
  earned[0] = 10;
  EXPECT_NEAR(Utility(earned), 2.2405805, 1e-7);
  EXPECT_NEAR(Utility(earned), 2.2405804992033427, 1e-12);    // gpt-4o's curated-1 row in the reference
  EXPECT_DOUBLE_EQ(Utility(std::vector<int>(10, 10)), 10.0);  // the maximum
}

TEST(UtilityTest, PatienceIsTheDiscount) {
  EXPECT_DOUBLE_EQ(Utility({10, 5}, 0.5), (10 + 0.5 * 5) / 1.5);
  EXPECT_DOUBLE_EQ(Utility({10, 0, 4}, 1.0), 14.0 / 3);  // patience 1: the plain mean
  EXPECT_GT(Utility({0, 0, 10}, 0.9), Utility({0, 0, 10}, 0.8));
}

TEST(ScorePartitionTest, OpenersEarnTheirQuality) {
  absl::StatusOr<RowScore> s = ScorePartition({0, 0, 1, 2, 1}, Q({7, 0, 3, 9, 0}));
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_THAT(s->generation_scores, ElementsAre(7, 0, 3, 9, 0));
  EXPECT_EQ(s->distinct, 3);
  EXPECT_DOUBLE_EQ(s->utility, Utility({7, 0, 3, 9, 0}, 0.8));
  // Non-openers earn nothing even when scored.
  s = ScorePartition({0, 0}, Q({7, 10}));
  ASSERT_TRUE(s.ok());
  EXPECT_THAT(s->generation_scores, ElementsAre(7, 0));
  EXPECT_EQ(s->distinct, 1);
}

TEST(ScorePartitionTest, RejectsWhatCannotBeScored) {
  EXPECT_THAT(std::string(ScorePartition({0, 1}, Q({7, 0})).status().message()),
              HasSubstr("generation 1 opens class 1 but has no quality"));
  EXPECT_THAT(std::string(ScorePartition({0}, {11}).status().message()), HasSubstr("expected 1..10"));
  EXPECT_THAT(std::string(ScorePartition({0, 0}, Q({7})).status().message()), HasSubstr("1 entries"));
  EXPECT_FALSE(ScorePartition({1}, Q({7})).ok());
  EXPECT_FALSE(ScorePartition({0}, Q({7}), 0).ok());
  EXPECT_FALSE(ScorePartition({0}, Q({7}), std::numeric_limits<double>::quiet_NaN()).ok());
}

TEST(QualityForNewPartitionTest, NewOpenersBorrowTheirRecordedClassQuality) {
  // Recorded: one class, only generation 0 scored. New: generation 2 opens a class of its own.
  absl::StatusOr<QualityForPartition> q = QualityForNewPartition({0, 0, 0}, Q({8, 0, 0}), {0, 0, 1});
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_THAT(q->quality, ElementsAre(8, std::nullopt, 8));
  EXPECT_THAT(q->imputed, ElementsAre(2));
  // Scored generations keep their own quality.
  q = QualityForNewPartition({0, 1}, Q({8, 3}), {0, 0});
  ASSERT_TRUE(q.ok());
  EXPECT_THAT(q->imputed, ElementsAre());
  EXPECT_FALSE(QualityForNewPartition({0, 0}, Q({0, 0}), {0, 1}).ok());
  EXPECT_FALSE(QualityForNewPartition({0}, Q({8}), {0, 1}).ok());
}

TEST(MeanScoresTest, PlainMeansOverRows) {
  RowScore a{{10, 0}, 1, 4.0};
  RowScore b{{10, 5}, 2, 6.0};
  const ScoreMeans m = MeanScores({&a, &b});
  EXPECT_EQ(m.prompts, 2);
  EXPECT_DOUBLE_EQ(m.mean_distinct, 1.5);
  EXPECT_DOUBLE_EQ(m.mean_utility, 5.0);
  EXPECT_EQ(MeanScores({}).prompts, 0);
}

}  // namespace
}  // namespace noveltygrid::noveltybench
