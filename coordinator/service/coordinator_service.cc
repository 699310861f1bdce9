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

// Every call but Complete and CompleteMany (below) answers at once.
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
  return QueueCommit(context, [this, request, response](const std::string& token) {
    return core_->Complete(token, *request, response);
  });
}

grpc::ServerUnaryReactor* CoordinatorService::CompleteMany(grpc::CallbackServerContext* context,
                                                           const v1::CompleteManyRequest* request,
                                                           v1::CompleteManyResponse* response) {
  return QueueCommit(context, [this, request, response](const std::string& token) {
    return core_->CompleteMany(token, *request, response);
  });
}

grpc::ServerUnaryReactor* CoordinatorService::QueueCommit(
    grpc::CallbackServerContext* context, std::function<absl::Status(const std::string& token)> commit) {
  std::string token = PresentedToken(*context);
  if (absl::Status authorized = core_->Authorize(token); !authorized.ok()) return Finish(context, authorized);
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  absl::MutexLock lock(&mu_);
  commits_.push_back({reactor, std::move(token), std::move(commit)});
  return reactor;
}

void CoordinatorService::CommitLoop() {
  std::vector<PendingCommit> batch;
  while (true) {
    batch.clear();
    {
      absl::MutexLock lock(&mu_);
      auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stopping_ || !commits_.empty(); };
      mu_.Await(absl::Condition(&ready));
      if (commits_.empty()) return;
      std::swap(batch, commits_);
    }
    for (PendingCommit& commit : batch) commit.reactor->Finish(ToGrpcStatus(commit.commit(commit.token)));
  }
}

}  // namespace noveltygrid
