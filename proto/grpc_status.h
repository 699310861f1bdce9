// The one place where grpc::Status and absl::Status meet: the status codes are the same numbers
// (both follow google.rpc.Code), so a conversion keeps the code and the message.
#ifndef NOVELTYGRID_PROTO_GRPC_STATUS_H_
#define NOVELTYGRID_PROTO_GRPC_STATUS_H_

#include "absl/status/status.h"
#include "grpcpp/support/status.h"

namespace noveltygrid {

absl::Status FromGrpcStatus(const grpc::Status& status);
grpc::Status ToGrpcStatus(const absl::Status& status);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_PROTO_GRPC_STATUS_H_
