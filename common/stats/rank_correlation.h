// Correlation between two paired samples: Spearman's rank correlation, Kendall's tau-b and Pearson's r,
// each with ties handled -- what `noveltygrid correlate` reports between a sweep's per-model scores and
// an external leaderboard's, e.g.
//
//   absl::StatusOr<PairedCorrelation> c = CorrelatePairs({6057, 4922, 2673}, {1350, 1300, 1270});
//   if (c.ok()) std::printf("rho %.3f\n", c->spearman_rho);
//
// No p-values: they need the t (Pearson, Spearman) or normal (Kendall) distribution's tail, and no
// maintained implementation of one is a dependency of this project. With the handful of models a
// leaderboard comparison has, read the coefficients as descriptions, not tests.
//
// Pure functions of their arguments; safe from any thread.
#ifndef NOVELTYGRID_COMMON_STATS_RANK_CORRELATION_H_
#define NOVELTYGRID_COMMON_STATS_RANK_CORRELATION_H_

#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace noveltygrid {

// Each value's rank among `values`, 1 for the smallest; tied values share the mean of the ranks they
// span ({10, 20, 20, 30} -> {1, 2.5, 2.5, 4}).
std::vector<double> AverageRanks(absl::Span<const double> values);

// True when every value equals the first (or there are none): no coefficient below exists for a
// constant sample.
bool IsConstant(absl::Span<const double> values);

// The coefficients below fail with InvalidArgument when the two samples differ in length, have fewer
// than 2 pairs or hold a value that is not finite, and with FailedPrecondition when either sample is
// constant (every coefficient is then 0/0: undefined, not zero).

// Pearson's product-moment r, in [-1, 1].
absl::StatusOr<double> PearsonR(absl::Span<const double> x, absl::Span<const double> y);

// Spearman's rho: Pearson's r of the samples' AverageRanks (so ties are handled as the mean rank).
absl::StatusOr<double> SpearmanRho(absl::Span<const double> x, absl::Span<const double> y);

// Kendall's tau-b: (concordant - discordant) / sqrt((pairs - ties in x) * (pairs - ties in y)), over
// the n(n-1)/2 pairs; a pair tied in x or y is neither concordant nor discordant. O(n^2).
absl::StatusOr<double> KendallTauB(absl::Span<const double> x, absl::Span<const double> y);

// Every coefficient of one pair of samples.
struct PairedCorrelation {
  int n = 0;  // pairs
  double spearman_rho = 0;
  double kendall_tau_b = 0;
  double pearson_r = 0;
  double r_squared = 0;  // pearson_r squared: the variance a least-squares line through the points explains
};

// The coefficients above, with their errors.
absl::StatusOr<PairedCorrelation> CorrelatePairs(absl::Span<const double> x, absl::Span<const double> y);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COMMON_STATS_RANK_CORRELATION_H_
