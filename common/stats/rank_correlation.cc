#include "common/stats/rank_correlation.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace noveltygrid {
namespace {

// Why no coefficient exists for (x, y), or OK. Constancy is checked on the values themselves: the
// mean of n equal values need not be that value in floating point, so a centred sum of squares could
// come out as a tiny non-zero and give a meaningless r.
absl::Status CheckSamples(absl::Span<const double> x, absl::Span<const double> y) {
  if (x.size() != y.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("correlation of samples of different lengths (", x.size(), " and ", y.size(), ")"));
  }
  if (x.size() < 2) {
    return absl::InvalidArgumentError(absl::StrCat("correlation needs at least 2 pairs, got ", x.size()));
  }
  for (absl::Span<const double> sample : {x, y}) {
    for (double v : sample) {
      if (!std::isfinite(v))
        return absl::InvalidArgumentError(absl::StrCat("correlation of a non-finite value (", v, ")"));
    }
  }
  if (IsConstant(x) || IsConstant(y)) {
    return absl::FailedPreconditionError(
        absl::StrCat(IsConstant(x) ? "the first" : "the second", " sample is constant: correlation is undefined"));
  }
  return absl::OkStatus();
}

// `values` divided by their largest magnitude (not constant, so not all zero): r does not change, and
// neither the sums nor the squares below can overflow or underflow, whatever the finite inputs' scale.
std::vector<double> Scaled(absl::Span<const double> values) {
  double largest = 0;
  for (double v : values) largest = std::max(largest, std::fabs(v));
  std::vector<double> scaled(values.begin(), values.end());
  for (double& v : scaled) v /= largest;
  return scaled;
}

double Mean(const std::vector<double>& values) {
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

// Pearson's r of checked samples: centred sums (two passes, no cancellation of large raw sums).
double CheckedPearson(absl::Span<const double> x_in, absl::Span<const double> y_in) {
  const std::vector<double> x = Scaled(x_in);
  const std::vector<double> y = Scaled(y_in);
  const double mx = Mean(x);
  const double my = Mean(y);
  double sxy = 0, sxx = 0, syy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double dx = x[i] - mx;
    const double dy = y[i] - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  return std::clamp(sxy / std::sqrt(sxx * syy), -1.0, 1.0);
}

double CheckedSpearman(absl::Span<const double> x, absl::Span<const double> y) {
  return CheckedPearson(AverageRanks(x), AverageRanks(y));
}

int Sign(double v) { return (v > 0) - (v < 0); }

double CheckedKendall(absl::Span<const double> x, absl::Span<const double> y) {
  // Counts as doubles: n(n-1)/2 pairs overflow nothing, and the product below would overflow an int.
  double concordant_minus_discordant = 0, untied_x = 0, untied_y = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    for (size_t j = i + 1; j < x.size(); ++j) {
      const int sx = Sign(x[i] - x[j]);
      const int sy = Sign(y[i] - y[j]);
      concordant_minus_discordant += sx * sy;
      untied_x += sx != 0;
      untied_y += sy != 0;
    }
  }
  return std::clamp(concordant_minus_discordant / std::sqrt(untied_x * untied_y), -1.0, 1.0);
}

// `coefficient` of (x, y) once CheckSamples passes.
absl::StatusOr<double> Checked(absl::Span<const double> x, absl::Span<const double> y,
                               double (*coefficient)(absl::Span<const double>, absl::Span<const double>)) {
  RETURN_IF_ERROR(CheckSamples(x, y));
  return coefficient(x, y);
}

}  // namespace

bool IsConstant(absl::Span<const double> values) {
  return std::all_of(values.begin(), values.end(), [&](double v) { return v == values.front(); });
}

std::vector<double> AverageRanks(absl::Span<const double> values) {
  std::vector<size_t> order(values.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return values[a] < values[b]; });
  std::vector<double> ranks(values.size());
  for (size_t start = 0; start < order.size();) {
    size_t end = start + 1;  // [start, end): one run of equal values
    while (end < order.size() && values[order[end]] == values[order[start]]) ++end;
    // Ranks start + 1 .. end, averaged.
    const double rank = (static_cast<double>(start + 1) + static_cast<double>(end)) / 2;
    for (size_t k = start; k < end; ++k) ranks[order[k]] = rank;
    start = end;
  }
  return ranks;
}

absl::StatusOr<double> PearsonR(absl::Span<const double> x, absl::Span<const double> y) {
  return Checked(x, y, CheckedPearson);
}

absl::StatusOr<double> SpearmanRho(absl::Span<const double> x, absl::Span<const double> y) {
  return Checked(x, y, CheckedSpearman);
}

absl::StatusOr<double> KendallTauB(absl::Span<const double> x, absl::Span<const double> y) {
  return Checked(x, y, CheckedKendall);
}

absl::StatusOr<PairedCorrelation> CorrelatePairs(absl::Span<const double> x, absl::Span<const double> y) {
  RETURN_IF_ERROR(CheckSamples(x, y));
  PairedCorrelation c;
  c.n = static_cast<int>(x.size());
  c.spearman_rho = CheckedSpearman(x, y);
  c.kendall_tau_b = CheckedKendall(x, y);
  c.pearson_r = CheckedPearson(x, y);
  c.r_squared = c.pearson_r * c.pearson_r;
  return c;
}

}  // namespace noveltygrid
