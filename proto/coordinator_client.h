// CoordinatorClient: the worker's side of the noveltygrid.v1.Coordinator service, as an interface, so
// that the lease loop runs the same against a coordinator over gRPC (GrpcCoordinatorClient,
// proto/grpc_coordinator_client.h) and against one in the same process (InProcessCoordinatorClient,
// coordinator/service/in_process_client.h, used by tests).
//
// Every call takes the request, fills the response and returns the outcome as absl::Status with the
// gRPC status codes (UNAVAILABLE while the coordinator is away, UNAUTHENTICATED for a refused token,
// NOT_FOUND for an unknown lease, ...). `deadline` bounds the call; an implementation that answers at
// once may ignore it. Implementations are thread-safe: the lease loop calls from several threads.
#ifndef NOVELTYGRID_PROTO_COORDINATOR_CLIENT_H_
#define NOVELTYGRID_PROTO_COORDINATOR_CLIENT_H_

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "noveltygrid/v1/coordinator.pb.h"

namespace noveltygrid {

class CoordinatorClient {
 public:
  virtual ~CoordinatorClient() = default;

  virtual absl::Status Lease(const v1::LeaseRequest& request, v1::LeaseResponse* response, absl::Time deadline) = 0;
  virtual absl::Status Heartbeat(const v1::HeartbeatRequest& request, v1::HeartbeatResponse* response,
                                 absl::Time deadline) = 0;
  virtual absl::Status Report(const v1::ReportRequest& request, v1::ReportResponse* response, absl::Time deadline) = 0;
  // OK means the result is durable on the coordinator (or was refused: see response->accepted()).
  virtual absl::Status Complete(const v1::CompleteRequest& request, v1::CompleteResponse* response,
                                absl::Time deadline) = 0;
  virtual absl::Status Release(const v1::ReleaseRequest& request, v1::ReleaseResponse* response,
                               absl::Time deadline) = 0;
  virtual absl::Status Status(const v1::StatusRequest& request, v1::StatusResponse* response, absl::Time deadline) = 0;
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_PROTO_COORDINATOR_CLIENT_H_
