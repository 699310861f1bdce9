#include "proto/grpc_coordinator_client.h"

#include "grpcpp/create_channel.h"
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

std::unique_ptr<grpc::ClientContext> GrpcCoordinatorClient::Context(absl::Time deadline) const {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(absl::ToChronoTime(deadline));
  Authorize(*context, token_);
  return context;
}

absl::Status GrpcCoordinatorClient::Lease(const v1::LeaseRequest& request, v1::LeaseResponse* response,
                                          absl::Time deadline) {
  return FromGrpcStatus(stub_->Lease(Context(deadline).get(), request, response));
}

absl::Status GrpcCoordinatorClient::Heartbeat(const v1::HeartbeatRequest& request, v1::HeartbeatResponse* response,
                                              absl::Time deadline) {
  return FromGrpcStatus(stub_->Heartbeat(Context(deadline).get(), request, response));
}

absl::Status GrpcCoordinatorClient::Report(const v1::ReportRequest& request, v1::ReportResponse* response,
                                           absl::Time deadline) {
  return FromGrpcStatus(stub_->Report(Context(deadline).get(), request, response));
}

absl::Status GrpcCoordinatorClient::Complete(const v1::CompleteRequest& request, v1::CompleteResponse* response,
                                             absl::Time deadline) {
  return FromGrpcStatus(stub_->Complete(Context(deadline).get(), request, response));
}

absl::Status GrpcCoordinatorClient::Release(const v1::ReleaseRequest& request, v1::ReleaseResponse* response,
                                            absl::Time deadline) {
  return FromGrpcStatus(stub_->Release(Context(deadline).get(), request, response));
}

absl::Status GrpcCoordinatorClient::Status(const v1::StatusRequest& request, v1::StatusResponse* response,
                                           absl::Time deadline) {
  return FromGrpcStatus(stub_->Status(Context(deadline).get(), request, response));
}

}  // namespace noveltygrid
