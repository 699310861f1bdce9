// NoveltyReducer: turns NoveltyBench unit results, as they complete, into what the results folder
// reports -- each unit's row (generations, partition, quality, distinct, utility) and per (model,
// temperature) means, broken down by sampling mode and dataset, with the reference's curated+wildchat
// leaderboard value and each model's best temperature.
//
// Like AidanReducer: results arrive from any thread, in any order, possibly more than once; the first
// result per unit id is kept, the call statistics of every result are merged. Output never depends on
// arrival order: rows are ordered by (model, temperature, mode, dataset in config order,
// UnitSpec.index, id) and every mean is summed in that order when a snapshot is made.
//
// A unit that failed (stop_reason kStopError) -- or whose outcome cannot be scored -- is listed with
// its error and the generations it made, counted in its cell's `errors`, and left out of the means.
//
// Thread-safety: every method may be called from any thread; the state is guarded by one mutex.
//
//   NoveltyReducer reducer(plan.novelty, plan.models, plan.novelty_temperatures, plan.novelty_modes,
//                          plan.novelty_datasets);
//   reducer.Add(std::move(result), call_stats);     // from any worker callback
//   NoveltySnapshot snapshot = reducer.Snapshot();  // ordered; hand it to WriteSweepResults
#ifndef NOVELTYGRID_COORDINATOR_BENCHMARKS_NOVELTYBENCH_NOVELTY_REDUCER_H_
#define NOVELTYGRID_COORDINATOR_BENCHMARKS_NOVELTYBENCH_NOVELTY_REDUCER_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "common/json_util.h"
#include "common/noveltybench/scoring.h"
#include "common/records.h"
#include "common/unit_settings.h"
#include "coordinator/benchmarks/item_groups.h"
#include "coordinator/benchmarks/reduced_units.h"

namespace noveltygrid {

// The reference's leaderboard weights (../shared/REFERENCE.md): (curated * 100 + wildchat * 1000) / 1100.
inline constexpr char kCuratedDataset[] = "curated";
inline constexpr char kWildchatDataset[] = "wildchat";
inline constexpr double kCuratedWeight = 100;
inline constexpr double kWildchatWeight = 1000;

// One unit as reduced.
struct NoveltyRowResult {
  UnitResult result;                            // the unit, its generations (answers; see source) and outcome
  std::optional<noveltybench::RowScore> score;  // absent when the unit failed
  std::string error;                            // why it failed; empty when scored
};

// The means of one named group of rows (a mode or a dataset).
struct NoveltyGroupMeans {
  std::string name;
  noveltybench::ScoreMeans means;
};

struct NoveltyWeightedValue {
  double distinct = 0;
  double utility = 0;
};

// One (model, temperature).
struct NoveltySweepCell {
  std::string model;
  double temperature = 0;
  std::string mode;                           // the sweep's first mode: the one `means` is about
  noveltybench::ScoreMeans means;             // that mode's rows, every dataset
  std::vector<NoveltyGroupMeans> by_mode;     // every mode with rows in the cell, sweep order
  std::vector<NoveltyGroupMeans> by_dataset;  // `mode`'s rows per dataset, sweep order
  // `mode`'s rows per prompt category (kNoGroup: prompts without one), by name; empty unless some prompt
  // of the sweep has a category (item_groups.h).
  std::vector<NoveltyGroupMeans> by_category;
  std::optional<NoveltyWeightedValue> leaderboard_value;  // when curated and wildchat both have rows
  // With `repeats: N` (N > 1): the headline value (leaderboard_value, else `means`) of each repeat.
  std::vector<NoveltyWeightedValue> by_repeat;
  int errors = 0;  // failed units of the cell, every mode and dataset
};

// A model's best temperature: the highest utility (the leaderboard value where there is one, else
// the cell's mean utility); ties go to the lower temperature.
struct NoveltyBest {
  std::string model;
  double temperature = 0;
  double utility = 0;
  double distinct = 0;
  bool weighted = false;                        // the numbers are the curated+wildchat leaderboard value
  std::vector<NoveltyWeightedValue> by_repeat;  // the best cell's, per repeat (empty without repeats)
};

// Distinct and utility of a cell's repeats, in repeat order.
std::vector<double> PerRepeatDistinct(const std::vector<NoveltyWeightedValue>& by_repeat);
std::vector<double> PerRepeatUtility(const std::vector<NoveltyWeightedValue>& by_repeat);

// Everything the results writer needs, in output order.
struct NoveltySnapshot {
  NoveltySettings settings;              // how the rows were generated and scored
  std::vector<std::string> models;       // with results, config order
  std::vector<double> temperatures;      // with results, config order
  std::vector<std::string> modes;        // with results, config order
  std::vector<std::string> datasets;     // with results, config order
  std::vector<std::string> categories;   // the rows' GroupKey(category), by name; empty when no row has one
  std::vector<NoveltyRowResult> rows;    // one per unit, canonical order; no generations when `source` is set
  std::vector<NoveltySweepCell> cells;   // model-major, then temperature
  std::vector<NoveltyBest> leaderboard;  // utility descending, then model name
  CallStats calls;                       // merged over the accepted results (run-dependent)
  Json run = Json::object();             // free-form run information (run-dependent)
  const UnitSource* source = nullptr;    // where the units' generations are (not owned); null: in `rows`
};

class NoveltyReducer : public ReducedUnits<NoveltyRowResult> {
 public:
  // `settings` scores the rows (patience) and describes them in the summary. The four lists fix the
  // output order (models and temperatures: see ReducedUnits); results outside them are accepted and
  // sorted after them (by value). `source`: see ReducedUnits.
  NoveltyReducer(NoveltySettings settings, std::vector<std::string> models, std::vector<double> temperatures,
                 std::vector<std::string> modes, std::vector<std::string> datasets, const UnitSource* source = nullptr);

  // Scores the unit and keeps it (see ReducedUnits).
  bool Add(UnitResult result, const CallStats& calls = {}) override;

  NoveltySnapshot Snapshot() const;
  // The snapshot as the results writer takes it (a NoveltyBenchResults).
  std::unique_ptr<BenchmarkResults> Results() const override;

 private:
  // Constant after construction.
  const NoveltySettings settings_;
  const std::vector<std::string> modes_;
  const std::vector<std::string> datasets_;
};

// The scores of a NoveltyBench result: FailedPrecondition (its error) for a failed unit, InvalidArgument
// for an outcome that does not fit its generations (missing, mis-sized, a class opener without a
// quality 1..10).
absl::StatusOr<noveltybench::RowScore> ScoreNoveltyResult(const UnitResult& result, double patience);

// The reference's leaderboard value of a cell's per-dataset means: nullopt unless both curated and
// wildchat are among them.
std::optional<NoveltyWeightedValue> LeaderboardValue(const std::vector<NoveltyGroupMeans>& by_dataset);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_BENCHMARKS_NOVELTYBENCH_NOVELTY_REDUCER_H_
