#include "worker/lease_loop.h"

#include <unistd.h>

#include <cstdio>
#include <random>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/provider_config.h"
#include "proto/limits.h"
#include "proto/wire.h"

namespace noveltygrid {

namespace {

void Print(const std::string& message) { std::fprintf(stderr, "noveltygrid worker: %s\n", message.c_str()); }
}  // namespace

void LeaseLoop::Log(const std::string& message) const {
  if (options_.log) Print(message);
}

std::string DefaultWorkerId() {
  char host[256] = {0};
  if (::gethostname(host, sizeof(host) - 1) != 0) std::snprintf(host, sizeof(host), "worker");
  return absl::StrCat(host, "-", ::getpid());
}

LeaseLoop::LeaseLoop(WorkerOptions options, CoordinatorClient* client, UnitRunner* runner, CheckpointStore* checkpoints,
                     const Clock* clock)
    : options_(std::move(options)),
      client_(client),
      runner_(runner),
      checkpoints_(checkpoints),
      clock_(clock != nullptr ? clock : &system_clock_) {}

LeaseLoop::~LeaseLoop() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  if (heartbeat_thread_.joinable()) heartbeat_thread_.join();
  if (sender_thread_.joinable()) sender_thread_.join();
}

LeaseLoop::Stats LeaseLoop::stats() const {
  absl::MutexLock lock(&mu_);
  Stats stats = stats_;
  stats.running = running_;
  stats.draining = draining_;
  return stats;
}

void LeaseLoop::Drain() {
  absl::MutexLock lock(&mu_);
  draining_ = true;
}

absl::Time LeaseLoop::Deadline() const {
  const absl::Time cap = absl::FromUnixNanos(rpc_deadline_cap_.load(std::memory_order_relaxed));
  return std::min(clock_->Now() + options_.rpc_timeout, cap);
}

absl::Duration LeaseLoop::Backoff(int failures) const {
  // 100 ms doubling up to max_backoff, with full jitter in [50%, 100%].
  absl::Duration base = absl::Milliseconds(100) * (1 << std::min(failures, 10));
  if (base > options_.max_backoff) base = options_.max_backoff;
  static thread_local std::mt19937_64 rng(std::random_device{}());
  const double jitter = 0.5 + 0.5 * std::uniform_real_distribution<double>(0, 1)(rng);
  return base * jitter;
}

void LeaseLoop::Pause(absl::Duration d, bool wake_on_drain, std::optional<int64_t> committed, bool wake_when_idle) {
  absl::MutexLock lock(&mu_);
  auto woken = [this, wake_on_drain, committed, wake_when_idle]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return stopping_ || (wake_on_drain && (draining_ || !fatal_.ok())) ||
           (committed && stats_.units_committed != *committed) || (wake_when_idle && running_ == 0);
  };
  clock_->AwaitWithDeadline(mu_, absl::Condition(&woken), clock_->Now() + d);
}

absl::Status LeaseLoop::Run() {
  heartbeat_thread_ = std::thread([this] { HeartbeatLoop(); });
  sender_thread_ = std::thread([this] { SendLoop(); });

  int failures = 0;
  bool complete = false;
  while (true) {
    int free;
    int64_t committed;  // before asking: a commit acknowledged after the answer ends an idle wait
    {
      absl::MutexLock lock(&mu_);
      auto can_lease = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return draining_ || !fatal_.ok() || running_ < options_.concurrency;
      };
      mu_.Await(absl::Condition(&can_lease));
      if (draining_ || !fatal_.ok()) break;
      free = options_.concurrency - running_;
      committed = stats_.units_committed;
    }
    v1::LeaseRequest request;
    request.set_worker_id(options_.worker_id);
    request.set_max_units(free);
    request.set_shared_settings(true);           // the settings once per benchmark, not on every lease
    request.set_knows_embedding_in_store(true);  // StartUnit below
    v1::LeaseResponse response;
    absl::Status status = client_->Lease(request, &response, Deadline());
    if (!status.ok()) {
      if (absl::IsUnauthenticated(status) || absl::IsPermissionDenied(status)) {
        absl::MutexLock lock(&mu_);
        fatal_ = absl::UnauthenticatedError(
            absl::StrCat("the coordinator at ", options_.coordinator, " refused this worker: ", status.message()));
        break;
      }
      ++failures;
      const absl::Duration wait = Backoff(failures);
      if (failures == 1 || failures % 20 == 0) {
        Log(absl::StrCat("coordinator ", options_.coordinator, " unreachable (", status.message(), "); retrying in ",
                         absl::FormatDuration(wait)));
      }
      Pause(wait, /*wake_on_drain=*/true);
      continue;
    }
    if (failures > 0) Log(absl::StrCat("connected to ", options_.coordinator));
    failures = 0;
    if (response.heartbeat_interval_ms() > 0) {
      absl::MutexLock lock(&mu_);
      const absl::Duration interval = absl::Milliseconds(response.heartbeat_interval_ms());
      // The coordinator's interval applies at once: wake the heartbeat thread to beat now.
      if (interval != heartbeat_interval_) beat_now_ = true;
      heartbeat_interval_ = interval;
    }
    TakeSharedSettings(&response);
    for (const v1::Lease& lease : response.leases()) StartUnit(lease);
    bool pause;
    {
      absl::MutexLock lock(&mu_);
      pause = lease_pause_;
      lease_pause_ = false;
    }
    if (pause) Pause(absl::Seconds(2), /*wake_on_drain=*/true);
    if (response.leases_size() == 0) {
      if (response.sweep_complete() && options_.exit_when_complete) {
        complete = true;
        break;
      }
      // Nothing to lease now. Ask again after the coordinator's interval, or as soon as one of this
      // worker's units is committed: the last commit completes the sweep, and the worker that made
      // it then learns so at once instead of an interval later.
      Pause(absl::Milliseconds(std::max<int64_t>(50, response.retry_after_ms())), /*wake_on_drain=*/true, committed);
    }
  }

  // Finish: let running units end (within the grace period when draining), hand back the rest, and
  // wait until every outgoing message is sent.
  const absl::Time grace_end = clock_->Now() + options_.drain_grace;
  bool still_running;
  {
    absl::MutexLock lock(&mu_);
    if (draining_ && fatal_.ok()) {
      Log(absl::StrCat("draining: ", running_, " unit(s) running, grace ", absl::FormatDuration(options_.drain_grace)));
      auto idle = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return running_ == 0; };
      clock_->AwaitWithDeadline(mu_, absl::Condition(&idle), grace_end);
    }
    for (auto& [lease_id, a] : active_) {
      if (!a.running || a.lost) continue;
      a.lost = true;  // the loop stops at its next step
      outgoing_.releases.push_back(MakeRelease(lease_id, a.token, fatal_.ok() ? "worker draining" : "worker stopping"));
    }
    still_running = running_ > 0;  // handed back now, or taken back earlier by the coordinator
  }
  // Their replies are no longer wanted: end their calls now (callbacks still run, with Cancelled).
  if (still_running && options_.abort_calls) options_.abort_calls();

  absl::ReleasableMutexLock lock(&mu_);
  auto settled = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return running_ == 0 && active_.empty() && outgoing_.empty() && sending_ == 0;
  };
  // Commits are retried while the coordinator is away; give up after a while so the process ends
  // (the leases then expire on the coordinator and the units run again elsewhere). With
  // abandon_after, units still running (their calls stuck behind a provider limit) stop the wait
  // sooner: they were handed back, and the caller ends the process without them.
  const absl::Time now = clock_->Now();
  absl::Time settle_end = std::max(grace_end, now) + absl::Seconds(10);
  if (still_running) settle_end = std::min(settle_end, now + options_.abandon_after);
  if (!clock_->AwaitWithDeadline(mu_, absl::Condition(&settled), settle_end) && running_ == 0) {
    Log("some results could not be delivered; the coordinator will hand those units out again");
  }
  // No callback may outlive this object -- unless the caller ends the process instead (abandon_after).
  auto idle = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return running_ == 0; };
  if (options_.abandon_after == absl::InfiniteDuration()) {
    mu_.Await(absl::Condition(&idle));
  } else if (running_ > 0) {
    abandoned_ = running_;
    Log(absl::StrCat(running_, " unit(s) still wait for a provider (e.g. a rate limit); exiting without them"));
  }
  stopping_ = true;
  // An RPC still in flight (the coordinator may hang) holds the joins below for at most a second.
  rpc_deadline_cap_.store(absl::ToUnixNanos(clock_->Now() + absl::Seconds(1)), std::memory_order_relaxed);
  if (complete) Log(absl::StrCat("sweep complete; committed ", stats_.units_committed, " unit(s)"));
  const absl::Status result = fatal_;
  lock.Release();
  // The heartbeat and sender threads end on stopping_ (within one RPC); then nothing of this worker
  // can reach the coordinator after its goodbye.
  if (heartbeat_thread_.joinable()) heartbeat_thread_.join();
  if (sender_thread_.joinable()) sender_thread_.join();
  // Say goodbye, so that the coordinator neither waits for this worker nor keeps its leases until the
  // worker timeout. Best effort: without it the timeout does the same, later.
  v1::HeartbeatRequest leaving;
  leaving.set_worker_id(options_.worker_id);
  leaving.set_leaving(true);
  v1::HeartbeatResponse ignored;
  client_->Heartbeat(leaving, &ignored, clock_->Now() + std::min(options_.rpc_timeout, absl::Seconds(2))).IgnoreError();
  return result;
}

void LeaseLoop::TakeBack(const std::string& lease_id) {
  auto it = active_.find(lease_id);
  if (it != active_.end()) it->second.lost = it->second.taken_back = true;
}

v1::ReleaseRequest LeaseLoop::MakeRelease(const std::string& lease_id, uint64_t token, std::string reason,
                                          const std::string& unit_id) const {
  v1::ReleaseRequest release;
  release.set_worker_id(options_.worker_id);
  release.set_lease_id(lease_id);
  release.set_fencing_token(token);
  release.set_reason(std::move(reason));
  release.set_unit_id(unit_id);
  return release;
}

void LeaseLoop::StartUnit(const v1::Lease& lease) {
  const std::string lease_id = lease.lease_id();
  // The lease's checkpoint as far as it is whole: a step whose embedding was left to the reporting
  // worker's store ends it (an older coordinator sends such steps to every worker).
  UnitCheckpoint checkpoint;
  bool leased_whole = true;
  for (const v1::Step& a : lease.checkpoint()) {
    if (a.embedding_in_store()) {
      leased_whole = false;
      break;
    }
    checkpoint.answers.push_back(FromProto(a));
    checkpoint.embeddings.push_back(EmbeddingFromProto(a));
  }
  // One history, whole: the store's list when it is longer (it may be ahead of the coordinator, whose
  // reports are asynchronous, or hold what the lease's steps left to it), or as long as a lease's
  // checkpoint that was cut short, and then the loop goes on writing it; otherwise the lease's, and the
  // loop leaves a list it did not resume from alone (CheckpointStore::CatchUp). Not on a tie with a
  // whole one: the coordinator would take this loop's next step after those steps, which may be of
  // another history than the list's.
  size_t stored_own = 0;
  if (checkpoints_ != nullptr) {
    UnitCheckpoint stored = checkpoints_->Load(lease.unit().id());
    if (!stored.answers.empty() && (stored.answers.size() > checkpoint.answers.size() ||
                                    (!leased_whole && stored.answers.size() == checkpoint.answers.size()))) {
      stored_own = stored.answers.size();
      checkpoint = std::move(stored);
    }
  }
  absl::ReleasableMutexLock lock(&mu_);
  if (!fatal_.ok()) {  // leased while this worker was stopping
    outgoing_.releases.push_back(MakeRelease(lease_id, lease.fencing_token(), "worker stopping"));
    return;
  }
  Active& a = active_[lease_id];
  a.lease_id = lease_id;
  a.token = lease.fencing_token();
  a.unit_id = lease.unit().id();
  a.steps_done = static_cast<int>(checkpoint.answers.size());
  a.stored_own = stored_own;
  a.last_step = clock_->Now();
  ++running_;
  ++stats_.units_started;
  // The runner may finish the unit before it returns (a checkpoint that already ends the loop), calling
  // OnDone on this thread: it must run without mu_ held.
  lock.Release();
  if (options_.observer != nullptr) options_.observer->Leased(lease);
  auto on_step = [this, lease_id](const StepEvent& step) { return OnStep(lease_id, step); };
  auto on_done = [this, lease_id](UnitResult result, CallStats calls) {
    OnDone(lease_id, std::move(result), std::move(calls));
  };
  absl::Status started = runner_->Start(lease, std::move(checkpoint), std::move(on_step), std::move(on_done),
                                        [this, lease_id] { return StillLeased(lease_id); });
  if (!started.ok()) {
    // This worker cannot run the unit (e.g. a model it cannot build): hand it back for another worker,
    // and lease less eagerly for a while so that it does not spin on units it cannot run.
    absl::MutexLock relock(&mu_);
    if (start_errors_.insert(std::string(started.message())).second) {
      Log(absl::StrCat("cannot run unit ", lease.unit().id(), ": ", started.message(), "; handing such units back"));
    }
    lease_pause_ = true;
    --running_;
    active_.erase(lease_id);
    outgoing_.releases.push_back(MakeRelease(lease_id, lease.fencing_token(), std::string(started.message())));
  }
}

bool LeaseLoop::Stopping() const {
  absl::MutexLock lock(&mu_);
  return stopping_;
}

bool LeaseLoop::StillLeased(const std::string& lease_id) const {
  absl::MutexLock lock(&mu_);
  auto it = active_.find(lease_id);
  return it != active_.end() && !it->second.lost;
}

bool LeaseLoop::OnStep(const std::string& lease_id, const StepEvent& step) {
  ObserveCalls(lease_id, step.calls, /*ended=*/false);
  std::string unit_id;
  size_t stored_own = 0;
  {
    absl::MutexLock lock(&mu_);
    auto it = active_.find(lease_id);
    if (it == active_.end() || it->second.lost) return false;
    unit_id = it->second.unit_id;
    stored_own = it->second.stored_own;
  }
  // A step that recorded an error ends the unit; it is not a checkpoint to resume from (a retry must
  // call the judge again), so it is neither persisted nor reported.
  if (!step.answer().error.empty()) return true;
  // Persisted before the next iteration starts: a crash loses at most the iteration in flight. What
  // the store holds, a resuming worker reads from it: the report then leaves the embedding out.
  const bool stored =
      checkpoints_ != nullptr && checkpoints_->CatchUp(unit_id, step.steps, step.embeddings, &stored_own);
  absl::MutexLock lock(&mu_);
  auto it = active_.find(lease_id);
  if (it == active_.end() || it->second.lost) return false;
  ++it->second.steps_done;
  it->second.stored_own = stored_own;
  it->second.last_step = clock_->Now();
  it->second.stall_logged = false;
  v1::Step& reported = outgoing_.steps[lease_id].emplace_back();
  const bool leave_out = stored && !step.embedding().empty();
  ToProto(step.answer(), leave_out ? nullptr : &step.embedding(), &reported);
  if (leave_out) reported.set_embedding_in_store(true);
  return true;
}

void LeaseLoop::OnDone(const std::string& lease_id, UnitResult result, CallStats calls) {
  // The unit failed on this worker's credentials (not on something of its own) when its error is the
  // one a provider latched.
  std::optional<absl::Status> refused_key;
  if (result.stop_reason == kStopError && options_.credential_error) {
    refused_key = options_.credential_error();
    if (refused_key.has_value() && !absl::StrContains(result.error, refused_key->message())) refused_key.reset();
  }
  ObserveCalls(lease_id, calls, /*ended=*/true);
  absl::MutexLock lock(&mu_);
  --running_;
  auto it = active_.find(lease_id);
  outgoing_.steps.erase(lease_id);  // the commit carries every answer
  if (it == active_.end()) return;
  if (result.stop_reason == kStopCancelled || it->second.lost) {
    // Until it was told, the loop of a lease the coordinator took back kept writing the unit's
    // checkpoint, which the unit's commit elsewhere may have deleted already: now that it has ended,
    // the coordinator may delete it for good.
    if (it->second.taken_back) {
      outgoing_.releases.push_back(
          MakeRelease(lease_id, it->second.token, "the loop of a lost lease ended", it->second.unit_id));
    }
    active_.erase(it);
    return;
  }
  if (refused_key.has_value()) {
    if (fatal_.ok()) {
      fatal_ = absl::FailedPreconditionError(absl::StrCat(
          refused_key->message(),
          "; this worker stops and hands its units back (fix its key or certificates and start it again)"));
    }
    outgoing_.releases.push_back(
        MakeRelease(lease_id, it->second.token, "a provider refused this worker's credentials"));
    active_.erase(it);
    return;
  }
  it->second.running = false;
  v1::CompleteRequest complete;
  complete.set_worker_id(options_.worker_id);
  complete.set_lease_id(lease_id);
  complete.set_fencing_token(it->second.token);
  ToProto(result, &complete);
  ToProto(calls, complete.mutable_calls());
  outgoing_.completes.push_back(std::move(complete));
}

void LeaseLoop::HeartbeatLoop() {
  while (true) {
    v1::HeartbeatRequest request;
    absl::Duration interval;
    {
      absl::MutexLock lock(&mu_);
      interval = heartbeat_interval_;
      auto woken = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stopping_ || beat_now_; };
      clock_->AwaitWithDeadline(mu_, absl::Condition(&woken), clock_->Now() + interval);
      if (stopping_) return;
      beat_now_ = false;
      request.set_worker_id(options_.worker_id);
      for (const auto& [lease_id, a] : active_) {
        if (a.lost) continue;
        v1::LeaseProgress* p = request.add_leases();
        p->set_lease_id(lease_id);
        p->set_fencing_token(a.token);
        p->set_steps_done(a.steps_done);
      }
      request.set_loops_in_flight(running_);
      request.set_capacity(options_.concurrency);
      request.set_draining(draining_);
    }
    CallWaits waits = options_.call_waits ? options_.call_waits() : CallWaits();
    {
      absl::MutexLock lock(&mu_);
      CheckStalls(waits);
    }
    ToProto(waits, request.mutable_calls());
    v1::HeartbeatResponse response;
    absl::Status status = client_->Heartbeat(request, &response, Deadline());
    absl::MutexLock lock(&mu_);
    NoteHeartbeat(status.ok());
    if (!status.ok()) continue;  // the lease loop reports unreachability; units run on (NoteHeartbeat)
    for (const std::string& lost : response.lost_lease_ids()) {
      TakeBack(lost);
    }
  }
}

}  // namespace noveltygrid
