// report.html: the page people look at after a sweep (coordinator/report/html/ has its building
// blocks). Written beside summary.json by every `run`, `coordinator`, `report DIR` and `import`:
//
//   header       the sweep's folder, its models (simulated ones marked) and the simulation notice
//   <sections>   each benchmark's own (BenchmarkResults::AddHtmlSections), in sweep order
//   calls        calls, tokens, retries and cost per model; cost (or tokens, unpriced) against score
//
// Deterministic: the same results give the same bytes. Stateless; safe from any thread.
#ifndef NOVELTYGRID_COORDINATOR_REPORT_HTML_REPORT_H_
#define NOVELTYGRID_COORDINATOR_REPORT_HTML_REPORT_H_

#include <string>

#include "absl/status/statusor.h"
#include "coordinator/report/results_files.h"
#include "coordinator/report/results_writer.h"

namespace noveltygrid {

// The page for `parts`, whose rows files are written in `dir`.
absl::StatusOr<std::string> RenderHtmlReport(const std::string& dir, const ResultsParts& parts,
                                             const ResultsOptions& options);

// RenderHtmlReport written to DIR/report.html (atomically).
absl::Status WriteHtmlReport(const std::string& dir, const ResultsParts& parts, const ResultsOptions& options);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_REPORT_HTML_REPORT_H_
