#include "proto/report_batches.h"

#include <utility>

namespace noveltygrid {

void PackReports(std::map<std::string, std::vector<v1::Step>>& steps,
                 absl::FunctionRef<std::optional<uint64_t>(const std::string& lease_id)> token_of,
                 absl::FunctionRef<void(v1::ReportRequest& request)> send) {
  v1::ReportRequest request;
  size_t bytes = 0;
  auto flush = [&] {
    if (request.leases_size() > 0) send(request);
    request.Clear();
    bytes = 0;
  };
  for (auto& [lease_id, answers] : steps) {
    const std::optional<uint64_t> token = token_of(lease_id);
    if (!token.has_value()) continue;
    v1::LeaseSteps* lease = request.add_leases();
    lease->set_fencing_token(*token);
    lease->set_lease_id(lease_id);
    for (v1::Step& a : answers) *lease->add_steps() = std::move(a);
    bytes += lease->ByteSizeLong();
    if (bytes >= kReportBytes) flush();
  }
  flush();
}

}  // namespace noveltygrid
