// InProcessCoordinatorClient: CoordinatorClient that calls a CoordinatorCore in the same process -- the
// in-memory twin of GrpcCoordinatorClient (as leveldb's memenv is of its Env), so that the lease loop
// runs against the real coordinator logic without a server, a port or a thread of its own.
//
// SetReachable(false) makes every call fail with UNAVAILABLE without reaching the core, as when the
// coordinator is away; Complete blocks until the result is durable, as over gRPC. Deadlines are
// ignored: the core answers at once. Thread-safe.
#ifndef NOVELTYGRID_COORDINATOR_SERVICE_IN_PROCESS_CLIENT_H_
#define NOVELTYGRID_COORDINATOR_SERVICE_IN_PROCESS_CLIENT_H_

#include <atomic>
#include <string>

#include "coordinator/service/coordinator_core.h"
#include "proto/coordinator_client.h"

namespace noveltygrid {

class InProcessCoordinatorClient final : public CoordinatorClient {
 public:
  // `core` is not owned; `token` is presented on every call.
  InProcessCoordinatorClient(CoordinatorCore* core, std::string token) : core_(core), token_(std::move(token)) {}

  // While false, every call returns UNAVAILABLE.
  void SetReachable(bool reachable) { reachable_.store(reachable); }

  absl::Status Lease(const v1::LeaseRequest& request, v1::LeaseResponse* response, absl::Time) override {
    if (absl::Status up = Reachable(); !up.ok()) return up;
    return core_->Lease(token_, request, response);
  }
  absl::Status Heartbeat(const v1::HeartbeatRequest& request, v1::HeartbeatResponse* response, absl::Time) override {
    if (absl::Status up = Reachable(); !up.ok()) return up;
    return core_->Heartbeat(token_, request, response);
  }
  absl::Status Report(const v1::ReportRequest& request, v1::ReportResponse* response, absl::Time) override {
    if (absl::Status up = Reachable(); !up.ok()) return up;
    return core_->Report(token_, request, response);
  }
  absl::Status Complete(const v1::CompleteRequest& request, v1::CompleteResponse* response, absl::Time) override {
    if (absl::Status up = Reachable(); !up.ok()) return up;
    return core_->Complete(token_, request, response);
  }
  absl::Status Release(const v1::ReleaseRequest& request, v1::ReleaseResponse* response, absl::Time) override {
    if (absl::Status up = Reachable(); !up.ok()) return up;
    return core_->Release(token_, request, response);
  }
  absl::Status Status(const v1::StatusRequest& request, v1::StatusResponse* response, absl::Time) override {
    if (absl::Status up = Reachable(); !up.ok()) return up;
    return core_->Status(token_, request, response);
  }

 private:
  absl::Status Reachable() const {
    if (reachable_.load()) return absl::OkStatus();
    return absl::UnavailableError("the coordinator is unreachable (in-process client switched away)");
  }

  CoordinatorCore* const core_;
  const std::string token_;
  std::atomic<bool> reachable_{true};
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_SERVICE_IN_PROCESS_CLIENT_H_
