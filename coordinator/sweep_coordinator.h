// SweepCoordinator: one sweep's coordinator, assembled -- planner, scheduler (leases), reducer,
// journal and the gRPC service with grpc.health.v1 -- listening on a port until every unit is
// committed, then writing the results folder.
//
// Used by `noveltygrid coordinator` and, on a loopback port, by `noveltygrid run`. Thread-safe:
// Shutdown() may be called from a signal-handling thread while Wait() blocks in another.
#ifndef NOVELTYGRID_COORDINATOR_SWEEP_COORDINATOR_H_
#define NOVELTYGRID_COORDINATOR_SWEEP_COORDINATOR_H_

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "common/clock.h"
#include "common/config.h"
#include "common/metrics/metrics_server.h"
#include "common/storage/store.h"
#include "coordinator/benchmarks/benchmark_results.h"
#include "coordinator/lease/budget_policy.h"
#include "coordinator/lease/unit_scheduler.h"
#include "coordinator/metrics/rpc_timing.h"
#include "coordinator/plan/estimate.h"
#include "coordinator/plan/plan_estimate.h"
#include "coordinator/plan/planner.h"
#include "coordinator/report/results_writer.h"
#include "coordinator/service/coordinator_service.h"
#include "coordinator/state/journal.h"
#include "coordinator/state/lease_log.h"
#include "grpcpp/server.h"
#include "proto/security.h"

namespace noveltygrid {

struct CoordinatorOptions {
  std::string listen = "127.0.0.1:0";  // HOST:PORT; port 0 picks a free one (see port())
  std::string out_dir;
  std::string token;  // shared with the workers
  TlsFiles tls;
  SchedulerOptions scheduler;
  absl::Duration heartbeat_interval = absl::Seconds(2);
  absl::Duration linger = absl::Seconds(10);  // after completion: until every live worker has been told
  std::function<void(int64_t answers, bool failed)> on_commit;  // progress; any thread
  // Optional (not owned): keeps the sweep state (commits) in the store instead of DIR's journal,
  // and drops each unit's loop checkpoint once it is committed.
  Store* store = nullptr;
  // An external leaderboard for report.html's correlation section (ResultsOptions::correlate).
  std::optional<CorrelateOptions> correlate;
  // HOST:PORT to serve Prometheus metrics on (coordinator/metrics/coordinator_metrics.h); empty: none.
  std::string metrics_listen;
};

// What `noveltygrid plan` shows: the units committed in `store` (when given) or in `out_dir`'s journal
// (when any), read without changing anything.
absl::StatusOr<PlanEstimate> EstimateSweep(const SweepConfig& config, const std::string& out_dir, Store* store);

class SweepCoordinator {
 public:
  // Plans the sweep, resumes from DIR's journal, and starts serving.
  static absl::StatusOr<std::unique_ptr<SweepCoordinator>> Start(const SweepConfig& config, CoordinatorOptions options);
  ~SweepCoordinator();

  int port() const { return port_; }
  // The service behind the gRPC server, for a worker in this same process (InProcessCoordinatorClient):
  // the same calls, checks and token, without serialising every Lease, Report and Complete over loopback.
  CoordinatorCore* core() const { return core_.get(); }
  int metrics_port() const { return metrics_ == nullptr ? 0 : metrics_->port(); }
  int64_t units_total() const { return static_cast<int64_t>(plan_.units.size()); }
  int64_t units_resumed() const { return units_resumed_; }
  // Units a previous coordinator had leased and that this one gave back to their workers (lease_log.h).
  int64_t units_restored() const { return units_restored_; }
  const Plan& plan() const { return plan_; }
  // The estimate for the units not committed when the coordinator started.
  const PlanEstimate& plan_estimate() const { return plan_estimate_; }

  // Blocks until every unit is committed (then writes the results folder and returns the number of
  // units that ended in an error) or until Shutdown() (then returns Cancelled; the journal keeps
  // what was committed), or until the budget (budget_usd:, budgets:) stops the sweep: nothing in flight
  // and no pending unit fits (then writes the results folder and returns ResourceExhausted saying what
  // was spent and what is left undone).
  absl::StatusOr<int> Wait();
  // Why units failed in this run: each distinct error message with its count, most frequent first.
  std::vector<std::pair<std::string, int64_t>> FailureReasons() const;
  // The most frequent of them as indented lines "  N unit(s): MESSAGE" (empty when none failed).
  std::string FailureSummary(size_t max_lines = 5) const;

  // Stops: health turns NOT_SERVING and Wait() returns. Safe from any thread, more than once.
  void Shutdown();

  // Writes the results folder from what is committed so far.
  absl::Status WriteResults();

  // What `noveltygrid status` asks over gRPC (CoordinatorCore::Status), asked in this process.
  v1::StatusResponse Status() const;

  // The leaderboard text of what is committed so far.
  std::string LeaderboardText() const;

 private:
  SweepCoordinator(const SweepConfig& config, CoordinatorOptions options);
  // Opens the lease log and gives the leases it holds back to their workers (UnitScheduler::Restore).
  absl::Status RestoreLeases(const std::string& sweep);
  // The CoordinatorCore's sink: the units one commit call accepted, journaled together, then reduced in
  // order.
  absl::Status Commit(std::vector<JournalEntry> units);
  // Journals the units that did not fail, in one AppendMany; a unit the log already held takes the
  // result stored there (TakeStored).
  absl::Status Journal(std::vector<JournalEntry>& units);
  // What follows a unit's journaling: budget, reducer, progress, its checkpoint and failure counts.
  void Reduce(JournalEntry unit);
  // Hands a committed unit to its benchmark's reducer; false when the unit was already there.
  bool AddToReducer(UnitResult result, const CallStats& calls);
  // Replaces each of `results` with the one the commit log holds for its unit.
  absl::Status TakeStored(const std::vector<UnitResult*>& results) const;
  void Linger();
  // Deletes the worker checkpoints of the units committed since the last call, in one round trip.
  // Queues the unit's checkpoint for DropCheckpoints (Wait() runs it soon).
  void DropCheckpointSoon(const std::string& unit_id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void DropCheckpoints();
  std::string BudgetMessage() const;
  ResultsOptions ResultsOptionsOf() const;
  // ResultsOptions::rows_key: named for a finished sweep without failed units only.
  std::string RowsKey() const;
  // Every benchmark's results so far, sweep order.
  std::vector<std::unique_ptr<BenchmarkResults>> Parts() const;

  const CoordinatorOptions options_;
  const Plan plan_;
  const std::vector<std::string> simulated_;
  const std::vector<std::string> temperature_not_applied_;  // ResultsOptions::temperature_not_applied
  const std::map<std::string, ModelPrice> prices_;
  const std::string sweep_name_;  // the config's name:, recorded in summary.json "run"
  SystemClock clock_;
  const absl::Time started_;
  int64_t units_resumed_ = 0;
  int64_t units_restored_ = 0;
  std::unique_ptr<CostModel> cost_model_;
  PlanEstimate plan_estimate_;
  int port_ = 0;
  std::unique_ptr<CommitLog> journal_;
  std::unique_ptr<LeaseLog> lease_log_;
  std::map<std::string, std::unique_ptr<BenchmarkReducer>> reducers_;  // by benchmark name
  std::unique_ptr<BudgetPolicy> budget_;  // with a budget only; the scheduler's lease policy
  std::unique_ptr<UnitScheduler> scheduler_;
  std::unique_ptr<CoordinatorCore> core_;
  std::unique_ptr<RpcTiming> rpc_timing_;  // with --metrics-listen only; read by service_ and Commit
  std::unique_ptr<CoordinatorService> service_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<MetricsServer> metrics_;  // reads scheduler_ and core_: goes first

  mutable absl::Mutex mu_;
  bool shutdown_ ABSL_GUARDED_BY(mu_) = false;
  int64_t commits_ ABSL_GUARDED_BY(mu_) = 0;  // commit calls that marked units done (wakes Wait())
  int failed_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<std::string, int64_t> failure_reasons_ ABSL_GUARDED_BY(mu_);
  // Checkpoint keys of committed units, deleted by Wait() every so often (DropCheckpoints) rather than
  // one round trip per commit on a committer thread.
  std::vector<std::string> stale_checkpoints_ ABSL_GUARDED_BY(mu_);
  // Results handed to the reducers so far, and the leaderboard text WriteResults wrote with how many
  // there were then: LeaderboardText() returns it while nothing has been added since, rather than
  // snapshotting every reducer again at the end of a sweep.
  std::atomic<int64_t> reduced_{0};
  std::optional<std::pair<int64_t, std::string>> written_leaderboard_ ABSL_GUARDED_BY(mu_);
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_SWEEP_COORDINATOR_H_
