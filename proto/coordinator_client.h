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
#include "proto/coordinator_calls.h"

namespace noveltygrid {

// Lease, Heartbeat, Report, Complete, CompleteMany, Release and Status (NOVELTYGRID_COORDINATOR_CALLS),
// each with a deadline. Complete's OK means the result is durable on the coordinator (or was refused:
// see response->accepted()); CompleteMany answers that per unit.
class CoordinatorClient {
 public:
  virtual ~CoordinatorClient() = default;

#define NOVELTYGRID_CLIENT_CALL(Name) \
  virtual absl::Status Name(const v1::Name##Request& request, v1::Name##Response* response, absl::Time deadline) = 0;
  NOVELTYGRID_COORDINATOR_CALLS(NOVELTYGRID_CLIENT_CALL)
#undef NOVELTYGRID_CLIENT_CALL
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_PROTO_COORDINATOR_CLIENT_H_
