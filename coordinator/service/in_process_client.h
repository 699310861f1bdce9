// InProcessCoordinatorClient: CoordinatorClient that calls a CoordinatorCore in the same process -- the
// in-memory twin of GrpcCoordinatorClient (as leveldb's memenv is of its Env), so that the lease loop
// runs against the real coordinator logic without a server, a port or a thread of its own.
//
// SetReachable(false) makes every call fail with UNAVAILABLE without reaching the core, as when the
// coordinator is away; Complete and CompleteMany block until the results are durable, as over gRPC. Deadlines are
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

  // Each call: UNAVAILABLE while switched away, else the core's with `token`.
#define NOVELTYGRID_IN_PROCESS_CALL(Name)                                                                  \
  absl::Status Name(const v1::Name##Request& request, v1::Name##Response* response, absl::Time) override { \
    if (absl::Status up = Reachable(); !up.ok()) return up;                                                \
    return core_->Name(token_, request, response);                                                         \
  }
  NOVELTYGRID_COORDINATOR_CALLS(NOVELTYGRID_IN_PROCESS_CALL)
#undef NOVELTYGRID_IN_PROCESS_CALL

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
