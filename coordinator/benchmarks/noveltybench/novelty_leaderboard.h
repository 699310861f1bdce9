// The human-readable NoveltyBench leaderboard of a sweep (FormatNoveltySweepLeaderboard), shaped like
// AidanBench's (aidanbench/aidan_leaderboard.h):
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
#ifndef NOVELTYGRID_COORDINATOR_BENCHMARKS_NOVELTYBENCH_NOVELTY_LEADERBOARD_H_
#define NOVELTYGRID_COORDINATOR_BENCHMARKS_NOVELTYBENCH_NOVELTY_LEADERBOARD_H_

#include <string>

#include "coordinator/benchmarks/noveltybench/novelty_reducer.h"

namespace noveltygrid {

inline constexpr char kNoveltySweepLeaderboardTitle[] = "NoveltyBench leaderboard (mean utility at best temperature)";

// `simulated` adds the SIMULATED MODELS line under the title.
std::string FormatNoveltySweepLeaderboard(const NoveltySnapshot& snapshot, bool simulated);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_BENCHMARKS_NOVELTYBENCH_NOVELTY_LEADERBOARD_H_
