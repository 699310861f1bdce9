#include "coordinator/service/coordinator_core.h"

#include <cstdio>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "proto/security.h"
#include "proto/wire.h"

namespace noveltygrid {

CoordinatorCore::CoordinatorCore(CoordinatorServiceOptions options, const Plan* plan, UnitScheduler* scheduler,
                                 CommitBatchSink sink)
    : options_(std::move(options)), plan_(plan), scheduler_(scheduler), sink_(std::move(sink)) {
  answers_ = options_.resumed_answers;
  calls_ = options_.resumed_calls;
}

std::set<std::string> CoordinatorCore::WorkersToldComplete() const {
  absl::MutexLock lock(&mu_);
  return told_complete_;
}

absl::Status CoordinatorCore::Authorize(std::string_view token) const {
  if (TokenMatches(token, options_.token)) return absl::OkStatus();
  return absl::UnauthenticatedError("missing or wrong shared token (NOVELTYGRID_TOKEN / --token-file)");
}

absl::Status CoordinatorCore::Lease(std::string_view token, const v1::LeaseRequest& request,
                                    v1::LeaseResponse* response) {
  if (absl::Status authorized = Authorize(token); !authorized.ok()) return authorized;
  std::vector<LeaseGrant> grants = scheduler_->Lease(request.worker_id(), request.max_units());
  size_t bytes = 0;
  for (LeaseGrant& grant : grants) {
    // Checkpoints with embeddings can be large: keep the reply well under the message limit and give
    // back the leases that do not fit, for this or another worker's next Lease.
    if (response->leases_size() > 0 && bytes > kLeaseReplyBudgetBytes) {
      scheduler_->Release(grant.lease_id, grant.fencing_token);
      continue;
    }
    v1::Lease* lease = response->add_leases();
    lease->set_lease_id(grant.lease_id);
    lease->set_fencing_token(grant.fencing_token);
    lease->set_deadline_unix_ms(absl::ToUnixMillis(grant.deadline));
    ToProto(*grant.unit, lease->mutable_unit());
    // The scheduler hands out planned units only, and each planned unit's benchmark is in the plan.
    const Benchmark* benchmark = plan_->Find(grant.unit->benchmark);
    if (!request.shared_settings()) {
      benchmark->AttachSettings(*lease);
    } else if (SharedSettingsFor(*response, grant.unit->benchmark) == nullptr) {
      v1::Lease* settings = response->add_shared();  // once per benchmark: see LeaseResponse.shared
      settings->mutable_unit()->set_benchmark(grant.unit->benchmark);
      benchmark->AttachSettings(*settings);
      bytes += settings->ByteSizeLong();
    }
    for (const CheckpointStep& step : grant.checkpoint) {
      // Report kept only steps that parse (StepAnswerNum); should one still not, the checkpoint ends
      // there and the unit recomputes the rest, as after a lost report. So it does at a step that left
      // its embedding to the reporting worker's store, for a worker that would resume it without.
      v1::Step* resumed = lease->add_checkpoint();
      if (!resumed->ParseFromString(step.bytes) ||
          (resumed->embedding_in_store() && !request.knows_embedding_in_store())) {
        lease->mutable_checkpoint()->RemoveLast();
        break;
      }
    }
    bytes += lease->ByteSizeLong();
  }
  RecordLeases(request.worker_id(), *response);
  const bool complete = scheduler_->AllDone();
  response->set_sweep_complete(complete);
  if (complete) {
    absl::MutexLock lock(&mu_);
    told_complete_.insert(request.worker_id());
  }
  response->set_retry_after_ms(absl::ToInt64Milliseconds(options_.idle_retry));
  response->set_heartbeat_interval_ms(absl::ToInt64Milliseconds(options_.heartbeat_interval));
  return absl::OkStatus();
}

void CoordinatorCore::RecordLeases(const std::string& worker_id, const v1::LeaseResponse& response) {
  if (options_.lease_log == nullptr || response.leases_size() == 0) return;
  std::vector<LeaseRecord> records;
  records.reserve(response.leases_size());
  for (const v1::Lease& lease : response.leases()) {
    records.push_back(LeaseRecord{.unit_id = lease.unit().id(),
                                  .lease_id = lease.lease_id(),
                                  .fencing_token = lease.fencing_token(),
                                  .worker_id = worker_id});
  }
  const absl::Status recorded = options_.lease_log->Record(records);
  if (recorded.ok()) return;
  // The leases stay valid; only a restart before their commits would hand them out again.
  absl::MutexLock lock(&mu_);
  if (lease_log_errors_++ % 100 == 0) {
    std::fprintf(stderr, "noveltygrid coordinator: cannot record leases (%s); a restart now would run them again\n",
                 std::string(recorded.message()).c_str());
  }
}

absl::Status CoordinatorCore::Heartbeat(std::string_view token, const v1::HeartbeatRequest& request,
                                        v1::HeartbeatResponse* response) {
  if (absl::Status authorized = Authorize(token); !authorized.ok()) return authorized;
  if (request.leaving()) {
    scheduler_->Leave(request.worker_id());
    return absl::OkStatus();
  }
  std::vector<HeldLease> held;
  for (const v1::LeaseProgress& p : request.leases()) held.push_back({p.lease_id(), p.fencing_token()});
  WorkerInfo info{request.loops_in_flight(), request.capacity(), request.draining(), FromProto(request.calls())};
  for (std::string& lost : scheduler_->Heartbeat(request.worker_id(), held, info)) {
    response->add_lost_lease_ids(std::move(lost));
  }
  return absl::OkStatus();
}

absl::Status CoordinatorCore::Report(std::string_view token, const v1::ReportRequest& request,
                                     v1::ReportResponse* response) {
  if (absl::Status authorized = Authorize(token); !authorized.ok()) return authorized;  // before copying
  // The same wire form read the other way (in-process callers only: a gRPC Report arrives as bytes).
  v1::ReceivedReport received;
  if (!received.ParseFromString(request.SerializeAsString())) return absl::InternalError("a Report does not reparse");
  return Report(token, &received, response);
}

absl::Status CoordinatorCore::Report(std::string_view token, v1::ReceivedReport* request,
                                     v1::ReportResponse* response) {
  if (absl::Status authorized = Authorize(token); !authorized.ok()) return authorized;
  std::vector<LeaseReport> reports(request->leases_size());
  for (int i = 0; i < request->leases_size(); ++i) {
    v1::ReceivedLeaseSteps& lease = *request->mutable_leases(i);
    LeaseReport& report = reports[i];
    report.lease_id = std::move(*lease.mutable_lease_id());
    report.fencing_token = lease.fencing_token();
    report.steps.reserve(lease.steps_size());
    for (std::string& step : *lease.mutable_steps()) {
      // A step that does not parse is a gap (UnitScheduler::Report): it and the lease's later steps are
      // not kept, and the unit recomputes them if it is resumed. Refusing the Report would make the
      // worker send it again and again.
      const std::optional<int> answer_num = StepAnswerNum(step);
      if (!answer_num) break;
      report.steps.push_back({*answer_num, std::move(step)});
    }
  }
  for (size_t rejected : scheduler_->Report(&reports)) {
    response->add_rejected_lease_ids(std::move(reports[rejected].lease_id));
  }
  return absl::OkStatus();
}

absl::Status CoordinatorCore::Release(std::string_view token, const v1::ReleaseRequest& request, v1::ReleaseResponse*) {
  if (absl::Status authorized = Authorize(token); !authorized.ok()) return authorized;
  scheduler_->Release(request.lease_id(), request.fencing_token());
  if (!request.unit_id().empty()) LostLoopEnded(request.unit_id());
  return absl::OkStatus();
}

void CoordinatorCore::LostLoopEnded(const std::string& unit_id) {
  if (options_.on_lost_loop_ended && scheduler_->IsDone(unit_id)) options_.on_lost_loop_ended(unit_id);
}

absl::Status CoordinatorCore::Status(std::string_view token, const v1::StatusRequest&, v1::StatusResponse* response) {
  if (absl::Status authorized = Authorize(token); !authorized.ok()) return authorized;
  SchedulerStatus status = scheduler_->Status();
  response->set_sweep(options_.sweep_name);
  response->set_units_total(status.total);
  response->set_units_done(status.done);
  response->set_units_leased(status.leased);
  response->set_units_pending(status.pending);
  response->set_complete(status.done == status.total);
  {
    absl::MutexLock lock(&mu_);
    response->set_answers(answers_);
    response->set_answers_this_run(answers_this_run_);
    response->set_units_done_this_run(units_this_run_);
    int64_t prompt = 0, completion = 0;
    for (const auto& [key, counters] : calls_) {
      prompt += counters.prompt_tokens;
      completion += counters.completion_tokens;
    }
    response->set_prompt_tokens(prompt);
    response->set_completion_tokens(completion);
    response->set_priced(!options_.prices.empty());
    if (!options_.prices.empty()) response->set_cost_usd(PriceCalls(calls_, options_.prices).total);
  }
  response->set_run_ms(absl::ToInt64Milliseconds(absl::Now() - started_));
  int64_t failed = 0;
  for (const ModelCounts& m : status.models) {
    failed += m.failed;
    v1::ModelStatus* out = response->add_models();
    out->set_model(m.model);
    out->set_done(m.done);
    out->set_leased(m.leased);
    out->set_pending(m.pending);
    out->set_failed(m.failed);
  }
  CallWaits waits;
  for (const WorkerCounts& w : status.workers) {
    v1::WorkerStatus* out = response->add_workers();
    out->set_worker_id(w.worker_id);
    out->set_last_seen_ms_ago(absl::ToInt64Milliseconds(w.since_last_seen));
    out->set_leases(w.leases);
    out->set_loops_in_flight(w.info.loops_in_flight);
    out->set_capacity(w.info.capacity);
    out->set_draining(w.info.draining);
    ToProto(w.info.calls, out->mutable_calls());
    waits += w.info.calls;
  }
  response->set_units_failed(failed);
  ToProto(waits, response->mutable_calls());
  return absl::OkStatus();
}

CommitCall::CommitCall(std::string_view token, const v1::CompleteRequest& request, v1::CompleteResponse* response)
    : token_(token), units_{&request}, responses_{response} {}

CommitCall::CommitCall(std::string_view token, const v1::CompleteManyRequest& request,
                       v1::CompleteManyResponse* response)
    : token_(token), many_(response) {
  units_.reserve(request.units_size());
  for (const v1::CompleteRequest& unit : request.units()) units_.push_back(&unit);
}

void CommitCall::Open() {
  if (many_ == nullptr) return;
  responses_.reserve(units_.size());
  many_->mutable_outcomes()->Reserve(static_cast<int>(units_.size()));
  for (size_t i = 0; i < units_.size(); ++i) responses_.push_back(many_->add_outcomes()->mutable_response());
}

void CommitCall::Settle(size_t i, const absl::Status& committed) {
  if (many_ == nullptr) {
    status_ = committed;
    return;
  }
  v1::CompleteOutcome* outcome = many_->mutable_outcomes(static_cast<int>(i));
  outcome->set_code(static_cast<int>(committed.code()));
  outcome->set_message(std::string(committed.message()));
}

absl::Status CoordinatorCore::Complete(std::string_view token, const v1::CompleteRequest& request,
                                       v1::CompleteResponse* response) {
  CommitCall call(token, request, response);
  CommitCalls({&call});
  return call.status();
}

absl::Status CoordinatorCore::CompleteMany(std::string_view token, const v1::CompleteManyRequest& request,
                                           v1::CompleteManyResponse* response) {
  CommitCall call(token, request, response);
  CommitCalls({&call});
  return call.status();
}

void CoordinatorCore::CommitCalls(const std::vector<CommitCall*>& calls) {
  // Every authorized call's units, in call order, committed as one list: CommitLocked's rules for one
  // call (a repeated unit is a duplicate, a failed sink call stops the rest) then hold across calls.
  std::vector<CommitCall*> joined;
  std::vector<const v1::CompleteRequest*> units;
  std::vector<v1::CompleteResponse*> responses;
  for (CommitCall* call : calls) {
    call->status_ = Authorize(call->token_);
    if (!call->status_.ok()) continue;
    call->Open();
    joined.push_back(call);
    units.insert(units.end(), call->units_.begin(), call->units_.end());
    responses.insert(responses.end(), call->responses_.begin(), call->responses_.end());
  }
  if (units.empty()) return;
  std::vector<absl::Status> committed;
  {
    absl::MutexLock lock(&commit_mu_);
    committed = CommitLocked(units, responses);
  }
  bool marked = false;
  size_t next = 0;
  for (CommitCall* call : joined) {
    for (size_t i = 0; i < call->units_.size(); ++i, ++next) {
      call->Settle(i, committed[next]);
      marked = marked || MarkedDone(committed[next], *call->responses_[i]);
    }
  }
  if (marked) NotifyMarkedDone();
}

bool CoordinatorCore::MarkedDone(const absl::Status& committed, const v1::CompleteResponse& response) {
  return committed.ok() && response.accepted() && !response.duplicate();
}

void CoordinatorCore::NotifyMarkedDone() const {
  if (options_.on_marked_done) options_.on_marked_done();
}

std::vector<absl::Status> CoordinatorCore::CommitLocked(const std::vector<const v1::CompleteRequest*>& units,
                                                        const std::vector<v1::CompleteResponse*>& responses) {
  std::vector<absl::Status> statuses(units.size());
  std::vector<size_t> batch;                      // accepted, not persisted yet
  absl::flat_hash_set<std::string_view> batched;  // their unit ids
  absl::Status persisted;                         // of the last batch
  const auto persist = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(commit_mu_) {
    if (batch.empty()) return;
    persisted = PersistLocked(units, batch, responses);
    for (size_t i : batch) statuses[i] = persisted;
    batch.clear();
    batched.clear();
  };
  for (size_t i = 0; i < units.size(); ++i) {
    // The same unit twice (in one call or in two committed together): the first is persisted and
    // marked done before the second is checked, which then is a duplicate, as if it had come later.
    // The same goes for a unit another group is persisting (the commit lock is released for its sink
    // call): it is checked once that group has marked it done, or failed to persist it. The units
    // accepted so far are persisted before that wait: it releases the lock, and they are neither done
    // nor being persisted, so another group would accept them too.
    const std::string& id = units[i]->unit_id();
    if (batched.contains(id) || persisting_.contains(id)) persist();
    if (persisting_.contains(id)) {
      Count(&CommitCounts::waited);
      const auto settled = [this, &id]()
                               ABSL_EXCLUSIVE_LOCKS_REQUIRED(commit_mu_) { return !persisting_.contains(id); };
      commit_mu_.Await(absl::Condition(&settled));
    }
    // Stale, unknown and duplicate units are answered from memory whatever the store does.
    if (std::optional<absl::Status> answered = CheckLocked(*units[i], responses[i])) {
      statuses[i] = *std::move(answered);
      continue;
    }
    if (!persisted.ok()) {
      // The store is failing: the rest are not tried (each try could wait out the store's timeout,
      // holding every other commit) and the worker sends them again.
      statuses[i] = absl::UnavailableError("not tried: a unit committed before it could not be persisted");
      continue;
    }
    batch.push_back(i);
    batched.insert(id);
  }
  persist();
  return statuses;
}

std::optional<absl::Status> CoordinatorCore::CheckLocked(const v1::CompleteRequest& request,
                                                         v1::CompleteResponse* response) {
  switch (scheduler_->CheckCommit(request.lease_id(), request.fencing_token(), request.unit_id())) {
    case CommitCheck::kDuplicate:
      Count(&CommitCounts::duplicates);
      LostLoopEnded(request.unit_id());  // a loop of the done unit (its lost lease's, or again) has ended
      response->set_accepted(true);
      response->set_duplicate(true);
      return absl::OkStatus();
    case CommitCheck::kStaleToken:
      Count(&CommitCounts::stale_tokens);
      response->set_accepted(false);
      return absl::OkStatus();
    case CommitCheck::kUnknown:
      Count(&CommitCounts::unknown_units);
      return absl::NotFoundError(absl::StrCat("no lease ", request.lease_id(), " for unit ", request.unit_id()));
    case CommitCheck::kAccepted:
      break;
  }
  return std::nullopt;
}

absl::Status CoordinatorCore::PersistLocked(const std::vector<const v1::CompleteRequest*>& units,
                                            const std::vector<size_t>& batch,
                                            const std::vector<v1::CompleteResponse*>& responses) {
  std::vector<JournalEntry> entries;
  entries.reserve(batch.size());
  CallStats calls;  // of the whole batch, counted once it is persisted
  for (size_t i : batch) {
    const v1::CompleteRequest& request = *units[i];
    // CheckLocked accepted it, so the unit is planned.
    UnitResult result = ResultFromProto(request, *scheduler_->UnitById(request.unit_id()));
    // A failed unit is not journaled (a re-run tries it again): no record for it.
    std::string record = result.stop_reason == kStopError ? std::string() : CommittedUnitBytes(request);
    entries.push_back({std::move(result), FromProto(request.calls()), std::move(record)});
    MergeCallStats(entries.back().calls, calls);
  }
  // The sink call (a journal fdatasync or a Redis round trip) runs without the commit lock, so that
  // another group is checked and persisted meanwhile; its units are marked as being persisted until
  // they are done (or stay leased), for the other groups to wait on.
  for (size_t i : batch) persisting_.insert(units[i]->unit_id());
  commit_mu_.Unlock();
  const absl::Status persisted = sink_(std::move(entries));
  commit_mu_.Lock();
  if (persisted.ok()) FinishLocked(units, batch, calls, responses);
  for (size_t i : batch) persisting_.erase(units[i]->unit_id());
  if (!persisted.ok()) {
    // The units stay leased; the worker retries the commit or the leases expire and they run again.
    absl::MutexLock lock(&mu_);
    commits_.unpersisted += static_cast<int64_t>(batch.size());
    return absl::UnavailableError(absl::StrCat("cannot persist the result: ", persisted.message()));
  }
  return absl::OkStatus();
}

void CoordinatorCore::FinishLocked(const std::vector<const v1::CompleteRequest*>& units,
                                   const std::vector<size_t>& batch, const CallStats& calls,
                                   const std::vector<v1::CompleteResponse*>& responses) {
  {
    absl::MutexLock lock(&mu_);
    for (size_t i : batch) {
      answers_ += units[i]->answers_size();
      answers_this_run_ += units[i]->answers_size();
    }
    units_this_run_ += static_cast<int64_t>(batch.size());
    commits_.accepted += static_cast<int64_t>(batch.size());
    MergeCallStats(calls, calls_);
  }
  for (size_t i : batch) {
    const v1::CompleteRequest& request = *units[i];
    scheduler_->MarkDone(request.unit_id(), request.stop_reason() == kStopError, request.answers_size());
    responses[i]->set_accepted(true);
  }
}

CommitCounts CoordinatorCore::Commits() const {
  absl::MutexLock lock(&mu_);
  CommitCounts counts = commits_;
  counts.calls = calls_;
  return counts;
}

void CoordinatorCore::Count(int64_t CommitCounts::*counter) {
  absl::MutexLock lock(&mu_);
  ++(commits_.*counter);
}

}  // namespace noveltygrid
