#include "proto/grpc_coordinator_client.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/impl/client_unary_call.h"
#include "grpcpp/support/byte_buffer.h"
#include "grpcpp/support/slice.h"
#include "proto/grpc_status.h"
#include "proto/limits.h"

namespace noveltygrid {

absl::StatusOr<std::unique_ptr<GrpcCoordinatorClient>> GrpcCoordinatorClient::Create(const GrpcClientOptions& options) {
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> credentials = MakeChannelCredentials(options.tls);
  if (!credentials.ok()) return credentials.status();
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, kClientKeepaliveMs);
  args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, kKeepaliveTimeoutMs);
  args.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, static_cast<int>(absl::ToInt64Milliseconds(options.max_backoff)));
  args.SetMaxReceiveMessageSize(kMaxMessageBytes);
  args.SetMaxSendMessageSize(kMaxMessageBytes);
  std::shared_ptr<grpc::Channel> channel = grpc::CreateCustomChannel(options.address, *credentials, args);
  return std::unique_ptr<GrpcCoordinatorClient>(new GrpcCoordinatorClient(options.token, std::move(channel)));
}

GrpcCoordinatorClient::GrpcCoordinatorClient(std::string token, std::shared_ptr<grpc::Channel> channel)
    : token_(std::move(token)),
      channel_(std::move(channel)),
      stub_(v1::Coordinator::NewStub(channel_)),
      report_method_("/noveltygrid.v1.Coordinator/Report", grpc::internal::RpcMethod::NORMAL_RPC, channel_),
      complete_many_method_("/noveltygrid.v1.Coordinator/CompleteMany", grpc::internal::RpcMethod::NORMAL_RPC,
                            channel_) {}

std::unique_ptr<grpc::ClientContext> GrpcCoordinatorClient::Context(absl::Time deadline) const {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(absl::ToChronoTime(deadline));
  Authorize(*context, token_);
  return context;
}

#define NOVELTYGRID_GRPC_CALL(Name)                                                                        \
  absl::Status GrpcCoordinatorClient::Name(const v1::Name##Request& request, v1::Name##Response* response, \
                                           absl::Time deadline) {                                          \
    return FromGrpcStatus(stub_->Name(Context(deadline).get(), request, response));                        \
  }
NOVELTYGRID_COORDINATOR_CALLS(NOVELTYGRID_GRPC_CALL)
#undef NOVELTYGRID_GRPC_CALL

// gRPC's own blocking unary call (what the generated stub calls, grpcpp/impl/client_unary_call.h as of
// Debian's gRPC 1.51) with byte buffers for messages; the method names are the stub's, which the
// loopback test in tests/coordinator/service/coordinator_service_test.cc holds to.
template <typename Response>
absl::Status GrpcCoordinatorClient::CallSerialized(const grpc::internal::RpcMethod& method,
                                                   const grpc::ByteBuffer& request, Response* response,
                                                   absl::Time deadline) {
  grpc::ByteBuffer received;
  const grpc::Status status = grpc::internal::BlockingUnaryCall<grpc::ByteBuffer, grpc::ByteBuffer>(
      channel_.get(), method, Context(deadline).get(), request, &received);
  return ParseReply(status, &received, response, method.name());
}

absl::Status GrpcCoordinatorClient::ReportSerialized(const grpc::ByteBuffer& request, v1::ReportResponse* response,
                                                     absl::Time deadline) {
  return CallSerialized(report_method_, request, response, deadline);
}

absl::Status GrpcCoordinatorClient::CompleteManySerialized(const grpc::ByteBuffer& request,
                                                           v1::CompleteManyResponse* response, absl::Time deadline) {
  return CallSerialized(complete_many_method_, request, response, deadline);
}

}  // namespace noveltygrid
