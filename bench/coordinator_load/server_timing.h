// The coordinator's own timing of its calls, for the load generator: the histograms it serves as
// noveltygrid_rpc_duration_seconds{method}, and its committers' noveltygrid_commit_group_seconds and
// noveltygrid_commit_store_seconds (coordinator/metrics/rpc_timing.h), scraped at both ends of the
// measured window and subtracted. Beside the generator's client-side latencies this shows how much
// of a slow call was the coordinator's: on a machine shared with the generator, a client-side latency
// also holds the generator's wait for a core before it sees the answer.
#ifndef NOVELTYGRID_BENCH_COORDINATOR_LOAD_SERVER_TIMING_H_
#define NOVELTYGRID_BENCH_COORDINATOR_LOAD_SERVER_TIMING_H_

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace noveltygrid::load {

// One method's histogram: cumulative counts by upper bound (seconds, ascending, +Inf last), as in the
// Prometheus text format.
struct ServerHistogram {
  std::vector<std::pair<double, double>> buckets;  // (le, calls at or under it)
  double count = 0;
  double sum = 0;  // seconds
};
// By method ("Lease", ...), and the committers' groups as kCommitPrefix + part ("commit group",
// "commit store").
using ServerHistograms = std::map<std::string, ServerHistogram>;
inline constexpr absl::string_view kCommitPrefix = "commit ";

// The noveltygrid_rpc_duration_seconds and noveltygrid_commit_group_seconds families in a /metrics page
// (other families are skipped); InvalidArgument for a line of those families that does not parse.
absl::StatusOr<ServerHistograms> ParseServerHistograms(absl::string_view text);

// What happened between two scrapes of the same coordinator: `after` minus `before`, method by method
// (a method missing from `before` counts from zero).
ServerHistograms Difference(const ServerHistograms& after, const ServerHistograms& before);

// The q-quantile in seconds, estimated as Prometheus's histogram_quantile does: linear within the
// bucket the rank falls in; the highest finite bound when it falls in +Inf; 0 without calls.
double Quantile(const ServerHistogram& histogram, double q);

// The share of calls at or under `bound` seconds, exact: nullopt when `bound` is not one of the
// buckets' bounds (its text, "0.05", parses to the same double as 50'000 / 1e6); 1 without calls.
std::optional<double> ShareWithin(const ServerHistogram& histogram, double bound);

// GET http://HOST:PORT/metrics of `address` ("HOST:PORT", "[V6]:PORT").
absl::StatusOr<std::string> ScrapeMetrics(const std::string& address);

}  // namespace noveltygrid::load

#endif  // NOVELTYGRID_BENCH_COORDINATOR_LOAD_SERVER_TIMING_H_
