#include "coordinator/benchmarks/item_groups_html.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/json_util.h"

namespace noveltygrid {

namespace {

// Room per group on the x axis, and its label cut to fit (the tooltips name it whole).
constexpr int kGroupWidth = 110;
constexpr size_t kGroupLabelBytes = 16;

}  // namespace

std::string GroupedBarChart(ChartSpec spec, const ReportContext& context, const std::vector<std::string>& groups,
                            const std::vector<ChartedCell>& cells, int decimals,
                            const std::function<std::optional<double>(size_t, const std::string&)>& value) {
  spec.kind = ChartKind::kBar;
  spec.width = std::max(spec.width, kGroupWidth * static_cast<int>(groups.size()));
  for (const std::string& group : groups) spec.categories.push_back(Abbreviate(group, kGroupLabelBytes));
  for (size_t c = 0; c < cells.size(); ++c) {
    const ChartedCell& cell = cells[c];
    ChartSeries series{cell.model, {}, context.ColorOf(cell.model)};
    for (size_t g = 0; g < groups.size(); ++g) {
      const std::optional<double> y = value(c, groups[g]);
      if (!y.has_value()) continue;
      series.points.push_back({static_cast<double>(g), *y, 0,
                               absl::StrFormat("%s at T=%s, %s: %.*f", cell.model, FormatTemperature(cell.temperature),
                                               groups[g], decimals, *y)});
    }
    if (!series.points.empty()) spec.series.push_back(std::move(series));  // a model without any: no empty series
  }
  return RenderChart(spec);
}

}  // namespace noveltygrid
