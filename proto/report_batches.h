// PackReports: a worker's new steps of every lease as ReportRequests -- one request per round, split
// only when it grows large -- for the worker's sender (the load generator frames the same requests
// from bytes: bench/coordinator_load/report_wire.h).
#ifndef NOVELTYGRID_PROTO_REPORT_BATCHES_H_
#define NOVELTYGRID_PROTO_REPORT_BATCHES_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "noveltygrid/v1/coordinator.pb.h"
#include "proto/limits.h"

namespace noveltygrid {

// A Report is split once it holds about this much.
inline constexpr size_t kReportBytes = kMaxMessageBytes / 8;

// Moves the steps of each lease (in lease id order) into requests of about kReportBytes and
// hands each to `send`, which sends it (the worker id is the caller's to set). `token_of` gives a
// lease's fencing token, or nullopt to leave the lease out (no longer held).
void PackReports(std::map<std::string, std::vector<v1::Step>>& steps,
                 absl::FunctionRef<std::optional<uint64_t>(const std::string& lease_id)> token_of,
                 absl::FunctionRef<void(v1::ReportRequest& request)> send);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_PROTO_REPORT_BATCHES_H_
