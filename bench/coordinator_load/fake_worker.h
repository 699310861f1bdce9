// FakeWorker: one worker of the load generator (bench/coordinator_load). It speaks the worker protocol
// to a real coordinator as `noveltygrid worker` does (worker/lease_loop.h), its Reports framed around
// steps serialized once (report_wire.h), but calls no model: each of
// its loops leases a unit, makes one AidanBench step every `step_interval` (answer text and embedding
// from a shared pool, so the coordinator keeps real checkpoints), and after `iterations` +- 2 steps
// (by the unit id) completes the unit with a plausible result, then the slot leases the next unit.
//
// Threads, as the real lease loop: a leasing thread (asks for every free slot), a heartbeat thread
// (every interval the coordinator names, listing every lease held), and a sender thread whose rounds
// make the steps due since the last (in place of the model calls), then send the round's Report (every
// lease's new steps) and its commits (one CompleteMany; or Completes, one at a time). Every RPC's
// latency goes to the shared LatencyRecorder. Thread-safe; Stop() before destruction.
#ifndef NOVELTYGRID_BENCH_COORDINATOR_LOAD_FAKE_WORKER_H_
#define NOVELTYGRID_BENCH_COORDINATOR_LOAD_FAKE_WORKER_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <queue>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/node_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "bench/coordinator_load/latency_recorder.h"
#include "noveltygrid/v1/coordinator.pb.h"
#include "proto/grpc_coordinator_client.h"

namespace noveltygrid::load {

// Answer texts the steps are drawn from, and each with an embedding as a serialized step (built once,
// shared by every worker); and the results units commit, serialized once per shape. Thread-safe.
class StepPool {
 public:
  StepPool(int size, int answer_bytes, int embedding_dim, uint64_t seed);
  // The coherence of a step drawn from entry `pick`.
  static double Coherence(size_t pick) { return 70 + static_cast<double>(pick % 25); }
  size_t size() const { return answers_.size(); }
  // Entry `pick` as a serialized v1::Step without answer_num and novelty (report_wire.h's AppendStep).
  const std::string& FixedStep(size_t pick) const { return fixed_steps_[pick]; }
  // Appends what a unit whose id hashes to `unit_hash` commits after `steps` steps -- its answers (step
  // n drawn from entry (unit_hash + n) mod size(), the last one repeating) and its calls -- as fields of
  // a serialized v1::CompleteRequest. Built once per (unit_hash mod size(), steps).
  void AppendResult(uint64_t unit_hash, int steps, std::string* out) const;

 private:
  std::string Result(size_t first, int steps) const;

  std::vector<std::string> answers_;
  std::vector<std::string> fixed_steps_;
  mutable absl::Mutex mu_;
  // Node-based: an entry stays where it is, so it is read outside the lock.
  mutable absl::node_hash_map<std::pair<size_t, int>, std::string> results_ ABSL_GUARDED_BY(mu_);
};

struct FakeWorkerOptions {
  std::string worker_id;
  int loops = 512;
  absl::Duration step_interval = absl::Milliseconds(200);
  int iterations = 15;  // a unit completes after iterations-2 .. iterations+2 steps
  absl::Duration rpc_timeout = absl::Seconds(10);
  // The sender's rounds start this often, or as soon as the last one is sent when that took longer
  // (WorkerOptions::min_round_interval). Zero: every 10 ms, the tick on which steps were made before
  // rounds made them -- rounds go as soon as steps are waiting, as the real worker's do with zero.
  absl::Duration round_interval = absl::Milliseconds(20);
  // true: the sender thread commits each round's finished units in one CompleteMany after the round's
  // Report, as the real worker does. false: one Complete per unit (a worker from before CompleteMany),
  // by the sender after the Report, one at a time (complete_senders 0), or by complete_senders threads
  // of their own, up to that many in flight.
  bool complete_many = true;
  int complete_senders = 0;
};

// What a worker did; the counters only grow.
struct WorkerCounters {
  int64_t units_leased = 0;
  int64_t units_committed = 0;  // Complete accepted
  int64_t units_refused = 0;    // Complete not accepted, or the lease taken back
  int64_t steps_made = 0;
  int64_t steps_reported = 0;
  int64_t short_leases = 0;       // Lease answers with fewer units than asked (the plan runs dry)
  int64_t loops_running = 0;      // now
  int64_t completes_waiting = 0;  // now: results not yet sent (the sender's backlog)
};

class FakeWorker {
 public:
  // `client`, `recorder` and `pool` are not owned and must outlive the worker.
  FakeWorker(FakeWorkerOptions options, GrpcCoordinatorClient* client, LatencyRecorder* recorder, const StepPool* pool);
  ~FakeWorker();

  void Start();
  // Stops leasing and stepping, ends the threads (within one RPC each) and says goodbye.
  void Stop();
  WorkerCounters counters() const;

 private:
  struct Loop {
    std::string lease_id;
    uint64_t token = 0;
    std::string unit_id;
    int max_iterations = 0;
    int target = 0;  // steps before the unit completes
    int done = 0;
    absl::Time next_step;
  };

  void LeaseLoop();
  void HeartbeatLoop();
  void SendLoop();
  void CompleteLoop();  // one of the complete_senders
  // Makes the due steps (the sender, at each round); a loop that reaches its target becomes a Complete.
  void StepDue(absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // A finished loop's commit: its lease and the serialized v1::CompleteRequest.
  struct Commit {
    std::string lease_id;
    std::string bytes;
  };
  Commit MakeCommit(const Loop& loop) const;
  // A loop's steps made since the last round, as wire bytes (report_wire.h's AppendStep).
  struct OutSteps {
    std::string bytes;
    int count = 0;
  };
  // Sends the round's steps of the loops still held, one LeaseSteps per lease (as PackReports does for
  // the real worker), in Reports split only when they grow large.
  void SendReport(absl::flat_hash_map<uint64_t, OutSteps> steps);
  void SendComplete(const Commit& commit);
  // One CompleteMany for `commits`, sent again (those not settled) until each is settled.
  void SendCompleteMany(std::vector<Commit> commits);
  // Forgets the loop of `lease_id` (lost or refused); false when there is none.
  bool EraseLease(const std::string& lease_id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // A unit's commit answered for good: `accepted` or refused.
  void Settle(const std::string& lease_id, bool accepted) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool Stopping() const;
  // Sleeps up to `d`; false when stopping.
  bool Pause(absl::Duration d);
  absl::Time Deadline() const { return absl::Now() + options_.rpc_timeout; }

  // Constant after construction.
  const FakeWorkerOptions options_;
  GrpcCoordinatorClient* const client_;
  LatencyRecorder* const recorder_;
  const StepPool* const pool_;

  mutable absl::Mutex mu_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  absl::Duration heartbeat_interval_ ABSL_GUARDED_BY(mu_) = absl::Seconds(2);
  // The running loops by a number of this worker's (their steps look them up thousands of times a
  // second: no string hashing or comparing there), and that number by lease id.
  absl::flat_hash_map<uint64_t, Loop> loops_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, uint64_t> loop_of_lease_ ABSL_GUARDED_BY(mu_);
  uint64_t next_loop_ ABSL_GUARDED_BY(mu_) = 0;
  // Each running loop's next step (time, loop number), earliest on top; entries of ended loops linger
  // until they come up.
  using DueStep = std::pair<absl::Time, uint64_t>;
  std::priority_queue<DueStep, std::vector<DueStep>, std::greater<DueStep>> due_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, uint64_t> committing_ ABSL_GUARDED_BY(mu_);  // finished, commit not answered: token
  // By loop number; a loop that ends or is lost drops its entry, as the real worker drops its steps.
  absl::flat_hash_map<uint64_t, OutSteps> out_steps_ ABSL_GUARDED_BY(mu_);
  std::vector<Commit> out_completes_ ABSL_GUARDED_BY(mu_);
  std::deque<Commit> complete_queue_ ABSL_GUARDED_BY(mu_);  // for the complete_senders
  WorkerCounters counters_ ABSL_GUARDED_BY(mu_);

  std::vector<std::thread> threads_;
};

}  // namespace noveltygrid::load

#endif  // NOVELTYGRID_BENCH_COORDINATOR_LOAD_FAKE_WORKER_H_
