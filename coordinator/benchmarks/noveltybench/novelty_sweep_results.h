// The NoveltyBench part of a sweep's results folder (../shared/CONTRACT.md), from a NoveltyReducer
// snapshot, and its reading back for `noveltygrid report`:
//
//   samples.jsonl   one line per unit, canonical order:
//                   {"benchmark":"noveltybench","model","temperature","prompt_id","prompt","generations",
//                    "partition","quality","generation_scores","distinct","utility","mode","dataset",
//                    "unit_id",["reward"],["error"]}
//                   "quality" is 1..10 where scored (class openers), null elsewhere; "reward" the raw
//                   rewards behind it (null where none), present when a reward model scored. A failed
//                   unit has "error", the generations it made, and null partition and scores.
//   summary.json    "noveltybench": {MODEL: {TEMP: {"mean_distinct","mean_utility","prompts","patience",
//                   "partitioner","threshold","quality","mode",["partition_model"],"quality_model","k",
//                   "errors",["by_mode"],["by_dataset"],["leaderboard_value"]}}} and the
//                   "leaderboard"."noveltybench" list (results_writer.h assembles the whole file).
//
// The top-level means are the sweep's first mode's, over every dataset; "by_mode" (more than one mode)
// holds every mode's means, "by_dataset" (more than one dataset) the first mode's per dataset, and
// "leaderboard_value" the reference's (curated * 100 + wildchat * 1000) / 1100 when both are present.
// Pure functions; the same snapshot gives the same bytes.
#ifndef NOVELTYGRID_COORDINATOR_BENCHMARKS_NOVELTYBENCH_NOVELTY_SWEEP_RESULTS_H_
#define NOVELTYGRID_COORDINATOR_BENCHMARKS_NOVELTYBENCH_NOVELTY_SWEEP_RESULTS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/json_util.h"
#include "common/records.h"
#include "common/unit_settings.h"
#include "coordinator/benchmarks/noveltybench/novelty_reducer.h"

namespace noveltygrid {

// samples.jsonl's contents, a line per unit (its generations fetched from the snapshot's source if it
// has one).
absl::Status WriteNoveltySweepSamples(const NoveltySnapshot& snapshot, const RowsSink& sink);

// The "noveltybench" section of summary.json.
Json NoveltySweepSectionJson(const NoveltySnapshot& snapshot);

// The "leaderboard"."noveltybench" list: {"model","best_temperature","mean_utility","mean_distinct",
// "weighted"} per model, best first ("weighted": the numbers are the curated+wildchat value).
Json NoveltySweepLeaderboardJson(const NoveltySnapshot& snapshot);

// The units of a sweep's samples.jsonl, in file order (UnitSpec.index counts them): generations as
// answers, the outcome (partition, quality, reward) with stop_reason kStopComplete, or kStopError with
// the recorded error. InvalidArgument naming FILE:LINE for a malformed line; FailedPrecondition for a
// samples.jsonl without unit ids (written by import or repartition, not by a sweep).
absl::StatusOr<std::vector<UnitResult>> ReadNoveltySweepSamples(const std::string& path);

// The settings a summary.json's "noveltybench" cells record (patience, partitioner, threshold,
// partition_model, quality, quality_model, k); nullopt when it has none.
std::optional<NoveltySettings> NoveltySettingsFromSummary(const Json& summary);

// The human-readable NoveltyBench leaderboard of a sweep (novelty_leaderboard.cc), shaped like
// AidanBench's (aidanbench/aidan_results.h):
//
//   NoveltyBench leaderboard (mean utility at best temperature)
//   partitioner: classifier (threshold 0.102, sim:classifier); quality: reward (sim:reward); patience 0.8; k 10
//   mode: standard; datasets: curated, wildchat (utility / distinct: the curated+wildchat leaderboard value)
//
//   model         best temp  utility  distinct  prompts  T=1.0
//   sim:explorer        1.0     5.12      6.40       20  5.12 / 6.40
//
// and, with more than one mode, a second table of every mode's "utility / distinct" at each model's
// best temperature.
inline constexpr char kNoveltySweepLeaderboardTitle[] = "NoveltyBench leaderboard (mean utility at best temperature)";

// `simulated` adds the SIMULATED MODELS line under the title.
std::string FormatNoveltySweepLeaderboard(const NoveltySnapshot& snapshot, bool simulated);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_BENCHMARKS_NOVELTYBENCH_NOVELTY_SWEEP_RESULTS_H_
