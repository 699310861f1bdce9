// CoordinatorService: the noveltygrid.v1.Coordinator gRPC service (callback API), a thin adapter over
// CoordinatorCore (coordinator_core.h): it takes the token from the call's metadata, calls the core
// and finishes the call with the core's status.
//
// Lease, Heartbeat, Report, Release and Status are answered on the reactor thread: the core touches the
// scheduler's in-memory state there, and Lease also writes its leases to the lease log (one file write,
// or one Redis round trip of ~0.15 ms under load; answering Lease from a thread of its own instead was
// tried on 2026-12-06 and its tails did not improve at 50 workers x 512 loops). Complete and
// CompleteMany persist results (journal fsync or Redis, reducer), which may block, so commits are queued
// to the committer threads, which finish each call when its results are durable. A committer takes
// every queued commit at each wake-up and commits them as one group (CoordinatorCore::CommitCalls): one
// sink call, one journal write or Redis round trip, for all of them. There are two, a pipeline: while
// one group waits on the store, the other takes what arrived meanwhile, checks it and sends it (the
// core serialises everything but the sink calls). With an RpcTiming, every call's time from its
// handler to its answer goes to noveltygrid_rpc_duration_seconds, and each group's time, from taking
// its calls to their answers being ready, to noveltygrid_commit_group_seconds (coordinator/metrics/
// rpc_timing.h).
#ifndef NOVELTYGRID_COORDINATOR_SERVICE_COORDINATOR_SERVICE_H_
#define NOVELTYGRID_COORDINATOR_SERVICE_COORDINATOR_SERVICE_H_

#include <array>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "coordinator/metrics/rpc_timing.h"
#include "coordinator/service/coordinator_core.h"
#include "noveltygrid/v1/coordinator.grpc.pb.h"
#include "proto/coordinator_calls.h"

namespace noveltygrid {

// Report is registered raw (WithRawCallbackMethod_Report): its request is read as v1::ReceivedReport,
// the same wire form with each step left as bytes (coordinator_core.h).
class CoordinatorService final
    : public v1::Coordinator::WithRawCallbackMethod_Report<v1::Coordinator::CallbackService> {
 public:
  // `core` and `timing` (nullptr: calls are not timed) are not owned and must outlive the service.
  explicit CoordinatorService(CoordinatorCore* core, const RpcTiming* timing = nullptr);
  ~CoordinatorService() override;

  // Each call: the core's, with the token the call presents; Complete's and CompleteMany's finish on the
  // committer threads.
#define NOVELTYGRID_SERVICE_CALL(Name)                                                                   \
  grpc::ServerUnaryReactor* Name(grpc::CallbackServerContext* context, const v1::Name##Request* request, \
                                 v1::Name##Response* response) override;
  NOVELTYGRID_COORDINATOR_TYPED_CALLS(NOVELTYGRID_SERVICE_CALL)
#undef NOVELTYGRID_SERVICE_CALL
  grpc::ServerUnaryReactor* Report(grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
                                   grpc::ByteBuffer* response) override;

 private:
  // The service's methods, for their histograms (timers_).
  enum Method { kLease, kHeartbeat, kReport, kComplete, kCompleteMany, kRelease, kStatus, kMethods };
  // A call being answered: its method's histogram (nullptr: not timed) and when its handler was called.
  struct Timed {
    prometheus::Histogram* histogram = nullptr;
    RpcTiming::Clock::time_point start;
  };
  struct PendingCommit {
    grpc::ServerUnaryReactor* reactor;
    CommitCall call;
    Timed timed;
  };

  Timed Start(Method method) const {
    prometheus::Histogram* histogram = timers_[method];
    return {histogram, histogram == nullptr ? RpcTiming::Clock::time_point() : RpcTiming::Clock::now()};
  }
  // A reactor finished with `status`, the call timed.
  static grpc::ServerUnaryReactor* Finish(grpc::CallbackServerContext* context, const absl::Status& status,
                                          const Timed& timed);
  // Queues `call` for a committer thread, which commits it with the others queued and finishes it
  // (a wrong token too: CommitCalls refuses it alone).
  grpc::ServerUnaryReactor* QueueCommit(grpc::CallbackServerContext* context, CommitCall call, const Timed& timed);
  void CommitLoop();

  // Committer threads: two, so that a group's checks and reduction overlap another's store write.
  static constexpr int kCommitters = 2;

  CoordinatorCore* const core_;
  std::array<prometheus::Histogram*, kMethods> timers_{};  // by Method; all nullptr without an RpcTiming
  prometheus::Histogram* commit_group_ = nullptr;          // the committers' groups; nullptr: not timed

  absl::Mutex mu_;
  std::vector<PendingCommit> commits_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::thread> committers_;
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_SERVICE_COORDINATOR_SERVICE_H_
