// What every section of report.html needs to know about the sweep as a whole: where its folder is,
// its models (whose order gives each model one colour in every chart) and which of them are simulated.
#ifndef NOVELTYGRID_COORDINATOR_REPORT_HTML_REPORT_CONTEXT_H_
#define NOVELTYGRID_COORDINATOR_REPORT_HTML_REPORT_CONTEXT_H_

#include <algorithm>
#include <string>
#include <vector>

namespace noveltygrid {

struct ReportContext {
  std::string dir;                     // the results folder (its rows files are written)
  std::vector<std::string> models;     // every model of the sweep, config order
  std::vector<std::string> simulated;  // those whose numbers measure the simulator

  bool any_simulated() const { return !simulated.empty(); }
  bool IsSimulated(const std::string& model) const {
    return std::find(simulated.begin(), simulated.end(), model) != simulated.end();
  }
  // The model's palette index (svg_chart.h): its position in `models`, or past them when absent.
  int ColorOf(const std::string& model) const {
    const auto it = std::find(models.begin(), models.end(), model);
    return static_cast<int>(it - models.begin());
  }
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_REPORT_HTML_REPORT_CONTEXT_H_
