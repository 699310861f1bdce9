#include "coordinator/benchmarks/repeat_interval.h"

#include <cmath>

#include "absl/strings/str_format.h"

namespace noveltygrid {

double StudentT975(int df) {
  // Exact to the digits shown for df <= 30; above, the Cornish-Fisher expansion around the normal
  // quantile (error < 1e-4 there).
  static constexpr double kTable[] = {12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281,
                                      2.2010,  2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860,
                                      2.0796,  2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423};
  if (df < 1) df = 1;
  if (df <= 30) return kTable[df - 1];
  const double z = 1.959964;
  const double v = static_cast<double>(df);
  return z + (z * z * z + z) / (4 * v) + (5 * std::pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * v * v);
}

RepeatInterval IntervalOf(const std::vector<double>& per_repeat) {
  RepeatInterval r;
  r.n = static_cast<int>(per_repeat.size());
  if (r.n == 0) return r;
  double sum = 0;
  for (double v : per_repeat) sum += v;
  r.mean = sum / r.n;
  if (r.n < 2) return r;
  double squares = 0;
  for (double v : per_repeat) squares += (v - r.mean) * (v - r.mean);
  const double sd = std::sqrt(squares / (r.n - 1));
  r.half_width = StudentT975(r.n - 1) * sd / std::sqrt(static_cast<double>(r.n));
  return r;
}

Json IntervalJson(const RepeatInterval& interval, const std::vector<double>& per_repeat) {
  return Json{{"n", interval.n},
              {"mean", interval.mean},
              {"half_width", interval.half_width},
              {"ci95", Json::array({interval.mean - interval.half_width, interval.mean + interval.half_width})},
              {"values", per_repeat}};
}

Json RepeatsJson(const std::vector<std::pair<std::string, std::vector<double>>>& figures) {
  Json j{{"interval", kRepeatIntervalMethod}};
  for (const auto& [name, values] : figures) j[name] = IntervalJson(IntervalOf(values), values);
  return j;
}

std::string FormatInterval(const RepeatInterval& interval, int decimals) {
  return absl::StrFormat("%.*f +- %.*f", decimals, interval.mean, decimals, interval.half_width);
}

std::string FormatIntervalOrMean(const RepeatInterval& interval, int decimals) {
  return interval.n > 1 ? FormatInterval(interval, decimals) : absl::StrFormat("%.*f", decimals, interval.mean);
}

}  // namespace noveltygrid
