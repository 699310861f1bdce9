// GrpcCoordinatorClient: CoordinatorClient over a gRPC channel -- the cluster path of `noveltygrid
// worker` and of the in-process worker of `noveltygrid run`.
//
// One channel with keepalive (proto/limits.h), reconnect backoff capped at `max_backoff`, the message
// size limit, optional TLS, and the shared token as "authorization: Bearer" metadata on every call;
// each call carries its deadline. grpc::Status is converted in proto/grpc_status.h. Thread-safe.
#ifndef NOVELTYGRID_PROTO_GRPC_COORDINATOR_CLIENT_H_
#define NOVELTYGRID_PROTO_GRPC_COORDINATOR_CLIENT_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "grpcpp/impl/rpc_method.h"
#include "grpcpp/support/byte_buffer.h"
#include "noveltygrid/v1/coordinator.grpc.pb.h"
#include "proto/coordinator_client.h"
#include "proto/grpc_status.h"
#include "proto/security.h"

namespace noveltygrid {

struct GrpcClientOptions {
  std::string address;  // HOST:PORT
  std::string token;
  TlsFiles tls;
  absl::Duration max_backoff = absl::Seconds(5);  // the longest reconnect backoff
};

// A reply received as wire bytes (`reply`), parsed into `response` (any protobuf message); or the
// call's failure. `method` names the call in the error when the reply does not parse.
template <typename Response>
absl::Status ParseReply(const grpc::Status& status, grpc::ByteBuffer* reply, Response* response, const char* method) {
  if (!status.ok()) return FromGrpcStatus(status);
  if (!grpc::SerializationTraits<Response>::Deserialize(reply, response).ok()) {
    return absl::InternalError(absl::StrCat("the coordinator's reply to ", method, " does not parse"));
  }
  return absl::OkStatus();
}

class GrpcCoordinatorClient final : public CoordinatorClient {
 public:
  // Fails only when the TLS files cannot be read; the channel connects lazily.
  static absl::StatusOr<std::unique_ptr<GrpcCoordinatorClient>> Create(const GrpcClientOptions& options);

  // Each call: the stub's, with Context(deadline).
#define NOVELTYGRID_GRPC_CALL(Name) \
  absl::Status Name(const v1::Name##Request& request, v1::Name##Response* response, absl::Time deadline) override;
  NOVELTYGRID_COORDINATOR_CALLS(NOVELTYGRID_GRPC_CALL)
#undef NOVELTYGRID_GRPC_CALL

  // Report with the request already serialized: a ReportRequest's wire bytes, as they are. The same
  // call on the wire. For the load generator
  // (bench/coordinator_load), which frames its reports around steps serialized once, so that fifty fake
  // workers cost less CPU than the coordinator they load.
  absl::Status ReportSerialized(const grpc::ByteBuffer& request, v1::ReportResponse* response, absl::Time deadline);
  // CompleteMany likewise: a CompleteManyRequest's wire bytes (the load generator's commits, each
  // unit's answers serialized once per shape rather than built as messages every time).
  absl::Status CompleteManySerialized(const grpc::ByteBuffer& request, v1::CompleteManyResponse* response,
                                      absl::Time deadline);

  // For callers that make calls of their own on this client's channel -- the load generator's
  // callback-API workers (bench/coordinator_load/callback_worker.h): the channel, the two methods sent
  // as wire bytes, and a context with the deadline and the token.
  const std::shared_ptr<grpc::Channel>& channel() const { return channel_; }
  const grpc::internal::RpcMethod& report_method() const { return report_method_; }
  const grpc::internal::RpcMethod& complete_many_method() const { return complete_many_method_; }
  std::unique_ptr<grpc::ClientContext> Context(absl::Time deadline) const;

 private:
  GrpcCoordinatorClient(std::string token, std::shared_ptr<grpc::Channel> channel);
  // `method` with a request of wire bytes (ReportSerialized, CompleteManySerialized); the reply parsed
  // into `response` (any protobuf message).
  template <typename Response>
  absl::Status CallSerialized(const grpc::internal::RpcMethod& method, const grpc::ByteBuffer& request,
                              Response* response, absl::Time deadline);

  const std::string token_;
  const std::shared_ptr<grpc::Channel> channel_;
  const std::unique_ptr<v1::Coordinator::Stub> stub_;
  // Report and CompleteMany, registered on the channel as the stub's are.
  const grpc::internal::RpcMethod report_method_;
  const grpc::internal::RpcMethod complete_many_method_;
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_PROTO_GRPC_COORDINATOR_CLIENT_H_
