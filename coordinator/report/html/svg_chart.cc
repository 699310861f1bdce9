#include "coordinator/report/html/svg_chart.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "coordinator/report/html/html_page.h"

namespace noveltygrid {
namespace {

// Colour-blind-friendly categorical palette (Okabe-Ito, then a few darker tones).
constexpr const char* kPalette[] = {"#0072b2", "#e69f00", "#009e73", "#d55e00", "#cc79a7", "#56b4e9",
                                    "#b8a000", "#000000", "#7f3c8d", "#11a579", "#3969ac", "#e73f74"};
constexpr const char* kDashes[] = {"", "6 3", "2 3", "8 3 2 3", "1 2"};
constexpr int kMarginLeft = 60;
constexpr int kMarginRight = 170;  // the legend
constexpr int kMarginTop = 26;
constexpr int kMarginBottom = 44;
constexpr int kLegendRow = 16;

const char* DashOf(const ChartSeries& s) { return kDashes[s.dash % (sizeof(kDashes) / sizeof(kDashes[0]))]; }

// A coordinate in whole pixels (half a pixel is invisible, and a large sweep's charts stay small).
std::string Coord(double v) { return absl::StrCat(static_cast<long long>(std::lround(v))); }

constexpr int kMarginRightWithoutLegend = 16;

struct Range {
  double low = std::numeric_limits<double>::infinity();
  double high = -std::numeric_limits<double>::infinity();
  void Add(double v) {
    if (!std::isfinite(v)) return;
    low = std::min(low, v);
    high = std::max(high, v);
  }
  bool empty() const { return low > high; }
};

// Maps data coordinates onto the plot area.
class Frame {
 public:
  Frame(const ChartSpec& spec, int height, const std::vector<double>& xt, const std::vector<double>& yt)
      : left_(kMarginLeft),
        right_(spec.width - (spec.legend ? kMarginRight : kMarginRightWithoutLegend)),
        top_(kMarginTop),
        bottom_(height - kMarginBottom),
        x0_(xt.front()),
        x1_(xt.back()),
        y0_(yt.front()),
        y1_(yt.back()) {}
  double X(double x) const {
    return x1_ == x0_ ? (left_ + right_) / 2.0 : left_ + (x - x0_) / (x1_ - x0_) * (right_ - left_);
  }
  double Y(double y) const {
    return y1_ == y0_ ? (top_ + bottom_) / 2.0 : bottom_ - (y - y0_) / (y1_ - y0_) * (bottom_ - top_);
  }
  int left() const { return left_; }
  int right() const { return right_; }
  int top() const { return top_; }
  int bottom() const { return bottom_; }

 private:
  int left_, right_, top_, bottom_;
  double x0_, x1_, y0_, y1_;
};

std::string SeriesColor(const ChartSeries& s, int position) { return PaletteColor(s.color >= 0 ? s.color : position); }

std::string Axes(const ChartSpec& spec, const Frame& f, const std::vector<double>& xt, const std::vector<double>& yt) {
  std::string out;
  const double ystep = yt.size() > 1 ? yt[1] - yt[0] : 1;
  for (double y : yt) {
    const std::string py = Coord(f.Y(y));
    absl::StrAppend(&out, "<line class=\"grid\" x1=\"", f.left(), "\" x2=\"", f.right(), "\" y1=\"", py, "\" y2=\"", py,
                    "\"/><text class=\"tick\" x=\"", f.left() - 6, "\" y=\"", py,
                    "\" text-anchor=\"end\" dy=\"0.32em\">", TickText(y, ystep), "</text>");
  }
  if (spec.kind == ChartKind::kBar) {
    for (size_t i = 0; i < spec.categories.size(); ++i) {
      absl::StrAppend(&out, "<text class=\"tick\" x=\"", Coord(f.X(static_cast<double>(i))), "\" y=\"", f.bottom() + 14,
                      "\" text-anchor=\"middle\">", HtmlEscape(spec.categories[i]), "</text>");
    }
  } else {
    const double xstep = xt.size() > 1 ? xt[1] - xt[0] : 1;
    for (double x : xt) {
      absl::StrAppend(&out, "<text class=\"tick\" x=\"", Coord(f.X(x)), "\" y=\"", f.bottom() + 14,
                      "\" text-anchor=\"middle\">", TickText(x, xstep), "</text>");
    }
  }
  absl::StrAppend(&out, "<line class=\"axis\" x1=\"", f.left(), "\" x2=\"", f.right(), "\" y1=\"", f.bottom(),
                  "\" y2=\"", f.bottom(), "\"/><line class=\"axis\" x1=\"", f.left(), "\" x2=\"", f.left(), "\" y1=\"",
                  f.top(), "\" y2=\"", f.bottom(), "\"/>");
  absl::StrAppend(&out, "<text class=\"label\" x=\"", (f.left() + f.right()) / 2, "\" y=\"", f.bottom() + 34,
                  "\" text-anchor=\"middle\">", HtmlEscape(spec.x_label), "</text>");
  absl::StrAppend(&out, "<text class=\"label\" transform=\"translate(14,", (f.top() + f.bottom()) / 2,
                  ") rotate(-90)\" text-anchor=\"middle\">", HtmlEscape(spec.y_label), "</text>");
  return out;
}

// A vertical error bar at pixel column `px` for point `p` (nothing when it has no error).
std::string ErrorBar(const Frame& f, double px, const ChartPoint& p) {
  if (!(p.error > 0)) return "";
  const std::string x = Coord(px), lo = Coord(f.Y(p.y - p.error)), hi = Coord(f.Y(p.y + p.error));
  const std::string xl = Coord(px - 3), xr = Coord(px + 3);
  return absl::StrCat("<path class=\"err\" d=\"M", x, " ", lo, "V", hi, "M", xl, " ", lo, "H", xr, "M", xl, " ", hi,
                      "H", xr, "\"/>");
}

std::string Tooltip(const ChartPoint& p) {
  return p.label.empty() ? "" : absl::StrCat("<title>", HtmlEscape(p.label), "</title>");
}

std::string SeriesBody(const ChartSpec& spec, const Frame& f, const ChartSeries& s, int position, int bar_slot,
                       int bar_slots) {
  const std::string color = SeriesColor(s, position);
  std::string out;
  if (spec.kind == ChartKind::kBar) {
    const double band = (f.right() - f.left()) / std::max<double>(1, spec.categories.size());
    const double width = std::min(40.0, band * 0.8 / bar_slots);
    for (const ChartPoint& p : s.points) {
      const double left = f.X(p.x) - width * bar_slots / 2 + width * bar_slot;
      const double top = f.Y(std::max(0.0, p.y)), base = f.Y(std::min(0.0, p.y));
      absl::StrAppend(&out, "<rect x=\"", Coord(left), "\" y=\"", Coord(top), "\" width=\"", Coord(width * 0.92),
                      "\" height=\"", Coord(base - top), "\" fill=\"", color, "\">", Tooltip(p), "</rect>",
                      ErrorBar(f, left + width * 0.46, p));
    }
    return out;
  }
  std::vector<ChartPoint> points = s.points;
  if (spec.kind == ChartKind::kLine) {
    std::stable_sort(points.begin(), points.end(), [](const ChartPoint& a, const ChartPoint& b) { return a.x < b.x; });
    std::string coords;
    for (const ChartPoint& p : points) {
      if (!std::isfinite(p.y)) continue;
      absl::StrAppend(&coords, coords.empty() ? "" : " ", Coord(f.X(p.x)), ",", Coord(f.Y(p.y)));
    }
    const char* dash = DashOf(s);
    absl::StrAppend(&out, "<polyline fill=\"none\" stroke=\"", color, "\" points=\"", coords, "\"",
                    *dash ? absl::StrCat(" stroke-dasharray=\"", dash, "\"") : "", "/>");
  }
  for (const ChartPoint& p : points) {
    if (!std::isfinite(p.y)) continue;
    absl::StrAppend(&out, ErrorBar(f, f.X(p.x), p));
    if (spec.kind == ChartKind::kScatter || s.markers) {
      absl::StrAppend(&out, "<circle cx=\"", Coord(f.X(p.x)), "\" cy=\"", Coord(f.Y(p.y)), "\" r=\"",
                      spec.kind == ChartKind::kScatter ? 4 : 2.5, "\" fill=\"", color, "\">", Tooltip(p), "</circle>");
    }
  }
  return out;
}

std::string Legend(const ChartSpec& spec, const Frame& f) {
  std::string out;
  const int x = f.right() + 14;
  for (size_t i = 0; i < spec.series.size(); ++i) {
    const ChartSeries& s = spec.series[i];
    const int y = f.top() + 6 + static_cast<int>(i) * kLegendRow;
    const char* dash = DashOf(s);
    absl::StrAppend(&out, "<line x1=\"", x, "\" x2=\"", x + 18, "\" y1=\"", y, "\" y2=\"", y, "\" stroke=\"",
                    SeriesColor(s, static_cast<int>(i)), "\" stroke-width=\"3\"",
                    *dash ? absl::StrCat(" stroke-dasharray=\"", dash, "\"") : "", "/><text class=\"legend\" x=\"",
                    x + 24, "\" y=\"", y, "\" dy=\"0.32em\">", HtmlEscape(s.label), "</text>");
  }
  return out;
}

}  // namespace

std::string HtmlLegend(const std::vector<ChartSeries>& series) {
  std::string out = "<div class=\"legend\">";
  for (size_t i = 0; i < series.size(); ++i) {
    const ChartSeries& s = series[i];
    const char* dash = DashOf(s);
    absl::StrAppend(&out, "<span><svg width=\"22\" height=\"8\"><line x1=\"0\" x2=\"22\" y1=\"4\" y2=\"4\" stroke=\"",
                    SeriesColor(s, static_cast<int>(i)), "\" stroke-width=\"3\"",
                    *dash ? absl::StrCat(" stroke-dasharray=\"", dash, "\"") : "", "/></svg>", HtmlEscape(s.label),
                    "</span>");
  }
  absl::StrAppend(&out, "</div>");
  return out;
}

std::string PaletteColor(int i) {
  constexpr int n = sizeof(kPalette) / sizeof(kPalette[0]);
  return kPalette[((i % n) + n) % n];
}

std::vector<double> NiceTicks(double low, double high, int target) {
  if (!std::isfinite(low) || !std::isfinite(high)) return {0, 1};
  if (high < low) std::swap(low, high);
  // A range of a few units in the last place (0.3 against 0.1 + 0.2) is one value: give it room.
  const double scale = std::max(std::fabs(low), std::fabs(high));
  if (high - low <= scale * 1e-12) {
    const double pad = scale == 0 ? 1 : scale * 0.1;
    low -= pad;
    high += pad;
  }
  const double raw = (high - low) / std::max(1, target - 1);
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double step = magnitude * 10;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    if (m * magnitude >= raw) {
      step = m * magnitude;
      break;
    }
  }
  const double first = std::floor(low / step + 1e-9) * step;
  // Counted, not accumulated: adding a step too small to move a double would never end.
  const int count = std::clamp(static_cast<int>(std::ceil((high - first) / step - 1e-9)) + 1, 2, 100);
  std::vector<double> ticks;
  for (int i = 0; i < count; ++i) {
    const double t = first + i * step;
    ticks.push_back(std::fabs(t) < step * 1e-9 ? 0 : t);
  }
  return ticks;
}

std::string TickText(double value, double step) {
  int decimals = 0;
  while (decimals < 6 &&
         std::fabs(step * std::pow(10.0, decimals) - std::round(step * std::pow(10.0, decimals))) > 1e-6) {
    ++decimals;
  }
  return absl::StrFormat("%.*f", decimals, value);
}

std::string RenderChart(const ChartSpec& spec) {
  Range xr, yr;
  if (spec.y_from_zero) yr.Add(0);
  for (const ChartSeries& s : spec.series) {
    for (const ChartPoint& p : s.points) {
      xr.Add(p.x);
      yr.Add(p.y - std::max(0.0, p.error));
      yr.Add(p.y + std::max(0.0, p.error));
    }
  }
  if (xr.empty()) xr = Range{0, 1};
  if (yr.empty()) yr = Range{0, 1};
  std::vector<double> xt;
  if (spec.kind == ChartKind::kBar) {
    // Categories sit at 0..n-1 with half a band of room on each side.
    const double n = static_cast<double>(std::max<size_t>(1, spec.categories.size()));
    xt = {-0.5, n - 0.5};
  } else {
    xt = NiceTicks(xr.low, xr.high, 6);
  }
  const std::vector<double> yt = NiceTicks(yr.low, yr.high, 5);
  const int legend_height = spec.legend ? kMarginTop + 10 + static_cast<int>(spec.series.size()) * kLegendRow : 0;
  const int height = std::max(spec.height, legend_height);
  const Frame frame(spec, height, xt, yt);

  std::string svg =
      absl::StrCat("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 ", spec.width, " ", height, "\" width=\"",
                   spec.width, "\" height=\"", height, "\" role=\"img\" aria-label=\"", HtmlEscape(spec.title), "\">");
  absl::StrAppend(&svg, Axes(spec, frame, xt, yt));
  int bar_slots = 0;
  for (const ChartSeries& s : spec.series) bar_slots += s.points.empty() ? 0 : 1;
  // Bars of different series at the same category stand side by side; one series per category
  // (the usual leaderboard) gets the whole band.
  bool shared_categories = false;
  {
    std::vector<int> per_category(spec.categories.size(), 0);
    for (const ChartSeries& s : spec.series) {
      for (const ChartPoint& p : s.points) {
        const size_t c = static_cast<size_t>(std::max(0.0, p.x));
        if (c < per_category.size() && ++per_category[c] > 1) shared_categories = true;
      }
    }
  }
  int slot = 0;
  for (size_t i = 0; i < spec.series.size(); ++i) {
    const ChartSeries& s = spec.series[i];
    const bool side_by_side = spec.kind == ChartKind::kBar && shared_categories;
    absl::StrAppend(&svg, "<g class=\"series\" data-series=\"", HtmlEscape(s.label), "\">",
                    SeriesBody(spec, frame, s, static_cast<int>(i), side_by_side ? slot : 0,
                               side_by_side ? std::max(1, bar_slots) : 1),
                    "</g>");
    if (!s.points.empty()) ++slot;
  }
  if (spec.legend) absl::StrAppend(&svg, Legend(spec, frame));
  if (!spec.simulated_note.empty()) {
    absl::StrAppend(&svg, "<text class=\"simulated\" x=\"", frame.right(), "\" y=\"", frame.top() - 10,
                    "\" text-anchor=\"end\">", HtmlEscape(spec.simulated_note), "</text>");
  }
  absl::StrAppend(&svg, "</svg>");
  return absl::StrCat("<figure class=\"chart\" data-chart=\"", HtmlEscape(spec.id), "\"><figcaption>",
                      HtmlEscape(spec.title), "</figcaption>", svg,
                      spec.caption.empty() ? "" : absl::StrCat("<p class=\"note\">", HtmlEscape(spec.caption), "</p>"),
                      "</figure>");
}

}  // namespace noveltygrid
