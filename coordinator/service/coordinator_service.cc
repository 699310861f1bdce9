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

// Every call but Complete (below) answers at once.
#define NOVELTYGRID_SERVICE_CALL(Name)                                                                                 \
  grpc::ServerUnaryReactor* CoordinatorService::Name(grpc::CallbackServerContext* context,                             \
                                                     const v1::Name##Request* request, v1::Name##Response* response) { \
    return Finish(context, core_->Name(PresentedToken(*context), *request, response));                                 \
  }
NOVELTYGRID_SERVICE_CALL(Lease)
NOVELTYGRID_SERVICE_CALL(Heartbeat)
NOVELTYGRID_SERVICE_CALL(Report)
NOVELTYGRID_SERVICE_CALL(Release)
NOVELTYGRID_SERVICE_CALL(Status)
#undef NOVELTYGRID_SERVICE_CALL

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
