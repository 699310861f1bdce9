// The human-readable AidanBench leaderboard: what the CLI prints and leaderboard.txt holds.
//
//   AidanBench leaderboard (valid answers at best temperature)
//   preset: reference-2025
//
//   model                        best temp  valid  novelty  T=0.7
//   anthropic/claude-3.5-sonnet        0.7    421   132.57  421 / 132.57
//
// One row per model, best valid answers first (ties by model name), then a "valid / novelty" column
// per temperature ("-" where the model has no result at that temperature). A pure function of the
// snapshot, so the text is as deterministic as summary.json.
//
#ifndef NOVELTYGRID_COORDINATOR_BENCHMARKS_AIDANBENCH_AIDAN_LEADERBOARD_H_
#define NOVELTYGRID_COORDINATOR_BENCHMARKS_AIDANBENCH_AIDAN_LEADERBOARD_H_

#include <string>

#include "coordinator/benchmarks/aidanbench/aidan_reducer.h"

namespace noveltygrid {

inline constexpr char kLeaderboardTitle[] = "AidanBench leaderboard (valid answers at best temperature)";

// `simulated` adds the SIMULATED MODELS line under the title.
std::string FormatLeaderboard(const AidanSnapshot& snapshot, bool simulated);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_BENCHMARKS_AIDANBENCH_AIDAN_LEADERBOARD_H_
