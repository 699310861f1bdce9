// AidanReducer: turns AidanBench unit results, as they complete, into the numbers the results folder
// reports -- per (model, temperature) totals, a per-question table and each model's best temperature.
//
// Results arrive one unit at a time, from any thread, in any order, and possibly more than once (a
// lease that expired and ran again). The reducer keeps the first result per unit id and ignores later
// ones, so every unit counts exactly once. Output never depends on arrival order: units are ordered
// by (model in config order, temperature in config order, UnitSpec.index, id), and every floating
// point sum is taken in that order when a snapshot is made -- double addition is not associative, so
// summing on arrival would let scheduling change the last digits of the results.
//
// Validity is decided by the reducer's preset: Add re-marks `valid` with it, and answers.jsonl re-marks
// the answers it reads back from the source with the same preset (MarkValidAnswers, one rule).
//
// Thread-safety: every method may be called from any thread; the state is guarded by one mutex.
//
//   AidanReducer reducer(preset, plan.models, plan.aidan_temperatures);
//   reducer.Add(std::move(result), call_stats);   // from any worker callback
//   AidanSnapshot snapshot = reducer.Snapshot();  // ordered; hand it to WriteResultsFolder
#ifndef NOVELTYGRID_COORDINATOR_BENCHMARKS_AIDANBENCH_AIDAN_REDUCER_H_
#define NOVELTYGRID_COORDINATOR_BENCHMARKS_AIDANBENCH_AIDAN_REDUCER_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "common/aidan_scoring.h"
#include "common/config.h"
#include "common/json_util.h"
#include "common/records.h"
#include "coordinator/benchmarks/item_groups.h"
#include "coordinator/benchmarks/reduced_units.h"

namespace noveltygrid {

// Totals of one domain of a cell (questions' `domain`, kNoGroup for those without one): the sum of its
// questions' totals, and per subdomain (kNoGroup for those without one) when any question of the domain
// in the cell has a subdomain.
struct AidanDomain {
  AidanTotals totals;
  std::map<std::string, AidanTotals> by_subdomain;
};

// Totals of one (model, temperature): the sum of its questions' totals (over every repeat).
struct AidanCell {
  std::string model;
  double temperature = 0;
  AidanTotals totals;
  std::vector<AidanTotals> by_repeat;  // per repeat (`repeats: N`); one entry without repeats
  int max_iterations = 0;              // the cap recorded with the units (0 = none)
  bool has_llm_novelty = false;        // some answer carried an LLM novelty score
  // Per domain, by name; empty unless some question of the sweep has a domain (item_groups.h).
  std::map<std::string, AidanDomain> by_domain;
};

// One row of the per-question table (paper Table 1). Averages are over valid answers, coherence on
// the 0-1 scale of coherence_sum; they are absent when the question has no valid answer.
struct AidanQuestionRow {
  std::string model;
  double temperature = 0;
  std::string question_id;
  std::string question;
  std::string domain;  // the question's metadata ("" when it has none)
  std::string subdomain;
  long long iterations = 0;  // stored answers
  long long valid_answers = 0;
  int repeat = 0;
  std::optional<double> avg_coherence;
  std::optional<double> avg_novelty;
  std::optional<double> avg_mmr;
  std::string stop_reason;
  std::string error;
  std::string unit_id;
};

// A model's best temperature: most valid answers; ties go to the higher novelty sum, then to the
// lower temperature.
struct AidanBest {
  std::string model;
  double temperature = 0;
  AidanTotals totals;
  std::vector<AidanTotals> by_repeat;  // the best cell's, per repeat
};

// The per-question table row of one unit (its totals: the question's alone).
AidanQuestionRow QuestionRowOf(const UnitResult& unit, const AidanTotals& totals);

// Valid answers and novelty sums of a cell's repeats, in repeat order.
std::vector<double> PerRepeatValidAnswers(const std::vector<AidanTotals>& by_repeat);
std::vector<double> PerRepeatNoveltySum(const std::vector<AidanTotals>& by_repeat);

// Everything the results writer needs, in output order.
struct AidanSnapshot {
  AidanPreset preset;
  std::vector<std::string> models;       // models with results, config order
  std::vector<double> temperatures;      // temperatures with results, config order
  std::vector<UnitResult> units;         // canonical unit order, `valid` marked; no answers when `source` is set
  std::vector<AidanCell> cells;          // model-major, then temperature
  std::vector<AidanTotals> unit_totals;  // each unit's, parallel to `units` (QuestionRows)
  std::vector<AidanBest> leaderboard;    // valid answers descending, then model name
  CallStats calls;                       // merged over the accepted results (run-dependent)
  Json run = Json::object();             // free-form run information (run-dependent)
  const UnitSource* source = nullptr;    // where the units' answers are (not owned); null: in `units`
};

// Every unit's row, canonical order (made on demand: a large sweep's table is not kept).
std::vector<AidanQuestionRow> QuestionRows(const AidanSnapshot& snapshot);

// One unit as kept: its result (without answers when the reducer has a source) and what the snapshot
// needs of its answers, computed on arrival.
struct AidanEntry {
  UnitResult result;
  AidanTotals totals;            // of this question alone
  bool has_llm_novelty = false;  // some answer carried an LLM novelty score
};

class AidanReducer : public ReducedUnits<AidanEntry> {
 public:
  // `models`, `temperatures` and `source`: see ReducedUnits.
  AidanReducer(AidanPreset preset, std::vector<std::string> models, std::vector<double> temperatures,
               const UnitSource* source = nullptr);

  // Re-marks the answers' validity, scores the unit and keeps it (see ReducedUnits).
  bool Add(UnitResult result, const CallStats& calls = {}) override;

  AidanSnapshot Snapshot() const;
  // The snapshot as the results writer takes it (an AidanBenchResults).
  std::unique_ptr<BenchmarkResults> Results() const override;

 private:
  const AidanPreset preset_;  // constant after construction
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_BENCHMARKS_AIDANBENCH_AIDAN_REDUCER_H_
