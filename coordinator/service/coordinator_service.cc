#include "coordinator/service/coordinator_service.h"

#include "proto/grpc_status.h"
#include "proto/security.h"

namespace noveltygrid {

CoordinatorService::CoordinatorService(CoordinatorCore* core) : core_(core) {
  committer_ = std::thread([this] { CommitLoop(); });
}

CoordinatorService::~CoordinatorService() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  committer_.join();
}

grpc::ServerUnaryReactor* CoordinatorService::Finish(grpc::CallbackServerContext* context, const absl::Status& status) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(ToGrpcStatus(status));
  return reactor;
}

grpc::ServerUnaryReactor* CoordinatorService::Lease(grpc::CallbackServerContext* context,
                                                    const v1::LeaseRequest* request, v1::LeaseResponse* response) {
  return Finish(context, core_->Lease(PresentedToken(*context), *request, response));
}

grpc::ServerUnaryReactor* CoordinatorService::Heartbeat(grpc::CallbackServerContext* context,
                                                        const v1::HeartbeatRequest* request,
                                                        v1::HeartbeatResponse* response) {
  return Finish(context, core_->Heartbeat(PresentedToken(*context), *request, response));
}

grpc::ServerUnaryReactor* CoordinatorService::Report(grpc::CallbackServerContext* context,
                                                     const v1::ReportRequest* request, v1::ReportResponse* response) {
  return Finish(context, core_->Report(PresentedToken(*context), *request, response));
}

grpc::ServerUnaryReactor* CoordinatorService::Complete(grpc::CallbackServerContext* context,
                                                       const v1::CompleteRequest* request,
                                                       v1::CompleteResponse* response) {
  std::string token = PresentedToken(*context);
  if (absl::Status authorized = core_->Authorize(token); !authorized.ok()) return Finish(context, authorized);
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  absl::MutexLock lock(&mu_);
  commits_.push_back({reactor, std::move(token), request, response});
  return reactor;
}

grpc::ServerUnaryReactor* CoordinatorService::Release(grpc::CallbackServerContext* context,
                                                      const v1::ReleaseRequest* request,
                                                      v1::ReleaseResponse* response) {
  return Finish(context, core_->Release(PresentedToken(*context), *request, response));
}

grpc::ServerUnaryReactor* CoordinatorService::Status(grpc::CallbackServerContext* context,
                                                     const v1::StatusRequest* request, v1::StatusResponse* response) {
  return Finish(context, core_->Status(PresentedToken(*context), *request, response));
}

void CoordinatorService::CommitLoop() {
  while (true) {
    PendingCommit commit;
    {
      absl::MutexLock lock(&mu_);
      auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stopping_ || !commits_.empty(); };
      mu_.Await(absl::Condition(&ready));
      if (commits_.empty()) return;
      commit = std::move(commits_.front());
      commits_.pop_front();
    }
    commit.reactor->Finish(ToGrpcStatus(core_->Complete(commit.token, *commit.request, commit.response)));
  }
}

}  // namespace noveltygrid
