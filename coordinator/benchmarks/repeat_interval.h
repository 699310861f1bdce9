// Mean and 95% confidence interval of a figure across a sweep's repeats (`repeats: N`): the Student t
// interval over the N per-repeat values, mean +- t(0.975, N-1) * s / sqrt(N) with s the sample standard
// deviation. Each repeat is one full pass over the questions or prompts with its own seed, so the
// interval says how much a figure moves between passes -- sampling noise of the model, not of the
// question set. Values are summed in the order given (repeat order), so results are deterministic.
#ifndef NOVELTYGRID_COORDINATOR_BENCHMARKS_REPEAT_INTERVAL_H_
#define NOVELTYGRID_COORDINATOR_BENCHMARKS_REPEAT_INTERVAL_H_

#include <string>
#include <utility>
#include <vector>

#include "common/json_util.h"

namespace noveltygrid {

inline constexpr char kRepeatIntervalMethod[] = "t-interval over repeats, 95%";
// The line under a leaderboard whose figures are means over repeats.
inline constexpr char kRepeatLeaderboardNote[] =
    "with repeats: mean +- half-width of the 95% t-interval across repeats";

struct RepeatInterval {
  int n = 0;
  double mean = 0;
  double half_width = 0;  // 0 when n < 2
};

RepeatInterval IntervalOf(const std::vector<double>& per_repeat);

// {"n", "mean", "half_width", "ci95": [low, high], "values": [...]}
Json IntervalJson(const RepeatInterval& interval, const std::vector<double>& per_repeat);

// {"interval": kRepeatIntervalMethod, NAME: IntervalJson(...) per named figure}: a cell's `repeats`.
Json RepeatsJson(const std::vector<std::pair<std::string, std::vector<double>>>& figures);

// "12.3 +- 1.4" with `decimals` digits after the point.
std::string FormatInterval(const RepeatInterval& interval, int decimals);

// FormatInterval with repeats (n > 1); the mean alone ("12.3") without.
std::string FormatIntervalOrMean(const RepeatInterval& interval, int decimals);

// The 0.975 quantile of Student's t with `df` degrees of freedom (df >= 1).
double StudentT975(int df);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_BENCHMARKS_REPEAT_INTERVAL_H_
