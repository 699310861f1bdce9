// FakeWorker: a fake worker of the load generator (bench/coordinator_load) driven as `noveltygrid
// worker` drives its leases (worker/lease_loop.h): blocking calls on threads of its own. What it holds
// and sends is its WorkerBook's (worker_book.h); the calls go through a GrpcCoordinatorClient, its
// Reports and commits as wire bytes (report_wire.h).
//
// Threads: a leasing thread (asks for every free slot), a heartbeat thread (every interval the
// coordinator names, listing every lease held), and a sender thread whose rounds make the steps due
// since the last, then send the round's Report and its commits (one CompleteMany; or Completes, one at
// a time, or by complete_senders threads of their own). Fifty of these are ~150 threads, each woken
// for every call it makes: CallbackWorker (callback_worker.h) makes the same calls without them. Every
// call's latency goes to the shared LatencyRecorder. Thread-safe; Stop() before destruction.
#ifndef NOVELTYGRID_BENCH_COORDINATOR_LOAD_FAKE_WORKER_H_
#define NOVELTYGRID_BENCH_COORDINATOR_LOAD_FAKE_WORKER_H_

#include <deque>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "bench/coordinator_load/latency_recorder.h"
#include "bench/coordinator_load/worker_book.h"
#include "proto/grpc_coordinator_client.h"

namespace noveltygrid::load {

class FakeWorker final : public LoadWorker {
 public:
  // `client`, `recorder` and `pool` are not owned and must outlive the worker.
  FakeWorker(FakeWorkerOptions options, GrpcCoordinatorClient* client, LatencyRecorder* recorder, const StepPool* pool);
  ~FakeWorker() override;

  void Start() override;
  // Ends the threads (within one call each) and says goodbye.
  void Stop() override;
  WorkerCounters counters() const override { return book_.counters(); }
  bool AwaitSettled(int64_t units, absl::Time deadline) const override { return book_.AwaitSettled(units, deadline); }

 private:
  void LeaseLoop();
  void HeartbeatLoop();
  void SendLoop();
  void CompleteLoop();  // one of the complete_senders
  void SendReport(const WireReport& report);
  void SendComplete(const Commit& commit);
  // One CompleteMany for `commits`, sent again (those not settled) until each is settled.
  void SendCompleteMany(std::vector<Commit> commits);

  GrpcCoordinatorClient* const client_;
  LatencyRecorder* const recorder_;
  WorkerBook book_;

  absl::Mutex mu_;
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
  std::deque<Commit> complete_queue_ ABSL_GUARDED_BY(mu_);  // for the complete_senders
  std::vector<std::thread> threads_;
};

}  // namespace noveltygrid::load

#endif  // NOVELTYGRID_BENCH_COORDINATOR_LOAD_FAKE_WORKER_H_
