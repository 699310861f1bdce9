// What every section of report.html needs to know about the sweep as a whole: where its folder is,
// its models (whose order gives each model one colour in every chart) and which of them are simulated.
#ifndef NOVELTYGRID_COORDINATOR_REPORT_HTML_REPORT_CONTEXT_H_
#define NOVELTYGRID_COORDINATOR_REPORT_HTML_REPORT_CONTEXT_H_

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_join.h"
#include "common/json_util.h"
#include "coordinator/report/html/html_page.h"
#include "coordinator/report/html/svg_chart.h"

namespace noveltygrid {

struct ReportContext {
  std::vector<std::string> models;     // every model of the sweep, config order
  std::vector<std::string> simulated;  // those whose numbers measure the simulator

  bool any_simulated() const { return !simulated.empty(); }
  bool IsSimulated(const std::string& model) const {
    return std::find(simulated.begin(), simulated.end(), model) != simulated.end();
  }
  // What every chart says of the simulation: "simulated models" when all its models are (or the helper
  // models scoring them), else which ones; "" when none is.
  std::string SimulatedNote() const {
    if (simulated.empty()) return "";
    if (simulated.size() >= models.size()) return "simulated models";
    return "simulated: " + absl::StrJoin(simulated, ", ");
  }
  // A chart of this sweep: id, title, kind and the simulation note set.
  ChartSpec NewChart(std::string id, std::string title, ChartKind kind = ChartKind::kLine) const {
    ChartSpec spec;
    spec.id = std::move(id);
    spec.title = std::move(title);
    spec.kind = kind;
    spec.simulated_note = SimulatedNote();
    return spec;
  }
  // The model's palette index (svg_chart.h): its position in `models`, or past them when absent.
  int ColorOf(const std::string& model) const {
    const auto it = std::find(models.begin(), models.end(), model);
    return static_cast<int>(it - models.begin());
  }
};

// A temperature as the results files write it (0.125, not 0.13), sorting by value.
inline HtmlCell TemperatureCell(double t) { return HtmlCell{FormatTemperature(t), t, "num"}; }

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_REPORT_HTML_REPORT_CONTEXT_H_
