#include "coordinator/benchmarks/aidanbench/aidan_reducer.h"

#include <algorithm>
#include <atomic>
#include <thread>

#include "common/aidan_scoring.h"
#include "gtest/gtest.h"
#include "tests/coordinator/aidan_test_units.h"

namespace noveltygrid {
namespace {

using testing_units::MakeUnit;
using testing_units::Preset;
using testing_units::SweepUnits;

TEST(AidanReducerTest, SecondResultForAUnitIsIgnoredButItsCallsCount) {
  AidanReducer reducer(Preset("reference-2025"), {"m"}, {0.7});
  CallStats calls{{"generate:m", CallCounters{.requests = 3}}};
  EXPECT_TRUE(reducer.Add(MakeUnit("m", 0.7, 0, {{80, 1.0}, {70, 0.5}, {60, 0.1}}), calls));
  UnitResult again = MakeUnit("m", 0.7, 0, {{80, 1.0}});
  EXPECT_FALSE(reducer.Add(std::move(again), calls));
  EXPECT_EQ(reducer.UnitCount(), 1);
  EXPECT_TRUE(reducer.Contains("m/0.7/0"));

  AidanSnapshot snap = reducer.Snapshot();
  ASSERT_EQ(snap.cells.size(), 1u);
  EXPECT_EQ(snap.cells[0].totals.stored_answers, 3);
  EXPECT_EQ(snap.cells[0].totals.valid_answers, 2);
  EXPECT_EQ(snap.cells[0].totals.questions, 1);
  EXPECT_EQ(snap.calls.at("generate:m").requests, 6);
}

TEST(AidanReducerTest, SnapshotDoesNotDependOnArrivalOrder) {
  std::vector<UnitResult> units = SweepUnits();
  const std::vector<std::string> models = {"sim:explorer", "sim:collapse"};
  const std::vector<double> temps = {0.0, 0.7, 1.0};
  AidanReducer forward(Preset("reference-2025"), models, temps);
  AidanReducer backward(Preset("reference-2025"), models, temps);
  for (const UnitResult& u : units) forward.Add(u);
  std::reverse(units.begin(), units.end());
  std::rotate(units.begin(), units.begin() + 5, units.end());
  for (const UnitResult& u : units) backward.Add(u);

  AidanSnapshot a = forward.Snapshot();
  AidanSnapshot b = backward.Snapshot();
  ASSERT_EQ(a.cells.size(), 6u);
  ASSERT_EQ(a.units.size(), b.units.size());
  for (size_t i = 0; i < a.units.size(); ++i) EXPECT_EQ(a.units[i].unit.id, b.units[i].unit.id);
  for (size_t i = 0; i < a.cells.size(); ++i) {
    EXPECT_EQ(a.cells[i].model, b.cells[i].model);
    EXPECT_EQ(a.cells[i].temperature, b.cells[i].temperature);
    // Bitwise equal, not just close: sums are taken in one fixed order.
    EXPECT_EQ(a.cells[i].totals.novelty_sum, b.cells[i].totals.novelty_sum);
    EXPECT_EQ(a.cells[i].totals.mmr_sum, b.cells[i].totals.mmr_sum);
  }
  EXPECT_EQ(a.models, models);
  EXPECT_EQ(a.temperatures, temps);
}

// Room reserved for the plan's units up front: adding them never grows the index (no commit waits for
// a rehash), and the snapshot is the same as without the reservation.
TEST(AidanReducerTest, ReservedUnitsFitWithoutGrowingTheIndex) {
  const std::vector<UnitResult> units = SweepUnits();
  const std::vector<std::string> models = {"sim:explorer", "sim:collapse"};
  const std::vector<double> temps = {0.0, 0.7, 1.0};
  AidanReducer reserved(Preset("reference-2025"), models, temps);
  AidanReducer plain(Preset("reference-2025"), models, temps);
  reserved.Reserve(units.size());
  const size_t capacity = reserved.Capacity();
  EXPECT_GE(capacity, units.size());
  for (const UnitResult& u : units) {
    reserved.Add(u);
    plain.Add(u);
  }
  EXPECT_EQ(reserved.Capacity(), capacity);
  const AidanSnapshot a = reserved.Snapshot();
  const AidanSnapshot b = plain.Snapshot();
  ASSERT_EQ(a.units.size(), units.size());
  ASSERT_EQ(a.units.size(), b.units.size());
  for (size_t i = 0; i < a.units.size(); ++i) EXPECT_EQ(a.units[i].unit.id, b.units[i].unit.id);
  ASSERT_EQ(a.cells.size(), b.cells.size());
  for (size_t i = 0; i < a.cells.size(); ++i) EXPECT_EQ(a.cells[i].totals.novelty_sum, b.cells[i].totals.novelty_sum);
}

TEST(AidanReducerTest, OrdersByConfigNotByNameOrArrival) {
  AidanReducer reducer(Preset("reference-2025"), {"zeta", "alpha"}, {1.0, 0.2});
  reducer.Add(MakeUnit("alpha", 0.2, 5, {{80, 1.0}}));
  reducer.Add(MakeUnit("unplanned", 0.5, 9, {{80, 1.0}}));
  reducer.Add(MakeUnit("zeta", 0.2, 1, {{80, 1.0}}));
  reducer.Add(MakeUnit("zeta", 1.0, 0, {{80, 1.0}}));
  reducer.Add(MakeUnit("alpha", 1.0, 3, {{80, 1.0}}));
  AidanSnapshot snap = reducer.Snapshot();
  EXPECT_EQ(snap.models, (std::vector<std::string>{"zeta", "alpha", "unplanned"}));
  EXPECT_EQ(snap.temperatures, (std::vector<double>{1.0, 0.2, 0.5}));
  std::vector<int> indexes;
  for (const UnitResult& u : snap.units) indexes.push_back(u.unit.index);
  EXPECT_EQ(indexes, (std::vector<int>{0, 1, 3, 5, 9}));
  ASSERT_EQ(QuestionRows(snap).size(), 5u);
  EXPECT_EQ(QuestionRows(snap)[0].unit_id, "zeta/1/0");
}

TEST(AidanReducerTest, CoherenceExactlyFifteenStopsTheLoopButCountsUnderReference2025) {
  const AidanPreset preset = Preset("reference-2025");
  UnitResult unit = MakeUnit("m", 0.7, 0, {{80, 1.0}, {15, 0.6}}, kStopIncoherent);
  EXPECT_TRUE(AidanShouldStop(preset, unit.answers[1]));

  AidanReducer reducer(preset, {"m"}, {0.7});
  reducer.Add(std::move(unit));
  reducer.Add(MakeUnit("m", 0.7, 1, {{80, 1.0}, {14, 0.6}}, kStopIncoherent));
  AidanSnapshot snap = reducer.Snapshot();
  ASSERT_EQ(QuestionRows(snap).size(), 2u);
  EXPECT_EQ(QuestionRows(snap)[0].valid_answers, 2);
  EXPECT_EQ(QuestionRows(snap)[1].valid_answers, 1);
  EXPECT_TRUE(snap.units[0].answers[1].valid);
  EXPECT_FALSE(snap.units[1].answers[1].valid);
  EXPECT_EQ(snap.cells[0].totals.valid_answers, 3);
}

TEST(AidanReducerTest, RowAveragesAreOverValidAnswers) {
  AidanReducer reducer(Preset("reference-2025"), {"m"}, {0.7});
  reducer.Add(MakeUnit("m", 0.7, 0, {{80, 1.0}, {60, 0.5}, {90, 0.1}}));
  reducer.Add(MakeUnit("m", 0.7, 1, {{10, 1.0}}, kStopIncoherent));
  AidanSnapshot snap = reducer.Snapshot();
  ASSERT_EQ(QuestionRows(snap).size(), 2u);
  EXPECT_EQ(QuestionRows(snap)[0].iterations, 3);
  EXPECT_EQ(QuestionRows(snap)[0].valid_answers, 2);
  EXPECT_DOUBLE_EQ(*QuestionRows(snap)[0].avg_coherence, 0.7);
  EXPECT_DOUBLE_EQ(*QuestionRows(snap)[0].avg_novelty, 0.75);
  // MMR = 0.5 * coherence/100 - 0.5 * (1 - novelty): (0.4 - 0) and (0.3 - 0.25).
  EXPECT_DOUBLE_EQ(*QuestionRows(snap)[0].avg_mmr, (0.4 + 0.05) / 2);
  EXPECT_EQ(QuestionRows(snap)[0].stop_reason, kStopRepetitive);
  EXPECT_FALSE(QuestionRows(snap)[1].avg_coherence.has_value());
}

TEST(AidanReducerTest, ErrorsAreCountedPerQuestion) {
  AidanReducer reducer(Preset("reference-2025"), {"m"}, {0.7});
  UnitResult failed = MakeUnit("m", 0.7, 0, {}, kStopError);
  failed.error = "generation by m failed: 503";
  reducer.Add(std::move(failed));
  UnitResult judge = MakeUnit("m", 0.7, 1, {{80, 1.0}, {0, 0.5}}, kStopError);
  judge.answers[1].error = "judge reply unparseable";
  judge.error = "judge reply unparseable";
  reducer.Add(std::move(judge));
  AidanSnapshot snap = reducer.Snapshot();
  EXPECT_EQ(snap.cells[0].totals.errors, 2);
  EXPECT_EQ(snap.cells[0].totals.questions, 2);
  EXPECT_EQ(snap.cells[0].totals.valid_answers, 1);
  EXPECT_EQ(QuestionRows(snap)[0].error, "generation by m failed: 503");
}

TEST(AidanReducerTest, BestTemperaturePrefersValidThenNoveltyThenLowerTemperature) {
  AidanReducer reducer(Preset("reference-2025"), {"a", "b", "c"}, {1.0, 0.7, 0.2});
  // a: 0.7 and 1.0 tie on valid answers; 1.0 has more novelty.
  reducer.Add(MakeUnit("a", 0.2, 0, {{80, 1.0}}));
  reducer.Add(MakeUnit("a", 0.7, 1, {{80, 1.0}, {80, 0.3}}));
  reducer.Add(MakeUnit("a", 1.0, 2, {{80, 1.0}, {80, 0.4}}));
  // b: a full tie goes to the lower temperature.
  reducer.Add(MakeUnit("b", 1.0, 3, {{80, 1.0}, {80, 0.5}}));
  reducer.Add(MakeUnit("b", 0.2, 4, {{80, 1.0}, {80, 0.5}}));
  // c: as many valid answers as a: ranked after it by name.
  reducer.Add(MakeUnit("c", 0.7, 5, {{80, 1.0}, {80, 0.9}}));
  AidanSnapshot snap = reducer.Snapshot();
  ASSERT_EQ(snap.leaderboard.size(), 3u);
  EXPECT_EQ(snap.leaderboard[0].model, "a");
  EXPECT_EQ(snap.leaderboard[0].temperature, 1.0);
  EXPECT_EQ(snap.leaderboard[1].model, "b");
  EXPECT_EQ(snap.leaderboard[1].temperature, 0.2);
  EXPECT_EQ(snap.leaderboard[2].model, "c");
}

TEST(AidanReducerTest, ConcurrentAddsCountEveryUnitOnce) {
  std::vector<UnitResult> units = SweepUnits();
  AidanReducer reducer(Preset("reference-2025"), {"sim:explorer", "sim:collapse"}, {0.0, 0.7, 1.0});
  std::vector<std::thread> threads;
  std::atomic<int> accepted{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (const UnitResult& u : units) accepted += reducer.Add(u, {{"judge:sim", {.requests = 1}}});
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(accepted.load(), static_cast<int>(units.size()));
  EXPECT_EQ(reducer.UnitCount(), static_cast<int>(units.size()));
  EXPECT_EQ(reducer.Snapshot().calls.at("judge:sim").requests, 4 * static_cast<int64_t>(units.size()));
}

}  // namespace
}  // namespace noveltygrid
