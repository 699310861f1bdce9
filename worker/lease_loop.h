// LeaseLoop: a stateless worker's life -- lease units from the coordinator, run them, stream every
// finished step back (Report), keep the leases alive (Heartbeat) and commit the results (CompleteMany:
// every unit a round finished in one call; Complete, one by one, to a coordinator without it).
//
// Threads: Run()'s thread leases; a heartbeat thread; a sender thread (lease_loop_sender.cc) that owns
// every outgoing Report/commit/Release, so model callbacks never block on the network. Units run wherever the
// UnitRunner runs them (UnitExecutor: its thread pool). The coordinator is reached through a
// CoordinatorClient (gRPC in a cluster, in-process in tests) and every pause, backoff, heartbeat
// interval and grace period is measured on the injected Clock (a FakeClock in tests). When the coordinator is
// unreachable the loop backs off (jittered, exponential up to max_backoff) and keeps trying; a commit is retried until
// the coordinator accepts or refuses it. Drain() (SIGTERM) stops leasing, lets running units finish within drain_grace,
// then abandons the rest and hands their leases back (ending their model calls, WorkerOptions::abort_calls); their
// reported steps stay with the coordinator. On its way out the worker tells the coordinator.
#ifndef NOVELTYGRID_WORKER_LEASE_LOOP_H_
#define NOVELTYGRID_WORKER_LEASE_LOOP_H_

#include <atomic>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/container/node_hash_map.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/call_cost.h"
#include "common/clock.h"
#include "noveltygrid/v1/coordinator.pb.h"
#include "proto/coordinator_client.h"
#include "proto/security.h"
#include "worker/checkpoint/checkpoint_store.h"
#include "worker/unit_events.h"
#include "worker/unit_runner.h"

namespace noveltygrid {

// Told what this worker's units do, for its metrics (worker/metrics/worker_metrics.h). Called from the
// units' threads, never with the loop's lock held, so it may take its own.
class UnitObserver {
 public:
  virtual ~UnitObserver() = default;
  // A unit starts on this worker under `lease`.
  virtual void Leased(const v1::Lease& lease) = 0;
  // The calls this worker's units made since the last time (the units' own accounting, which the
  // commits carry to summary.json): after each finished step, and when a unit ends however it ends.
  virtual void Called(const CallStats& delta) = 0;
};

struct WorkerOptions {
  std::string coordinator;  // HOST:PORT (GrpcClientOptions; named in log messages)
  std::string token;        // GrpcClientOptions
  TlsFiles tls;             // GrpcClientOptions
  std::string worker_id;    // default: hostname-pid
  int concurrency = 64;     // loops in flight
  absl::Duration drain_grace = absl::Seconds(30);
  absl::Duration rpc_timeout = absl::Seconds(10);
  absl::Duration max_backoff = absl::Seconds(5);
  // While the coordinator is unreachable, running units go on: a restarted coordinator gives their
  // leases back (coordinator/state/lease_log.h) and takes their results. After this long without a
  // heartbeat answered they are abandoned, so a coordinator that does not come back stops the spending.
  absl::Duration reconnect_window = absl::Minutes(5);
  // The sender starts a round (a Report of every new step, then one CompleteMany) at most this often, so
  // that a worker whose loops step thousands of times a second makes tens of RPCs a second, each
  // carrying many steps, rather than one small round after another (zero: a round as soon as anything
  // is waiting and the last round is done). A draining or stopping worker does not wait, nor one with no
  // unit running (its last one just finished: nothing more is coming for the round).
  absl::Duration min_round_interval = absl::ZeroDuration();
  bool exit_when_complete = true;  // return from Run() once the coordinator says the sweep is complete
  bool log = true;                 // progress notes on stderr (off for the in-process worker of `run`)
  // Asked when a unit ends in an error (optional): a provider that refused this worker's key, or a TLS
  // certificate this worker cannot verify (IsCredentialError). Then the unit is handed back instead
  // of failed -- that is this worker's problem, not the unit's, and another worker (or a re-run once
  // it is fixed) can run it -- and Run() stops with that error, so one misconfigured worker cannot
  // fail a sweep's units one after another.
  std::function<std::optional<absl::Status>()> credential_error;
  // Called (optional) when the units still running are handed back (the drain grace is over, or the
  // worker stops): fails their model calls in flight, so the worker exits now rather than when the
  // slowest call times out (past a Kubernetes termination grace period).
  std::function<void()> abort_calls;
  // Asked for every heartbeat (optional): this worker's model calls that have not ended, by what they
  // wait for, so that `status` can say why a sweep stands still.
  std::function<CallWaits()> call_waits;
  // Asked (optional) for a unit, by its lease id, that has made no step for long: the model call it
  // waits on (worker/activity/unit_activity.h).
  std::function<std::optional<WaitingCall>(const std::string& lease_id)> waiting_on;
  // A running unit with neither a step nor a new model call for longer than this many times its call's
  // provider timeout (the default provider timeout when nothing says) is stalled: logged once with its id and the call
  // it waits on, and counted in heartbeats (status and progress show it). Nothing is cancelled.
  double stall_multiple = 3;
  // At the end, how long Run() waits for units whose calls have not ended although they were handed
  // back and their calls aborted -- e.g. queued behind a provider's per-minute limit -- before it
  // returns without them (abandoned() > 0): the caller must then end the process at once
  // (std::_Exit), not destroy the loop. Infinite (the default): Run() waits for every unit.
  absl::Duration abandon_after = absl::InfiniteDuration();
  UnitObserver* observer = nullptr;  // optional, not owned
};

class LeaseLoop {
 public:
  // `client` and `runner` are not owned and must outlive the loop. `checkpoints` (optional) persists
  // every step so a unit resumes even if this worker dies before the coordinator has its reports.
  // `clock` (optional, not owned): the system clock when null.
  LeaseLoop(WorkerOptions options, CoordinatorClient* client, UnitRunner* runner,
            CheckpointStore* checkpoints = nullptr, const Clock* clock = nullptr);
  ~LeaseLoop();

  // Blocks until the sweep is complete and every result is committed, or until a drain finished.
  // Fails only on what retrying cannot fix (a refused token, a provider refusing this worker's key).
  absl::Status Run();

  // Stops leasing and drains; Run() returns when done. Safe from any thread.
  void Drain();

  // Units Run() returned without (WorkerOptions::abandon_after); read after Run().
  int abandoned() const {
    absl::MutexLock lock(&mu_);
    return abandoned_;
  }

  // Counters for tests and logs.
  struct Stats {
    int64_t units_started = 0, units_committed = 0, units_released = 0, steps_reported = 0;
    int64_t running = 0;  // units running now (loops in flight)
    bool draining = false;
  };
  Stats stats() const;

 private:
  struct Active {
    std::string lease_id;
    uint64_t token = 0;
    std::string unit_id;
    bool running = true;      // false once the loop ended and the result waits for its commit
    bool lost = false;        // no longer this worker's (taken back, or given up by it): abandon the unit
    bool taken_back = false;  // lost because the coordinator said so (TakeBack)
    int steps_done = 0;
    size_t stored_own = 0;      // entries of the unit's checkpoint list that are this loop's (CheckpointStore::CatchUp)
    absl::Time last_step;       // started, or its latest step
    bool stall_logged = false;  // since its latest step
    CallStats calls_seen;       // its calls as last told to the observer
  };
  struct Outgoing {
    std::map<std::string, std::vector<v1::Step>> steps;  // by lease id, in order
    std::vector<v1::CompleteRequest> completes;
    std::vector<v1::ReleaseRequest> releases;
    bool empty() const { return steps.empty() && completes.empty() && releases.empty(); }
  };

  void StartUnit(const v1::Lease& lease);
  // The coordinator says `lease_id` is no longer this worker's (heartbeat, refused report).
  void TakeBack(const std::string& lease_id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // unit_id: only for a lost lease whose loop has ended (ReleaseRequest.unit_id).
  v1::ReleaseRequest MakeRelease(const std::string& lease_id, uint64_t token, std::string reason,
                                 const std::string& unit_id = "") const;
  bool Stopping() const;
  // False once the coordinator took the lease back (or the unit ended): the unit should stop.
  bool StillLeased(const std::string& lease_id) const;
  bool OnStep(const std::string& lease_id, const StepEvent& step);
  void OnDone(const std::string& lease_id, UnitResult result, CallStats calls);
  // Tells the observer (if any) what the unit's cumulative `calls` add since it was last told (`ended`:
  // the unit's last word).
  void ObserveCalls(const std::string& lease_id, const CallStats& calls, bool ended);
  void HeartbeatLoop();
  // After a heartbeat: notes whether the coordinator answered, and abandons the running units once it
  // has not for reconnect_window.
  void NoteHeartbeat(bool answered) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Running units with no step for longer than the stall threshold: logs the newly stalled ones and
  // adds them to `waits`.
  void CheckStalls(CallWaits& waits) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void SendLoop();
  // False when some report could not be delivered (they are queued again).
  bool SendReports(std::map<std::string, std::vector<v1::Step>> steps);
  // Commits `completes` (CompleteMany, split when large), sending again those that did not settle.
  void SendCompletes(std::vector<v1::CompleteRequest> completes);
  struct CommitOutcome {
    absl::Status status;  // what Complete answered for the unit
    v1::CompleteResponse response;
  };
  // One CompleteMany for `request`'s units (to a coordinator without it: a Complete each); an outcome
  // per unit, in order. `*call_failed`: the call itself failed (every outcome is its error).
  std::vector<CommitOutcome> Commit(const v1::CompleteManyRequest& request, bool* call_failed);
  void SendRelease(const v1::ReleaseRequest& request);
  // The deadline of an RPC started now.
  absl::Time Deadline() const;
  // Waits up to `d`, or less when stopping (or draining or failed, if `wake_on_drain`), or -- given
  // `committed` -- when this worker's committed units are no longer that many (a commit may have
  // completed the sweep, or a lease of it may be worth asking for again), or -- if `wake_when_idle` --
  // when no unit is running.
  void Pause(absl::Duration d, bool wake_on_drain, std::optional<int64_t> committed = std::nullopt,
             bool wake_when_idle = false);
  absl::Duration Backoff(int failures) const;
  void Log(const std::string& message) const;

  // Constant after construction.
  const WorkerOptions options_;
  CoordinatorClient* const client_;
  UnitRunner* const runner_;
  CheckpointStore* const checkpoints_;  // may be null
  const SystemClock system_clock_;
  const Clock* const clock_;

  mutable absl::Mutex mu_;
  // By lease id. Hashed (a tree of 2,048 leases cost a chain of cache misses at every step's lookup);
  // node-based, so an Active stays where it is while others come and go.
  absl::node_hash_map<std::string, Active> active_ ABSL_GUARDED_BY(mu_);
  int running_ ABSL_GUARDED_BY(mu_) = 0;
  int abandoned_ ABSL_GUARDED_BY(mu_) = 0;  // running units Run() returned without
  // The latest deadline any RPC may have (unix ns); lowered when the loop stops.
  std::atomic<int64_t> rpc_deadline_cap_{std::numeric_limits<int64_t>::max()};
  bool draining_ ABSL_GUARDED_BY(mu_) = false;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;  // threads exit
  absl::Duration heartbeat_interval_ ABSL_GUARDED_BY(mu_) = absl::Seconds(2);
  bool beat_now_ ABSL_GUARDED_BY(mu_) = false;  // send a heartbeat without waiting for the interval
  // Heartbeats failing since then.
  std::optional<absl::Time> unreachable_since_ ABSL_GUARDED_BY(mu_);
  bool lease_pause_ ABSL_GUARDED_BY(mu_) = false;            // a unit could not start: lease less eagerly
  std::set<std::string> start_errors_ ABSL_GUARDED_BY(mu_);  // logged once each
  Outgoing outgoing_ ABSL_GUARDED_BY(mu_);
  int sending_ ABSL_GUARDED_BY(mu_) = 0;  // batches taken by the sender and not yet sent
  bool complete_one_by_one_ = false;      // sender thread only: the coordinator lacks CompleteMany
  Stats stats_ ABSL_GUARDED_BY(mu_);
  absl::Status fatal_ ABSL_GUARDED_BY(mu_);

  std::thread heartbeat_thread_;
  std::thread sender_thread_;
};

// "hostname-pid".
std::string DefaultWorkerId();

}  // namespace noveltygrid

#endif  // NOVELTYGRID_WORKER_LEASE_LOOP_H_
