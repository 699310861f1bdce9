// Charts for report.html, drawn as inline SVG: line charts (a figure against temperature or answer
// number, optionally with error bars), scatter plots and bar charts. No JavaScript and no fonts to
// fetch, so a chart renders from disk, prints, and costs a few kilobytes.
//
// Every chart is a <figure class="chart" data-chart=ID> whose data series are
// <g class="series" data-series=LABEL> groups (the browser test counts them). A chart that shows
// simulated models says so in its corner (ReportContext::NewChart sets the note).
//
// Stateless functions; safe from any thread.
#ifndef NOVELTYGRID_COORDINATOR_REPORT_HTML_SVG_CHART_H_
#define NOVELTYGRID_COORDINATOR_REPORT_HTML_SVG_CHART_H_

#include <string>
#include <utility>
#include <vector>

namespace noveltygrid {

struct ChartPoint {
  ChartPoint() = default;
  ChartPoint(double x, double y, double error = 0, std::string label = "")
      : x(x), y(y), error(error), label(std::move(label)) {}

  double x = 0;
  double y = 0;
  double error = 0;   // half-width of the error bar (0: none)
  std::string label;  // a tooltip (scatter and bar points); empty: none
};

struct ChartSeries {
  ChartSeries() = default;
  ChartSeries(std::string label, std::vector<ChartPoint> points = {}, int color = -1)
      : label(std::move(label)), points(std::move(points)), color(color) {}

  std::string label;  // the legend entry and data-series
  std::vector<ChartPoint> points;
  int color = -1;       // palette index (-1: the series' position), so one model keeps its colour across charts
  int dash = 0;         // 0 solid; 1, 2, ... dashed patterns (e.g. one per temperature)
  bool markers = true;  // line charts: a dot on each point
};

enum class ChartKind {
  kLine,     // points joined in x order
  kScatter,  // points alone, each labelled by its series
  kBar,      // one bar per point at category x (0, 1, ...), with `categories` naming them
};

struct ChartSpec {
  std::string id;  // data-chart
  std::string title;
  std::string x_label;
  std::string y_label;
  ChartKind kind = ChartKind::kLine;
  std::vector<ChartSeries> series;
  std::vector<std::string> categories;  // kBar: the x axis' names
  bool y_from_zero = true;              // the y axis starts at 0 (or below, for negative data)
  std::string simulated_note;           // shown in the corner ("simulated models"); "" for none
  std::string caption;                  // a line under the chart (what the error bars mean, ...)
  bool legend = true;                   // false: charts sharing one HtmlLegend() above them
  int width = 560;
  int height = 300;
};

// The whole <figure> element.
std::string RenderChart(const ChartSpec& spec);

// One legend for several charts of the same series, as HTML: <div class="legend">.
std::string HtmlLegend(const std::vector<ChartSeries>& series);

// Evenly spaced "nice" axis ticks (steps of 1, 2, 2.5 or 5 times a power of ten) covering
// [low, high], about `target` of them. The first tick is <= low and the last >= high.
std::vector<double> NiceTicks(double low, double high, int target);

// A tick's text: as few decimals as the step needs.
std::string TickText(double value, double step);

// The palette colour of index `i` (cycling), as "#rrggbb".
std::string PaletteColor(int i);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_REPORT_HTML_SVG_CHART_H_
