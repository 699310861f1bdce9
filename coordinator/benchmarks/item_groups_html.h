// report.html's charts of breakdowns by item metadata (item_groups.h): each benchmark's own section
// draws its groups with this one chart, so they look alike.
//
// Stateless; safe from any thread.
#ifndef NOVELTYGRID_COORDINATOR_BENCHMARKS_ITEM_GROUPS_HTML_H_
#define NOVELTYGRID_COORDINATOR_BENCHMARKS_ITEM_GROUPS_HTML_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "coordinator/report/html/report_context.h"

namespace noveltygrid {

// The cell a model is charted at (its best temperature, as the leaderboard ranks it).
struct ChartedCell {
  std::string model;
  double temperature = 0;
};

// A grouped bar chart (svg_chart.h's kBar): one group of bars per name in `groups` along the x axis, one
// bar per charted cell in each, coloured as its model is in every chart. `value(cell index, group)` is a
// bar's height, nullopt where the cell has no such group; tooltips name the cell and group and show it
// with `decimals` decimals. Long group names are cut on the axis; a cell without any bar is left out.
// `spec` gives the id, title, y label and caption (ReportContext::NewChart).
std::string GroupedBarChart(ChartSpec spec, const ReportContext& context, const std::vector<std::string>& groups,
                            const std::vector<ChartedCell>& cells, int decimals,
                            const std::function<std::optional<double>(size_t, const std::string&)>& value);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_BENCHMARKS_ITEM_GROUPS_HTML_H_
