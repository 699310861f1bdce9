// NoveltyBench scores, as ../shared/REFERENCE.md defines them:
//
//   quality   a raw reward r mapped to 1..10 by bisect_left(kRewardThresholds, r) + 1
//   earned    generation i earns its quality if it opens a new class, else 0 (the reference's
//             "generation_scores"; only class openers are ever scored there)
//   utility   sum_i p^i * earned_i / sum_i p^i over the k generations, patience p (default 0.8);
//             one class of quality 10 among k = 10 gives 2.2405805...
//   distinct  the number of classes
//
// Pure functions.
#ifndef NOVELTYGRID_COMMON_NOVELTYBENCH_SCORING_H_
#define NOVELTYGRID_COMMON_NOVELTYBENCH_SCORING_H_

#include <array>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"

namespace noveltygrid::noveltybench {

inline constexpr double kDefaultPatience = 0.8;
inline constexpr int kMinQuality = 1;
inline constexpr int kMaxQuality = 10;

// The reference's bucket edges for Skywork-Reward-Gemma-2-27B-v0.2 rewards.
inline constexpr std::array<double, 9> kRewardThresholds = {-7.71875, -6.28125, -6.0,    -5.71875, -5.5,
                                                            -5.0,     -4.375,   -3.4375, -2.046875};

// bisect_left(kRewardThresholds, reward) + 1: a reward equal to an edge falls in the lower bucket
// (-6.0 -> 3, -5.99 -> 4). NaN compares like Python (never less), so it maps to 1.
int QualityFromReward(double reward);

// What one row scores under one partition.
struct RowScore {
  std::vector<int> generation_scores;  // earned per generation (quality at class openers, else 0)
  int distinct = 0;                    // number of classes
  double utility = 0;
};

// Scores `partition` (canonical, see ValidatePartition) with per-generation `quality` (1..10; nullopt
// where unknown, allowed only where the generation does not open a class). InvalidArgument naming the
// generation otherwise, or for a patience that is not a finite number > 0, or mismatched lengths.
absl::StatusOr<RowScore> ScorePartition(const std::vector<int>& partition,
                                        const std::vector<std::optional<int>>& quality,
                                        double patience = kDefaultPatience);

// Quality for scoring a NEW partition of recorded generations. The reference scores class openers
// only, so a generation that opens a class in `fresh` may have no recorded quality; it then takes the
// quality of its recorded class's first member (judged the same idea by the recorded partitioner).
// `imputed` lists those generations. InvalidArgument when even that is unknown.
struct QualityForPartition {
  std::vector<std::optional<int>> quality;
  std::vector<int> imputed;
};
absl::StatusOr<QualityForPartition> QualityForNewPartition(const std::vector<int>& recorded,
                                                           const std::vector<std::optional<int>>& quality,
                                                           const std::vector<int>& fresh);

// The discounted average of `earned` (np.average(earned, weights=patience ** arange(k))).
double Utility(const std::vector<int>& earned, double patience = kDefaultPatience);

// The per-(model, temperature) summary: plain means over the rows, as the reference's summarize.py.
struct ScoreMeans {
  double mean_distinct = 0;
  double mean_utility = 0;
  int prompts = 0;
};
ScoreMeans MeanScores(const std::vector<const RowScore*>& scores);

}  // namespace noveltygrid::noveltybench

#endif  // NOVELTYGRID_COMMON_NOVELTYBENCH_SCORING_H_
