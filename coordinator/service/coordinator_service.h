// CoordinatorService: the noveltygrid.v1.Coordinator gRPC service (callback API).
//
// Lease, Heartbeat, Report, Release and Status are answered on the reactor thread: they only touch the
// scheduler's in-memory state under its mutex. Complete persists a result (journal fsync, reducer),
// which may block, so commits are queued to one committer thread that finishes the call when the
// result is durable; commits are therefore also serialised, which keeps "check token -> persist ->
// mark done" atomic. Every call is refused with UNAUTHENTICATED unless it carries the shared token.
#ifndef NOVELTYGRID_COORDINATOR_SERVICE_COORDINATOR_SERVICE_H_
#define NOVELTYGRID_COORDINATOR_SERVICE_COORDINATOR_SERVICE_H_

#include <deque>
#include <functional>
#include <set>
#include <string>
#include <thread>

#include "absl/synchronization/mutex.h"
#include "coordinator/lease/unit_scheduler.h"
#include "coordinator/plan/planner.h"
#include "noveltygrid/v1/coordinator.grpc.pb.h"

namespace noveltygrid {

// Where committed results go (journal + reducer). Called on the committer thread only.
using CommitSink = std::function<absl::Status(UnitResult result, const CallStats& calls)>;

struct CoordinatorServiceOptions {
  std::string token;
  std::string sweep_name;
  absl::Duration heartbeat_interval = absl::Seconds(2);
  absl::Duration idle_retry = absl::Milliseconds(500);  // how long a worker waits when nothing is free
  std::function<void()> on_marked_done;                 // after a commit is persisted AND the unit is marked done
};

class CoordinatorService final : public v1::Coordinator::CallbackService {
 public:
  // `plan` (not owned) supplies each unit's benchmark settings for its leases.
  CoordinatorService(CoordinatorServiceOptions options, const Plan* plan, UnitScheduler* scheduler, CommitSink sink);
  ~CoordinatorService() override;

  // Workers that have been told the sweep is complete.
  std::set<std::string> WorkersToldComplete() const;

  grpc::ServerUnaryReactor* Lease(grpc::CallbackServerContext* context, const v1::LeaseRequest* request,
                                  v1::LeaseResponse* response) override;
  grpc::ServerUnaryReactor* Heartbeat(grpc::CallbackServerContext* context, const v1::HeartbeatRequest* request,
                                      v1::HeartbeatResponse* response) override;
  grpc::ServerUnaryReactor* Report(grpc::CallbackServerContext* context, const v1::ReportRequest* request,
                                   v1::ReportResponse* response) override;
  grpc::ServerUnaryReactor* Complete(grpc::CallbackServerContext* context, const v1::CompleteRequest* request,
                                     v1::CompleteResponse* response) override;
  grpc::ServerUnaryReactor* Release(grpc::CallbackServerContext* context, const v1::ReleaseRequest* request,
                                    v1::ReleaseResponse* response) override;
  grpc::ServerUnaryReactor* Status(grpc::CallbackServerContext* context, const v1::StatusRequest* request,
                                   v1::StatusResponse* response) override;

 private:
  struct PendingCommit {
    grpc::ServerUnaryReactor* reactor;
    const v1::CompleteRequest* request;
    v1::CompleteResponse* response;
  };

  // Returns a reactor already finished with UNAUTHENTICATED, or nullptr when the call may proceed.
  grpc::ServerUnaryReactor* RejectUnlessAuthorized(grpc::CallbackServerContext* context);
  void CommitLoop();
  grpc::Status CommitOne(const v1::CompleteRequest& request, v1::CompleteResponse* response);

  // Constant after construction.
  const CoordinatorServiceOptions options_;
  const Plan* const plan_;
  UnitScheduler* const scheduler_;
  const CommitSink sink_;

  mutable absl::Mutex mu_;
  std::deque<PendingCommit> commits_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::set<std::string> told_complete_ ABSL_GUARDED_BY(mu_);
  std::thread committer_;
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_SERVICE_COORDINATOR_SERVICE_H_
