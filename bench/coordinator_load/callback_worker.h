// CallbackWorker: a fake worker of the load generator (bench/coordinator_load) that makes the same calls
// as FakeWorker (fake_worker.h) -- Lease for every free slot, a round of Report then CompleteMany at
// most every round_interval, a Heartbeat every interval the coordinator names -- with gRPC's callback
// API and no threads of its own: its rounds, heartbeats and pauses are tasks on a Scheduler shared by
// every worker, and each call's answer is taken in on the gRPC thread that received it, which starts
// the worker's next call. Fifty FakeWorkers are ~150 threads, each woken for every call it makes, and
// took 0.65-0.84 of a core on this 2-core machine, 40% of it in the kernel: the generator competed with
// the coordinator it measures.
//
// What it holds and sends is its WorkerBook's (worker_book.h). A call in flight or a task scheduled
// holds the worker (a shared_ptr). Stop() waits for every call in flight and no call starts after it;
// a task already scheduled may still run, and finds the worker stopped. Thread-safe.
#ifndef NOVELTYGRID_BENCH_COORDINATOR_LOAD_CALLBACK_WORKER_H_
#define NOVELTYGRID_BENCH_COORDINATOR_LOAD_CALLBACK_WORKER_H_

#include <functional>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "bench/coordinator_load/latency_recorder.h"
#include "bench/coordinator_load/scheduler.h"
#include "bench/coordinator_load/worker_book.h"
#include "noveltygrid/v1/coordinator.grpc.pb.h"
#include "proto/grpc_coordinator_client.h"

namespace noveltygrid::load {

class CallbackWorker final : public LoadWorker, public std::enable_shared_from_this<CallbackWorker> {
 public:
  // `client`, `recorder`, `pool` and `scheduler` are not owned and must outlive the worker and its
  // scheduled tasks.
  static std::shared_ptr<CallbackWorker> Create(FakeWorkerOptions options, GrpcCoordinatorClient* client,
                                                LatencyRecorder* recorder, const StepPool* pool, Scheduler* scheduler);

  void Start() override;
  void Stop() override;
  WorkerCounters counters() const override { return book_.counters(); }
  bool AwaitSettled(int64_t units, absl::Time deadline) const override { return book_.AwaitSettled(units, deadline); }

 private:
  // A round's calls, made one after another: its Reports, then its commits until each is settled.
  struct RoundCalls {
    absl::Time started;
    std::vector<WireReport> reports;
    size_t next_report = 0;
    std::vector<Commit> commits;
  };

  CallbackWorker(FakeWorkerOptions options, GrpcCoordinatorClient* client, LatencyRecorder* recorder,
                 const StepPool* pool, Scheduler* scheduler);

  // A call may start (counted in flight): false once stopped. Every call that starts ends in End().
  bool Begin();
  void End();
  // Asks for the free slots, unless a Lease is in flight or waiting out a pause.
  void MaybeLease();
  void LeaseAnswered(const v1::LeaseResponse& response, int asked, const absl::Status& status, absl::Time start);
  void Round();
  // The round's next call, or, when it has none left, the next round at its time.
  void Continue(std::shared_ptr<RoundCalls> round);
  // Starts `method` with a request of wire bytes (Report, CompleteMany), counted in flight; its reply,
  // parsed, goes to `answered` with the call's status and the time it came, on gRPC's thread.
  template <typename Response>
  void SendBytes(const grpc::internal::RpcMethod& method, Rpc kind, grpc::ByteBuffer request,
                 std::function<void(const absl::Status&, const Response&, absl::Time)> answered);
  void SendReport(std::shared_ptr<RoundCalls> round);
  void SendCommits(std::shared_ptr<RoundCalls> round);
  void Heartbeat();
  // Runs `task` at `when` on the scheduler, holding the worker.
  void At(absl::Time when, void (CallbackWorker::*task)());

  GrpcCoordinatorClient* const client_;
  LatencyRecorder* const recorder_;
  Scheduler* const scheduler_;
  const std::unique_ptr<v1::Coordinator::Stub> stub_;
  WorkerBook book_;

  absl::Mutex mu_;
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
  int in_flight_ ABSL_GUARDED_BY(mu_) = 0;
  // A Lease in flight, or waiting out a pause, or none to come (the sweep is complete).
  bool leasing_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace noveltygrid::load

#endif  // NOVELTYGRID_BENCH_COORDINATOR_LOAD_CALLBACK_WORKER_H_
