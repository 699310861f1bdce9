// WorkerBook: what one fake worker of the load generator (bench/coordinator_load) holds -- its running
// loops, their steps not yet reported, its finished units not yet committed, its counters -- and the
// requests made from it and the answers taken into it. The two ways of driving a worker share it:
// FakeWorker (fake_worker.h, blocking calls on threads of its own, as `noveltygrid worker`) and
// CallbackWorker (callback_worker.h, gRPC's callback API, no threads of its own).
//
// A worker's loops each lease a unit, make one AidanBench step every `step_interval` (answer text and
// embedding from a shared StepPool, so the coordinator keeps real checkpoints), and after `iterations`
// +- 2 steps (by the unit id) commit the unit with a plausible result; the slot then leases the next unit.
// Steps are made at each round (in place of the model replies a real worker's loops would have queued
// for it) and reported in that round's Report, finished units committed in its CompleteMany.
//
// Thread-safe.
#ifndef NOVELTYGRID_BENCH_COORDINATOR_LOAD_WORKER_BOOK_H_
#define NOVELTYGRID_BENCH_COORDINATOR_LOAD_WORKER_BOOK_H_

#include <cstdint>
#include <functional>
#include <map>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/container/node_hash_map.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "grpcpp/support/byte_buffer.h"
#include "noveltygrid/v1/coordinator.pb.h"

namespace noveltygrid::load {

// Answer texts the steps are drawn from, and each with an embedding as a serialized step (built once,
// shared by every worker); and the results units commit, serialized once per shape. Thread-safe.
class StepPool {
 public:
  // `embedding_in_store`: the steps are reported as a worker with a checkpoint store reports them, the
  // embedding left out and flagged (v1::Step.embedding_in_store); otherwise with `embedding_dim` floats.
  StepPool(int size, int answer_bytes, int embedding_dim, uint64_t seed, bool embedding_in_store = false);
  // The coherence of a step drawn from entry `pick`.
  static double Coherence(size_t pick) { return 70 + static_cast<double>(pick % 25); }
  size_t size() const { return answers_.size(); }
  // Entry `pick` as a serialized v1::Step without answer_num and novelty (report_wire.h's AppendStep).
  const std::string& FixedStep(size_t pick) const { return fixed_steps_[pick]; }
  // What a unit whose id hashes to `unit_hash` commits after `steps` steps -- its answers (step n drawn
  // from entry (unit_hash + n) mod size(), the last one repeating) and its calls -- as fields of a
  // serialized v1::CompleteRequest. Built once per (unit_hash mod size(), steps); lasts as long as the
  // pool.
  const std::string& Result(uint64_t unit_hash, int steps) const;

 private:
  std::string BuildResult(size_t first, int steps) const;

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
  // The rounds start this often, or as soon as the last one is sent when that took longer
  // (WorkerOptions::min_round_interval). Zero: every 10 ms, the tick on which steps were made before
  // rounds made them -- rounds go as soon as steps are waiting, as the real worker's do with zero.
  absl::Duration round_interval = absl::Milliseconds(20);
  // FakeWorker only. true: each round's finished units are committed in one CompleteMany after the
  // round's Report, as the real worker does. false: one Complete per unit (a worker from before
  // CompleteMany), after the Report, one at a time (complete_senders 0), or by complete_senders threads
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
  int64_t completes_waiting = 0;  // now: results not yet settled
};

// A fake worker, however it is driven (main.cc holds them as this).
class LoadWorker {
 public:
  virtual ~LoadWorker() = default;
  virtual void Start() = 0;
  // Stops leasing and stepping, waits for the calls in flight and says goodbye.
  virtual void Stop() = 0;
  virtual WorkerCounters counters() const = 0;
  // Waits until `units` commits have been answered for good (committed or refused); false at `deadline`.
  virtual bool AwaitSettled(int64_t units, absl::Time deadline) const = 0;
};

// A finished loop's commit: its lease and its serialized v1::CompleteRequest, in two parts that parse
// as one -- the request's own fields, and the unit's answers and calls (the StepPool's).
struct Commit {
  std::string lease_id;
  std::string head;
  const std::string* result = nullptr;
};

// A Report ready to send: a ReportRequest's wire bytes (report_wire.h), and how many steps it carries.
struct WireReport {
  grpc::ByteBuffer bytes;
  int steps = 0;
};

class WorkerBook {
 public:
  // `pool` is not owned and must outlive the book.
  WorkerBook(FakeWorkerOptions options, const StepPool* pool);

  const FakeWorkerOptions& options() const { return options_; }
  // How often rounds start: options().round_interval, or every 10 ms when that is zero.
  absl::Duration round_tick() const { return round_tick_; }

  // Stopping: every wait below ends, and the drivers make no more calls.
  void Stop();
  bool Stopping() const;
  // Sleeps up to `d`; false when stopping.
  bool Pause(absl::Duration d) const;
  // Waits for a free slot; its number of free slots, or 0 when stopping.
  int AwaitFreeSlots() const;
  int FreeSlots() const;
  absl::Duration heartbeat_interval() const;

  // How long a driver waits before it sends again a call that failed, or commits not yet settled.
  static constexpr absl::Duration kRetryPause = absl::Milliseconds(100);
  // A call's deadline, started now.
  absl::Time Deadline() const { return absl::Now() + options_.rpc_timeout; }

  // A Lease asking for `free` units, and its answer (received at `now`; `status` the call's) taken in:
  // when to ask again -- at once (zero), after a pause (the call failed, or no unit was free), or never
  // (InfiniteDuration: the sweep is complete).
  v1::LeaseRequest LeaseRequest(int free) const;
  absl::Duration LeaseAnswered(const absl::Status& status, const v1::LeaseResponse& response, int asked,
                               absl::Time now);

  // A round at `now`: makes the steps due by then (a loop that reaches its target ends and becomes a
  // commit) and takes the round's Reports -- every running loop's new steps, one LeaseSteps per lease
  // (as PackReports shapes the real worker's), split only when they grow large -- and its commits.
  struct Round {
    std::vector<WireReport> reports;
    std::vector<Commit> commits;
  };
  Round TakeRound(absl::Time now);
  void ReportAnswered(const absl::Status& status, int steps, const v1::ReportResponse& response);

  // One CompleteMany for `commits`, as wire bytes (GrpcCoordinatorClient::CompleteManySerialized); its
  // answer taken in: the commits that are to be sent again (neither accepted nor refused for good).
  grpc::ByteBuffer CompleteManyRequest(const std::vector<Commit>& commits) const;
  std::vector<Commit> CompleteManyAnswered(std::vector<Commit> commits, const absl::Status& status,
                                           const v1::CompleteManyResponse& response);
  // A unit's commit answered for good (Complete): `accepted` or refused.
  void Settle(const std::string& lease_id, bool accepted);

  // The Heartbeat listing every lease held, and its answer taken in (the leases lost are dropped).
  v1::HeartbeatRequest HeartbeatRequest() const;
  void HeartbeatAnswered(const v1::HeartbeatResponse& response);
  // The Heartbeat a stopped worker says goodbye with (its leases go back to the plan).
  v1::HeartbeatRequest GoodbyeRequest() const;

  WorkerCounters counters() const;
  bool AwaitSettled(int64_t units, absl::Time deadline) const;

 private:
  struct Loop {
    std::string lease_id;
    uint64_t token = 0;
    std::string unit_id;
    uint64_t unit_hash = 0;  // StableHash(unit_id): picks its steps, its length and its result
    int max_iterations = 0;
    int target = 0;  // steps before the unit completes
    int done = 0;
    absl::Time next_step;
  };
  // A loop's steps made since the last round: each its pool entry and its number (report_wire.h's
  // AppendStep frames them when the round's Report is built).
  struct OutStep {
    uint32_t pick;
    int answer_num;
  };
  using OutSteps = absl::InlinedVector<OutStep, 2>;

  void StepDue(absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  Commit MakeCommit(const Loop& loop) const;
  // Forgets the loop of `lease_id` (lost or refused); false when there is none.
  bool EraseLease(const std::string& lease_id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void SettleLocked(const std::string& lease_id, bool accepted) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const FakeWorkerOptions options_;
  const StepPool* const pool_;
  const absl::Duration round_tick_;

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
  std::vector<Commit> out_commits_ ABSL_GUARDED_BY(mu_);
  WorkerCounters counters_ ABSL_GUARDED_BY(mu_);
};

}  // namespace noveltygrid::load

#endif  // NOVELTYGRID_BENCH_COORDINATOR_LOAD_WORKER_BOOK_H_
