// The NoveltyBench reducer (coordinator/benchmarks/noveltybench/novelty_reducer.h) on the hand-worked sweep of
// novelty_test_units.h.
#include "coordinator/benchmarks/noveltybench/novelty_reducer.h"

#include <algorithm>

#include "gtest/gtest.h"
#include "tests/coordinator/novelty_test_units.h"

namespace noveltygrid::testing_units {
namespace {

NoveltySnapshot HandSnapshot(std::vector<UnitResult> units) {
  NoveltyReducer reducer(HandSettings(), HandModels(), HandTemperatures(), HandModes(), HandDatasets());
  for (UnitResult& u : units) reducer.Add(std::move(u));
  return reducer.Snapshot();
}

TEST(NoveltyReducerTest, MeansByModeAndDatasetAndTheLeaderboardValue) {
  const NoveltySnapshot snap = HandSnapshot(HandNoveltyUnits());
  EXPECT_EQ(snap.models, (std::vector<std::string>{"m", "n"}));
  EXPECT_EQ(snap.temperatures, (std::vector<double>{1.0, 0.7}));
  EXPECT_EQ(snap.modes, (std::vector<std::string>{"standard", "paraphrase"}));
  EXPECT_EQ(snap.datasets, (std::vector<std::string>{"curated", "wildchat"}));
  ASSERT_EQ(snap.cells.size(), 3u);

  const NoveltySweepCell& m10 = snap.cells[0];
  EXPECT_EQ(m10.model, "m");
  EXPECT_EQ(m10.temperature, 1.0);
  EXPECT_EQ(m10.mode, "standard");
  EXPECT_DOUBLE_EQ(m10.means.mean_utility, 14.0 / 3);  // (5 + 2 + 7) / 3
  EXPECT_DOUBLE_EQ(m10.means.mean_distinct, 5.0 / 3);  // (2 + 1 + 2) / 3
  EXPECT_EQ(m10.means.prompts, 3);
  ASSERT_EQ(m10.by_mode.size(), 2u);
  EXPECT_EQ(m10.by_mode[1].name, "paraphrase");
  EXPECT_DOUBLE_EQ(m10.by_mode[1].means.mean_utility, 1.0);  // the failed unit is not scored
  EXPECT_EQ(m10.by_mode[1].means.prompts, 1);
  ASSERT_EQ(m10.by_dataset.size(), 2u);
  EXPECT_EQ(m10.by_dataset[0].name, "curated");
  EXPECT_DOUBLE_EQ(m10.by_dataset[0].means.mean_utility, 3.5);
  EXPECT_DOUBLE_EQ(m10.by_dataset[0].means.mean_distinct, 1.5);
  EXPECT_DOUBLE_EQ(m10.by_dataset[1].means.mean_utility, 7.0);
  ASSERT_TRUE(m10.leaderboard_value.has_value());
  EXPECT_DOUBLE_EQ(m10.leaderboard_value->utility, (3.5 * 100 + 7.0 * 1000) / 1100);  // 6.6818...
  EXPECT_DOUBLE_EQ(m10.leaderboard_value->distinct, (1.5 * 100 + 2.0 * 1000) / 1100);
  EXPECT_EQ(m10.errors, 1);

  const NoveltySweepCell& m07 = snap.cells[1];
  EXPECT_EQ(m07.temperature, 0.7);
  EXPECT_DOUBLE_EQ(m07.means.mean_utility, 2.0);
  EXPECT_EQ(m07.by_mode.size(), 1u);                // no paraphrase rows at 0.7
  EXPECT_FALSE(m07.leaderboard_value.has_value());  // curated only
  EXPECT_EQ(m07.errors, 0);

  ASSERT_EQ(snap.leaderboard.size(), 2u);
  EXPECT_EQ(snap.leaderboard[0].model, "m");
  EXPECT_EQ(snap.leaderboard[0].temperature, 1.0);
  EXPECT_TRUE(snap.leaderboard[0].weighted);
  EXPECT_DOUBLE_EQ(snap.leaderboard[0].utility, 7350.0 / 1100);
  EXPECT_EQ(snap.leaderboard[1].model, "n");
  EXPECT_DOUBLE_EQ(snap.leaderboard[1].utility, 5.0);
  EXPECT_FALSE(snap.leaderboard[1].weighted);
}

TEST(NoveltyReducerTest, FailedUnitsAreListedButNotScored) {
  const NoveltySnapshot snap = HandSnapshot(HandNoveltyUnits());
  ASSERT_EQ(snap.rows.size(), 7u);
  const NoveltyRowResult& failed = snap.rows[4];
  EXPECT_EQ(failed.result.unit.mode, "paraphrase");
  EXPECT_EQ(failed.result.unit.dataset, "wildchat");
  EXPECT_FALSE(failed.score.has_value());
  EXPECT_EQ(failed.error, "generation by m failed: HTTP 503");
  EXPECT_EQ(failed.result.answers.size(), 1u);  // the generation it made is kept

  // An outcome that does not fit its generations is an error too, not a crash or a silent zero.
  NoveltyReducer reducer(HandSettings(), {"m"}, {1.0}, {"standard"}, {"curated"});
  UnitResult bad = MakeNoveltyUnit("m", 1.0, kModeStandard, "curated", 0, {0, 2}, {5, 5});
  reducer.Add(std::move(bad));
  UnitResult short_outcome = MakeNoveltyUnit("m", 1.0, kModeStandard, "curated", 1, {0, 1}, {5, 5});
  short_outcome.novelty->partition.pop_back();
  reducer.Add(std::move(short_outcome));
  const NoveltySnapshot s = reducer.Snapshot();
  ASSERT_EQ(s.rows.size(), 2u);
  EXPECT_NE(s.rows[0].error.find("cannot score the outcome"), std::string::npos) << s.rows[0].error;
  EXPECT_NE(s.rows[1].error.find("1 partition and 2 quality entries for 2 generations"), std::string::npos)
      << s.rows[1].error;
  EXPECT_EQ(s.cells[0].errors, 2);
  EXPECT_EQ(s.cells[0].means.prompts, 0);
}

TEST(NoveltyReducerTest, SnapshotDoesNotDependOnArrivalOrder) {
  std::vector<UnitResult> units = HandNoveltyUnits();
  const NoveltySnapshot a = HandSnapshot(units);
  std::reverse(units.begin(), units.end());
  std::rotate(units.begin(), units.begin() + 3, units.end());
  const NoveltySnapshot b = HandSnapshot(units);
  ASSERT_EQ(a.rows.size(), b.rows.size());
  std::vector<int> indexes;
  for (size_t i = 0; i < a.rows.size(); ++i) {
    EXPECT_EQ(a.rows[i].result.unit.id, b.rows[i].result.unit.id);
    indexes.push_back(a.rows[i].result.unit.index);
  }
  // Canonical order: model, temperature (config order: 1.0 before 0.7), mode, dataset, index.
  EXPECT_EQ(indexes, (std::vector<int>{0, 1, 2, 3, 4, 5, 6}));
  ASSERT_EQ(a.cells.size(), b.cells.size());
  for (size_t i = 0; i < a.cells.size(); ++i) {
    EXPECT_EQ(a.cells[i].means.mean_utility, b.cells[i].means.mean_utility);  // bitwise
    EXPECT_EQ(a.cells[i].means.mean_distinct, b.cells[i].means.mean_distinct);
  }
}

TEST(NoveltyReducerTest, OrdersModesAndDatasetsByConfigNotByName) {
  NoveltyReducer reducer(HandSettings(), {"m"}, {1.0}, {"system-prompt", "in-context"}, {"wildchat", "curated"});
  reducer.Add(MakeNoveltyUnit("m", 1.0, kModeInContext, "curated", 0, {0}, {5}));
  reducer.Add(MakeNoveltyUnit("m", 1.0, kModeSystemPrompt, "curated", 1, {0}, {5}));
  reducer.Add(MakeNoveltyUnit("m", 1.0, kModeSystemPrompt, "wildchat", 2, {0}, {5}));
  const NoveltySnapshot snap = reducer.Snapshot();
  EXPECT_EQ(snap.modes, (std::vector<std::string>{"system-prompt", "in-context"}));
  EXPECT_EQ(snap.datasets, (std::vector<std::string>{"wildchat", "curated"}));
  std::vector<int> indexes;
  for (const NoveltyRowResult& row : snap.rows) indexes.push_back(row.result.unit.index);
  EXPECT_EQ(indexes, (std::vector<int>{2, 1, 0}));
  EXPECT_EQ(snap.cells[0].mode, "system-prompt");
  EXPECT_EQ(snap.cells[0].means.prompts, 2);
}

TEST(NoveltyReducerTest, SecondResultForAUnitIsIgnoredButItsCallsCount) {
  NoveltyReducer reducer(HandSettings(), {"m"}, {1.0}, {"standard"}, {"curated"});
  const CallStats calls{{"generate:m", CallCounters{.requests = 1}}};
  EXPECT_TRUE(reducer.Add(MakeNoveltyUnit("m", 1.0, kModeStandard, "curated", 0, {0, 1}, {6, 3}), calls));
  EXPECT_FALSE(reducer.Add(MakeNoveltyUnit("m", 1.0, kModeStandard, "curated", 0, {0, 0}, {1, std::nullopt}), calls));
  EXPECT_TRUE(reducer.Contains("m/1/standard/curated/0"));
  EXPECT_EQ(reducer.UnitCount(), 1);
  const NoveltySnapshot snap = reducer.Snapshot();
  EXPECT_DOUBLE_EQ(snap.cells[0].means.mean_utility, 5.0);  // the first result's
  EXPECT_EQ(snap.calls.at("generate:m").requests, 2);
}

TEST(NoveltyReducerTest, LeaderboardValueNeedsBothCuratedAndWildchat) {
  EXPECT_FALSE(LeaderboardValue({{"curated", {1, 2, 3}}}).has_value());
  EXPECT_FALSE(LeaderboardValue({{"curated", {1, 2, 3}}, {"other", {4, 5, 6}}}).has_value());
  const auto value = LeaderboardValue({{"wildchat", {4.4, 2.2, 9}}, {"curated", {1.1, 3.3, 2}}});
  ASSERT_TRUE(value.has_value());
  EXPECT_DOUBLE_EQ(value->distinct, (1.1 * 100 + 4.4 * 1000) / 1100);
  EXPECT_DOUBLE_EQ(value->utility, (3.3 * 100 + 2.2 * 1000) / 1100);
}

// What the coordinator checks before it journals a "complete" NoveltyBench unit as done.
TEST(ScoreNoveltyResultTest, RefusesOutcomesThatDoNotFitTheirGenerations) {
  const UnitResult good = MakeNoveltyUnit("m", 1.0, kModeStandard, "curated", 0, {0, 1}, {6, 3});
  absl::StatusOr<noveltybench::RowScore> score = ScoreNoveltyResult(good, 0.5);
  ASSERT_TRUE(score.ok()) << score.status();
  EXPECT_EQ(score->distinct, 2);

  UnitResult no_outcome = good;
  no_outcome.novelty.reset();
  EXPECT_EQ(ScoreNoveltyResult(no_outcome, 0.5).status().code(), absl::StatusCode::kInvalidArgument);

  UnitResult short_partition = good;
  short_partition.novelty->partition = {0};
  EXPECT_EQ(ScoreNoveltyResult(short_partition, 0.5).status().code(), absl::StatusCode::kInvalidArgument);

  UnitResult unscored_opener = good;
  unscored_opener.novelty->quality = {6, std::nullopt};  // generation 1 opens class 1
  EXPECT_EQ(ScoreNoveltyResult(unscored_opener, 0.5).status().code(), absl::StatusCode::kInvalidArgument);

  UnitResult failed = good;
  failed.stop_reason = kStopError;
  failed.error = "generation by m failed: boom";
  EXPECT_EQ(ScoreNoveltyResult(failed, 0.5).status().message(), "generation by m failed: boom");
}

}  // namespace
}  // namespace noveltygrid::testing_units
