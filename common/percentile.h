// Nearest-rank percentiles: the smallest sample with at least p % of the samples at or below it.
#ifndef NOVELTYGRID_COMMON_PERCENTILE_H_
#define NOVELTYGRID_COMMON_PERCENTILE_H_

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace noveltygrid {

// The p-th percentile (0 < p <= 100) of `samples` by nearest rank, 0 when there are none. Reorders
// `samples` (a partial sort), so a caller that keeps them passes a copy.
inline int64_t NearestRankPercentile(std::vector<int64_t>& samples, double p) {
  if (samples.empty()) return 0;
  const double rank = std::ceil(p / 100.0 * static_cast<double>(samples.size()));
  const size_t index = static_cast<size_t>(std::clamp(rank, 1.0, static_cast<double>(samples.size()))) - 1;
  std::nth_element(samples.begin(), samples.begin() + static_cast<std::ptrdiff_t>(index), samples.end());
  return samples[index];
}

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COMMON_PERCENTILE_H_
