#include "coordinator/service/coordinator_service.h"

#include <cstdio>
#include <cstdlib>
#include <utility>

#include "grpcpp/support/proto_buffer_reader.h"
#include "proto/grpc_status.h"
#include "proto/security.h"

namespace noveltygrid {

CoordinatorService::CoordinatorService(CoordinatorCore* core, const RpcTiming* timing) : core_(core) {
  static constexpr const char* kNames[kMethods] = {"Lease",        "Heartbeat", "Report", "Complete",
                                                   "CompleteMany", "Release",   "Status"};
  for (int m = 0; timing != nullptr && m < kMethods; ++m) {
    timers_[m] = timing->Of(kNames[m]);
    if (timers_[m] == nullptr) {  // a method renamed in the proto and not here: a bug, not a run-time state
      std::fprintf(stderr, "noveltygrid: no histogram for the Coordinator method %s\n", kNames[m]);
      std::abort();
    }
  }
  if (timing != nullptr) commit_group_ = timing->commit_group();
  for (int i = 0; i < kCommitters; ++i) committers_.emplace_back([this] { CommitLoop(); });
}

CoordinatorService::~CoordinatorService() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  for (std::thread& committer : committers_) committer.join();
}

grpc::ServerUnaryReactor* CoordinatorService::Finish(grpc::CallbackServerContext* context, const absl::Status& status,
                                                     const Timed& timed) {
  // Timed before the answer goes: a worker that has its answer finds its call counted.
  RpcTiming::Answered(timed.histogram, timed.start);
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(ToGrpcStatus(status));
  return reactor;
}

// Every call but Complete and CompleteMany (below) answers at once.
#define NOVELTYGRID_SERVICE_CALL(Name)                                                                                 \
  grpc::ServerUnaryReactor* CoordinatorService::Name(grpc::CallbackServerContext* context,                             \
                                                     const v1::Name##Request* request, v1::Name##Response* response) { \
    const Timed timed = Start(k##Name);                                                                                \
    return Finish(context, core_->Name(PresentedToken(*context), *request, response), timed);                          \
  }
NOVELTYGRID_SERVICE_CALL(Lease)
NOVELTYGRID_SERVICE_CALL(Heartbeat)
NOVELTYGRID_SERVICE_CALL(Release)
NOVELTYGRID_SERVICE_CALL(Status)
#undef NOVELTYGRID_SERVICE_CALL

grpc::ServerUnaryReactor* CoordinatorService::Report(grpc::CallbackServerContext* context,
                                                     const grpc::ByteBuffer* request, grpc::ByteBuffer* response) {
  const Timed timed = Start(kReport);
  // The steps are moved out of `received` into the checkpoints; the reader only reads the buffer.
  v1::ReceivedReport received;
  grpc::ProtoBufferReader reader(const_cast<grpc::ByteBuffer*>(request));
  if (!reader.status().ok() || !received.ParseFromZeroCopyStream(&reader)) {
    return Finish(context, absl::InvalidArgumentError("the Report request does not parse"), timed);
  }
  v1::ReportResponse reply;
  const absl::Status status = core_->Report(PresentedToken(*context), &received, &reply);
  bool own_buffer = false;
  if (status.ok() && !grpc::SerializationTraits<v1::ReportResponse>::Serialize(reply, response, &own_buffer).ok()) {
    return Finish(context, absl::InternalError("the Report reply does not serialize"), timed);
  }
  return Finish(context, status, timed);
}

grpc::ServerUnaryReactor* CoordinatorService::Complete(grpc::CallbackServerContext* context,
                                                       const v1::CompleteRequest* request,
                                                       v1::CompleteResponse* response) {
  const Timed timed = Start(kComplete);
  return QueueCommit(context, CommitCall(PresentedToken(*context), *request, response), timed);
}

grpc::ServerUnaryReactor* CoordinatorService::CompleteMany(grpc::CallbackServerContext* context,
                                                           const v1::CompleteManyRequest* request,
                                                           v1::CompleteManyResponse* response) {
  const Timed timed = Start(kCompleteMany);
  return QueueCommit(context, CommitCall(PresentedToken(*context), *request, response), timed);
}

grpc::ServerUnaryReactor* CoordinatorService::QueueCommit(grpc::CallbackServerContext* context, CommitCall call,
                                                          const Timed& timed) {
  // A wrong token is refused at once, not after the group commit queued ahead of it (CommitCalls checks
  // again: it is the core's rule).
  if (absl::Status authorized = core_->Authorize(PresentedToken(*context)); !authorized.ok()) {
    return Finish(context, authorized, timed);
  }
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  absl::MutexLock lock(&mu_);
  commits_.push_back({reactor, std::move(call), timed});
  return reactor;
}

void CoordinatorService::CommitLoop() {
  std::vector<PendingCommit> batch;
  std::vector<CommitCall*> calls;
  while (true) {
    batch.clear();
    calls.clear();
    {
      absl::MutexLock lock(&mu_);
      auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stopping_ || !commits_.empty(); };
      mu_.Await(absl::Condition(&ready));
      if (commits_.empty()) return;
      std::swap(batch, commits_);
    }
    // Everything queued since the last wake-up is one group commit: one sink call (one Redis round
    // trip) for all of it, however many calls came in while the groups before it were being persisted.
    const RpcTiming::Clock::time_point group_start = RpcTiming::Clock::now();
    for (PendingCommit& commit : batch) calls.push_back(&commit.call);
    core_->CommitCalls(calls);
    // Timed before the answers go, as the calls are: a worker that has its answer finds its group counted.
    RpcTiming::Answered(commit_group_, group_start);
    for (PendingCommit& commit : batch) {
      RpcTiming::Answered(commit.timed.histogram, commit.timed.start);
      commit.reactor->Finish(ToGrpcStatus(commit.call.status()));
    }
  }
}

}  // namespace noveltygrid
