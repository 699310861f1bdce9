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

#define NOVELTYGRID_GRPC_CALL(Name)                                                                        \
  absl::Status GrpcCoordinatorClient::Name(const v1::Name##Request& request, v1::Name##Response* response, \
                                           absl::Time deadline) {                                          \
    return FromGrpcStatus(stub_->Name(Context(deadline).get(), request, response));                        \
  }
NOVELTYGRID_COORDINATOR_CALLS(NOVELTYGRID_GRPC_CALL)
#undef NOVELTYGRID_GRPC_CALL

}  // namespace noveltygrid
