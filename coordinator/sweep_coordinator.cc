#include "coordinator/sweep_coordinator.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <set>

#include "absl/strings/str_cat.h"
#include "common/hashing.h"
#include "common/metrics/scrape_families.h"
#include "common/status_macros.h"
#include "common/storage/keys.h"
#include "common/thread_priority.h"
#include "coordinator/metrics/coordinator_metrics.h"
#include "coordinator/report/results_writer.h"
#include "coordinator/state/store_commit_log.h"
#include "grpcpp/health_check_service_interface.h"
#include "grpcpp/server_builder.h"
#include "proto/limits.h"

namespace noveltygrid {

namespace {

// How much lower than the coordinator's own threads gRPC's run: five nice values, a third of the CPU
// weight, when both want the same core.
constexpr int kReactorNiceAbove = 5;

}  // namespace

absl::StatusOr<PlanEstimate> EstimateSweep(const SweepConfig& config, const std::string& out_dir, Store* store) {
  const Plan plan = PlanSweep(config);
  PlannedUnits planned(plan.units);
  CostModel model(config);
  std::set<std::string> committed;
  const CommittedVisitor learn = [&](JournalEntry entry) {
    model.Learn(entry.result, entry.calls);
    committed.insert(entry.result.unit.id);
  };
  RETURN_IF_ERROR(store != nullptr ? StoreCommitLog::Read(store, planned, learn)
                                   : ReadJournal(out_dir, planned, learn));
  return EstimatePlan(config, plan, model, committed);
}

SweepCoordinator::SweepCoordinator(const SweepConfig& config, CoordinatorOptions options)
    : options_(std::move(options)),
      plan_(PlanSweep(config)),
      simulated_(SimulatedModelIds(plan_.models, PlanHelperModels(plan_))),
      temperature_not_applied_(ModelsWithoutTemperature(config)),
      prices_(config.prices),
      sweep_name_(config.name),
      started_(clock_.Now()) {}

absl::StatusOr<std::unique_ptr<SweepCoordinator>> SweepCoordinator::Start(const SweepConfig& config,
                                                                          CoordinatorOptions options) {
  std::unique_ptr<SweepCoordinator> c(new SweepCoordinator(config, std::move(options)));
  const CoordinatorOptions& o = c->options_;

  // Committed units are found by id, whatever config committed them; the plan's units take their place.
  // The reducers keep what their numbers need of each and fetch the answers back from the log when the
  // results are written, so memory holds aggregates and an index, not the sweep's answers.
  if (o.store != nullptr) {
    ASSIGN_OR_RETURN(c->journal_, StoreCommitLog::Create(o.store, config.name));
  } else {
    ASSIGN_OR_RETURN(c->journal_, ResultJournal::Create(o.out_dir));
  }
  c->cost_model_ = std::make_unique<CostModel>(config);
  std::map<std::string, size_t> planned_units;  // by benchmark
  for (const UnitSpec& unit : c->plan_.units) ++planned_units[unit.benchmark];
  for (const auto& benchmark : c->plan_.benchmarks) {
    std::unique_ptr<BenchmarkReducer>& reducer = c->reducers_[benchmark->name()];
    reducer = benchmark->MakeReducer(c->plan_.models, c->journal_.get());
    reducer->Reserve(planned_units[benchmark->name()]);
  }
  SchedulerOptions scheduler_options = o.scheduler;
  if (BudgetPolicy::Wanted(config)) {
    c->budget_ = std::make_unique<BudgetPolicy>(config);
    scheduler_options.policy = c->budget_.get();
  }
  c->scheduler_ = std::make_unique<UnitScheduler>(&c->plan_.units, c->plan_.models, scheduler_options, &c->clock_);
  CoordinatorServiceOptions service_options;
  std::set<std::string> committed;
  PlannedUnits planned(c->plan_.units);
  RETURN_IF_ERROR(c->journal_->Load(planned, [&](JournalEntry entry) {
    c->cost_model_->Learn(entry.result, entry.calls);
    if (c->budget_ != nullptr) c->budget_->Committed(entry.result, entry.calls);
    const std::string id = entry.result.unit.id;
    const int64_t answers = static_cast<int64_t>(entry.result.answers.size());
    const int steps = entry.result.stop_reason == kStopError ? -1 : static_cast<int>(answers);  // for the lease order
    if (c->AddToReducer(std::move(entry.result), entry.calls)) {
      service_options.resumed_answers += answers;
      MergeCallStats(entry.calls, service_options.resumed_calls);
      c->scheduler_->MarkDone(id, /*failed=*/false, steps);
      committed.insert(id);
      ++c->units_resumed_;
    }
  }));
  c->plan_estimate_ = EstimatePlan(config, c->plan_, *c->cost_model_, committed);
  RETURN_IF_ERROR(c->RestoreLeases(config.name));

  service_options.prices = config.prices;
  service_options.token = o.token;
  service_options.sweep_name = config.name;
  service_options.heartbeat_interval = o.heartbeat_interval;
  service_options.lease_log = c->lease_log_.get();
  service_options.on_marked_done = [self = c.get()] {
    absl::MutexLock lock(&self->mu_);
    ++self->commits_;  // wakes Wait(), which then sees the unit done
  };
  service_options.on_lost_loop_ended = [self = c.get()](const std::string& unit_id) {
    absl::MutexLock lock(&self->mu_);
    self->DropCheckpointSoon(unit_id);
  };
  SweepCoordinator* self = c.get();
  c->core_ = std::make_unique<CoordinatorCore>(
      service_options, &c->plan_, c->scheduler_.get(),
      [self](std::vector<JournalEntry> units) { return self->Commit(std::move(units)); });
  if (!o.metrics_listen.empty()) c->rpc_timing_ = std::make_unique<RpcTiming>();
  c->service_ = std::make_unique<CoordinatorService>(c->core_.get(), c->rpc_timing_.get());
  if (!o.metrics_listen.empty()) {
    CoordinatorMetricsContext context{
        .sweep = config.name, .providers = ProvidersOf(config.endpoints), .prices = config.prices};
    auto collect = [self, context = std::move(context)] {
      return CoordinatorFamilies(context, self->scheduler_->Status(), self->core_->Commits());
    };
    ASSIGN_OR_RETURN(c->metrics_,
                     MetricsServer::Start(o.metrics_listen, {std::make_shared<CallbackCollectable>(std::move(collect)),
                                                             c->rpc_timing_->collectable()}));
  }

  absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> credentials = MakeServerCredentials(o.tls);
  if (!credentials.ok()) return credentials.status();
  grpc::EnableDefaultHealthCheckService(true);
  grpc::ServerBuilder builder;
  builder.AddListeningPort(o.listen, *credentials, &c->port_);
  builder.RegisterService(c->service_.get());
  builder.SetMaxReceiveMessageSize(kMaxMessageBytes);
  builder.SetMaxSendMessageSize(kMaxMessageBytes);
  // Keepalive: ping idle connections so a vanished worker's connection is noticed, and accept the
  // workers' own pings (they ping every 20 s).
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, kServerKeepaliveMs);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, kKeepaliveTimeoutMs);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS, kMinPingIntervalMs);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
  // gRPC's reactor threads start with the server. Started from a thread at a lower priority, they
  // yield to the committers (coordinator_service.h) when they contend for a core: every commit waits
  // for its group. At 50 workers x 512 loops on two cores the p99 of
  // every call halved with it (BENCHMARKS.md, issue 18 item 3).
  RunAtLowerPriority(kReactorNiceAbove, [&] { c->server_ = builder.BuildAndStart(); });
  if (c->server_ == nullptr || c->port_ == 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot listen on ", o.listen, " (address in use, or not an address of this machine?)"));
  }
  c->server_->GetHealthCheckService()->SetServingStatus(true);
  return c;
}

SweepCoordinator::~SweepCoordinator() {
  Shutdown();
  if (server_ != nullptr) server_->Shutdown(absl::ToChronoTime(absl::Now() + absl::Seconds(2)));
  DropCheckpoints();
}

absl::Status SweepCoordinator::RestoreLeases(const std::string& sweep) {
  if (options_.store != nullptr) {
    lease_log_ = std::make_unique<StoreLeaseLog>(options_.store, sweep);
  } else {
    ASSIGN_OR_RETURN(lease_log_, FileLeaseLog::Open(options_.out_dir));
  }
  // A log that cannot be read only costs the calls of the units it would have kept.
  absl::StatusOr<std::vector<LeaseRecord>> records = lease_log_->Load();
  if (!records.ok()) {
    std::fprintf(stderr,
                 "noveltygrid coordinator: cannot read the leases of a previous run (%s); their units run again\n",
                 std::string(records.status().message()).c_str());
    records = std::vector<LeaseRecord>();
  }
  std::vector<RestoredLease> leases;
  leases.reserve(records->size());
  for (LeaseRecord& r : *records) {
    leases.push_back({std::move(r.unit_id), std::move(r.lease_id), r.fencing_token, std::move(r.worker_id)});
  }
  std::vector<LeaseRecord> kept;
  for (RestoredLease& lease : scheduler_->Restore(leases)) {
    kept.push_back(
        {std::move(lease.unit_id), std::move(lease.lease_id), lease.fencing_token, std::move(lease.worker_id)});
  }
  units_restored_ = static_cast<int64_t>(kept.size());
  return lease_log_->Reset(kept);
}

absl::Status SweepCoordinator::Commit(std::vector<JournalEntry> units) {
  for (JournalEntry& unit : units) {
    UnitResult& result = unit.result;
    const Benchmark* benchmark = plan_.Find(result.unit.benchmark);
    if (benchmark == nullptr || result.stop_reason == kStopError) continue;
    // A finished result its benchmark cannot use is not journaled as done: it counts as failed, and a
    // re-run does it again.
    if (absl::Status usable = benchmark->CheckResult(result); !usable.ok()) {
      result.stop_reason = kStopError;
      result.error = absl::StrCat("malformed result from the worker: ", usable.message());
      unit.record.clear();
    }
  }
  const RpcTiming::Clock::time_point store_start = RpcTiming::Clock::now();
  const absl::Status journaled = Journal(units);
  if (rpc_timing_ != nullptr) RpcTiming::Answered(rpc_timing_->commit_store(), store_start);
  RETURN_IF_ERROR(journaled);
  for (JournalEntry& unit : units) Reduce(std::move(unit));
  return absl::OkStatus();
}

absl::Status SweepCoordinator::Journal(std::vector<JournalEntry>& units) {
  // Failed units are reported but not journaled: a re-run tries them again. The others are moved out
  // for AppendMany and back, so that the reducer still gets every unit in the call's order.
  std::vector<size_t> finished;
  std::vector<JournalEntry> appended;
  for (size_t i = 0; i < units.size(); ++i) {
    if (units[i].result.stop_reason == kStopError) continue;
    finished.push_back(i);
    appended.push_back(std::move(units[i]));
  }
  absl::StatusOr<std::vector<bool>> stored = journal_->AppendMany(appended);
  std::vector<UnitResult*> committed_before;
  for (size_t k = 0; k < finished.size(); ++k) {
    units[finished[k]] = std::move(appended[k]);
    if (stored.ok() && !(*stored)[k]) committed_before.push_back(&units[finished[k]].result);
  }
  RETURN_IF_ERROR(stored.status());
  // Units committed before (a lease that ran twice, or another sweep sharing the store): the stored
  // result is the one that counts, so the numbers and the rows fetched from the log agree.
  return TakeStored(committed_before);
}

void SweepCoordinator::Reduce(JournalEntry unit) {
  UnitResult& result = unit.result;
  const bool failed = result.stop_reason == kStopError;
  if (!failed && budget_ != nullptr) budget_->Committed(result, unit.calls);
  const std::string unit_id = result.unit.id;
  const int64_t answers = static_cast<int64_t>(result.answers.size());
  const std::string error = failed ? result.error : "";
  AddToReducer(std::move(result), unit.calls);
  if (options_.on_commit) options_.on_commit(answers, failed);
  absl::MutexLock lock(&mu_);
  DropCheckpointSoon(unit_id);  // the unit is committed; its checkpoint is no longer needed
  if (failed) {
    ++failed_;
    ++failure_reasons_[error];
  }
}

absl::Status SweepCoordinator::TakeStored(const std::vector<UnitResult*>& results) const {
  if (results.empty()) return absl::OkStatus();
  std::vector<std::string> ids;
  ids.reserve(results.size());
  for (const UnitResult* result : results) ids.push_back(result->unit.id);
  size_t next = 0;
  return journal_->ForEachUnit(ids, [&results, &next](UnitResult stored) {
    UnitResult& result = *results[next++];
    stored.unit = std::move(result.unit);
    result = std::move(stored);
    return absl::OkStatus();
  });
}

bool SweepCoordinator::AddToReducer(UnitResult result, const CallStats& calls) {
  auto reducer = reducers_.find(result.unit.benchmark);
  if (reducer == reducers_.end()) return false;  // not a benchmark of this plan (the service refuses those)
  const bool added = reducer->second->Add(std::move(result), calls);
  reduced_.fetch_add(1);  // a duplicate's calls are merged too
  return added;
}

void SweepCoordinator::Shutdown() {
  absl::MutexLock lock(&mu_);
  if (shutdown_) return;
  shutdown_ = true;
  if (server_ != nullptr) server_->GetHealthCheckService()->SetServingStatus(false);
}

absl::StatusOr<int> SweepCoordinator::Wait() {
  // Taking back overdue leases scans every lease held, so it runs at most every expiry_every() (here
  // or in a Lease call: ExpireIfDue) rather than after every commit: a cluster commits thousands of
  // units a second (bench/coordinator_load.sh). Checkpoints of committed units are deleted in batches.
  constexpr absl::Duration kDropEvery = absl::Milliseconds(100);
  absl::Time last_dropped = absl::InfinitePast();
  while (true) {
    int64_t seen;
    {
      absl::MutexLock lock(&mu_);
      seen = commits_;  // read before AllDone(): a unit marked done after this wakes the wait below
    }
    scheduler_->ExpireIfDue();
    if (const absl::Time now = clock_.Now(); now - last_dropped >= kDropEvery || now < last_dropped) {
      DropCheckpoints();
      last_dropped = now;
    }
    if (scheduler_->AllDone()) {
      DropCheckpoints();
      // No lease is left to give back to a worker.
      if (absl::Status cleared = lease_log_->Reset({}); !cleared.ok()) {
        std::fprintf(stderr, "noveltygrid coordinator: cannot clear the lease log: %s\n",
                     std::string(cleared.message()).c_str());
      }
      break;
    }
    if (scheduler_->Blocked()) {  // the budget is spent: what is committed is written below
      DropCheckpoints();
      RETURN_IF_ERROR(WriteResults());
      Linger();
      return absl::ResourceExhaustedError(BudgetMessage());
    }
    absl::MutexLock lock(&mu_);
    auto changed = [this, seen]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return shutdown_ || commits_ != seen; };
    // Wake on every unit marked done, and at least once a second to take back overdue leases.
    mu_.AwaitWithTimeout(absl::Condition(&changed), absl::Seconds(1));
    if (shutdown_) return absl::CancelledError("the coordinator was stopped before the sweep completed");
  }
  RETURN_IF_ERROR(WriteResults());
  Linger();
  absl::MutexLock lock(&mu_);
  return failed_;
}

void SweepCoordinator::DropCheckpointSoon(const std::string& unit_id) {
  if (options_.store != nullptr) stale_checkpoints_.push_back(keys::Checkpoint(unit_id));
}

void SweepCoordinator::DropCheckpoints() {
  std::vector<std::string> stale;
  {
    absl::MutexLock lock(&mu_);
    stale.swap(stale_checkpoints_);
  }
  // A failure here only costs memory: the checkpoints of committed units are never read again.
  if (options_.store != nullptr) options_.store->DeleteMany(stale).IgnoreError();
}

void SweepCoordinator::Linger() {
  // Keep answering until every live worker has been told that the sweep is complete (so they exit
  // cleanly), or the linger time is over, or Shutdown().
  const absl::Time until = clock_.Now() + options_.linger;
  while (clock_.Now() < until) {
    std::set<std::string> told = core_->WorkersToldComplete();
    bool all_told = true;
    for (const WorkerCounts& w : scheduler_->Status().workers) {
      if (told.count(w.worker_id) == 0) all_told = false;
    }
    if (all_told) break;
    absl::MutexLock lock(&mu_);
    auto stopped = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return shutdown_; };
    if (mu_.AwaitWithTimeout(absl::Condition(&stopped), absl::Milliseconds(100))) break;
  }
  DropCheckpoints();  // of lost loops that ended while it lingered
}

absl::Status SweepCoordinator::WriteResults() {
  const Json run{{"sweep", sweep_name_},
                 {"seconds", absl::ToDoubleSeconds(clock_.Now() - started_)},
                 {"units", plan_.units.size()},
                 {"units_resumed", units_resumed_}};
  for (auto& [name, reducer] : reducers_) reducer->SetRunInfo(run);
  const int64_t reduced = reduced_.load();  // before the snapshots: a later result makes the text stale
  const std::vector<std::unique_ptr<BenchmarkResults>> parts = Parts();
  ResultsOptions options = ResultsOptionsOf();
  options.rows_key = RowsKey();
  std::string leaderboard;
  RETURN_IF_ERROR(WriteSweepResults(options_.out_dir, PartsOf(parts), options, &leaderboard));
  absl::MutexLock lock(&mu_);
  written_leaderboard_.emplace(reduced, std::move(leaderboard));
  return absl::OkStatus();
}

namespace {

// This program's build, as far as its rows files go: a rebuilt binary writes them again.
std::string ProgramIdentity() {
  struct stat st;
  if (::stat("/proc/self/exe", &st) != 0) return "";
  return absl::StrCat(st.st_size, ":", st.st_mtim.tv_sec, ".", st.st_mtim.tv_nsec);
}

}  // namespace

std::string SweepCoordinator::RowsKey() const {
  // A finished sweep's rows are those of its committed units (the ids in plan order and what is stored
  // for each); a failed unit is not committed (the next run may end it differently), so its sweep is
  // not named.
  {
    absl::MutexLock lock(&mu_);
    if (failed_ != 0) return "";
  }
  const std::string program = ProgramIdentity();
  if (program.empty() || !scheduler_->AllDone()) return "";
  std::vector<std::string> ids;
  ids.reserve(plan_.units.size());
  for (const UnitSpec& unit : plan_.units) ids.push_back(unit.id);
  // What is stored for them, too: a journal deleted and run again, or another store, is other content
  // under the same ids.
  absl::StatusOr<uint64_t> stored = journal_->ContentDigest(ids);
  if (!stored.ok()) return "";
  StableHasher hasher;
  hasher.Add(program).Add(*stored);
  return HexId(hasher.Finish());
}

ResultsOptions SweepCoordinator::ResultsOptionsOf() const {
  ResultsOptions options;
  options.simulated_models = simulated_;
  options.temperature_not_applied = temperature_not_applied_;
  options.prices = prices_;
  options.correlate = options_.correlate;
  return options;
}

std::vector<std::unique_ptr<BenchmarkResults>> SweepCoordinator::Parts() const {
  std::vector<std::unique_ptr<BenchmarkResults>> parts;
  for (const auto& benchmark : plan_.benchmarks) parts.push_back(reducers_.at(benchmark->name())->Results());
  return parts;
}

}  // namespace noveltygrid

namespace noveltygrid {

std::vector<std::pair<std::string, int64_t>> SweepCoordinator::FailureReasons() const {
  std::vector<std::pair<std::string, int64_t>> reasons;
  {
    absl::MutexLock lock(&mu_);
    reasons.assign(failure_reasons_.begin(), failure_reasons_.end());
  }
  std::stable_sort(reasons.begin(), reasons.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  return reasons;
}

std::string SweepCoordinator::FailureSummary(size_t max_lines) const {
  const auto reasons = FailureReasons();
  std::string out;
  for (size_t i = 0; i < reasons.size() && i < max_lines; ++i) {
    absl::StrAppend(&out, "  ", reasons[i].second, " unit(s): ", reasons[i].first, "\n");
  }
  if (reasons.size() > max_lines) absl::StrAppend(&out, "  ... and ", reasons.size() - max_lines, " other error(s)\n");
  return out;
}

v1::StatusResponse SweepCoordinator::Status() const {
  v1::StatusResponse status;
  core_->Status(options_.token, v1::StatusRequest(), &status).IgnoreError();  // our own token: always OK
  return status;
}

std::string SweepCoordinator::BudgetMessage() const {
  const SchedulerStatus status = scheduler_->Status();
  std::string undone;
  for (const ModelCounts& m : status.models) {
    if (m.pending > 0) absl::StrAppend(&undone, undone.empty() ? "" : ", ", m.model, " ", m.pending);
  }
  return absl::StrCat("budget reached: ", budget_->Describe(), "; ", status.pending, " unit(s) left undone (", undone,
                      "); the results of the ", status.done,
                      " committed unit(s) are written. Raise budget_usd (or budgets:) and re-run to continue");
}

std::string SweepCoordinator::LeaderboardText() const {
  {
    absl::MutexLock lock(&mu_);
    if (written_leaderboard_.has_value() && written_leaderboard_->first == reduced_.load()) {
      return written_leaderboard_->second;
    }
  }
  const std::vector<std::unique_ptr<BenchmarkResults>> parts = Parts();
  return SweepLeaderboardText(PartsOf(parts), ResultsOptionsOf());
}

}  // namespace noveltygrid
