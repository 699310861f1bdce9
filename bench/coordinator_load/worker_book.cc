#include "bench/coordinator_load/worker_book.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "bench/coordinator_load/report_wire.h"
#include "common/embedding.h"
#include "common/hashing.h"
#include "common/records.h"
#include "proto/report_batches.h"
#include "proto/wire.h"

namespace noveltygrid::load {

namespace {

constexpr const char* kWords[] = {"river",  "lantern", "market",  "orbit",   "harvest", "signal",  "bridge",
                                  "quartz", "meadow",  "ledger",  "compass", "furnace", "archive", "canopy",
                                  "tide",   "engine",  "mosaic",  "pilgrim", "thicket", "beacon",  "granary",
                                  "saddle", "vessel",  "horizon", "cipher",  "orchard", "kiln",    "glacier"};

// With rounds back to back (round_interval zero), steps are made this often.
constexpr absl::Duration kMinTick = absl::Milliseconds(10);

absl::Duration RoundTick(const FakeWorkerOptions& options) {
  return options.round_interval > absl::ZeroDuration() ? options.round_interval : kMinTick;
}

// A unit's step count: iterations-2 .. iterations+2, by its id's hash.
int TargetSteps(uint64_t unit_hash, int iterations) {
  return std::max(1, iterations - 2 + static_cast<int>(unit_hash % 5));
}

}  // namespace

StepPool::StepPool(int size, int answer_bytes, int embedding_dim, uint64_t seed, bool embedding_in_store) {
  uint64_t state = seed;
  for (int i = 0; i < size; ++i) {
    std::string text;
    while (static_cast<int>(text.size()) < answer_bytes) {
      state = Mix64(state);
      absl::StrAppend(&text, text.empty() ? "" : " ", kWords[state % std::size(kWords)]);
    }
    answers_.push_back(std::move(text));
    Embedding e(embedding_dim);
    double norm = 0;
    for (float& x : e) {
      state = Mix64(state);
      x = static_cast<float>(static_cast<double>(state >> 11) / 9007199254740992.0 - 0.5);
      norm += x * x;
    }
    for (float& x : e) x = static_cast<float>(x / std::sqrt(norm));
    v1::Step fixed;
    fixed.set_answer(answers_.back());
    fixed.set_coherence(Coherence(answers_.size() - 1));
    fixed.set_valid(true);
    if (embedding_in_store) {
      fixed.set_embedding_in_store(true);
    } else {
      fixed.mutable_embedding()->Add(e.begin(), e.end());
    }
    fixed_steps_.push_back(fixed.SerializeAsString());
  }
}

const std::string& StepPool::Result(uint64_t unit_hash, int steps) const {
  const std::pair<size_t, int> shape{unit_hash % answers_.size(), steps};
  absl::MutexLock lock(&mu_);
  auto [it, added] = results_.try_emplace(shape);
  if (added) it->second = BuildResult(shape.first, steps);
  return it->second;  // node-based and never erased: stays where it is, read outside the lock
}

std::string StepPool::BuildResult(size_t first, int steps) const {
  v1::CompleteRequest result;
  CallStats calls;
  for (int n = 1; n <= steps; ++n) {
    const size_t pick = (first + n) % answers_.size();
    const bool last = n == steps;
    StepRecord answer;
    answer.answer_num = n;
    answer.answer = answers_[pick];
    answer.coherence = Coherence(pick);
    answer.novelty = last ? 0.05 : 1.0 / n;
    answer.valid = !last;
    ToProto(answer, nullptr, result.add_answers());
    CallCounters& generate = calls["generate:sim:load"];
    ++generate.requests;
    generate.prompt_tokens += 60 + 80 * n;  // the prompt lists every earlier answer
    generate.completion_tokens += 80;
    CallCounters& judge = calls["judge:sim:judge"];
    ++judge.requests;
    judge.prompt_tokens += 200;
    judge.completion_tokens += 20;
    ++calls["embed:lexical"].requests;
  }
  ToProto(calls, result.mutable_calls());
  return result.SerializeAsString();
}

WorkerBook::WorkerBook(FakeWorkerOptions options, const StepPool* pool)
    : options_(std::move(options)), pool_(pool), round_tick_(RoundTick(options_)) {}

void WorkerBook::Stop() {
  absl::MutexLock lock(&mu_);
  stopping_ = true;
}

bool WorkerBook::Stopping() const {
  absl::MutexLock lock(&mu_);
  return stopping_;
}

bool WorkerBook::Pause(absl::Duration d) const {
  absl::MutexLock lock(&mu_);
  auto stopping = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stopping_; };
  return !mu_.AwaitWithTimeout(absl::Condition(&stopping), d);
}

int WorkerBook::AwaitFreeSlots() const {
  absl::MutexLock lock(&mu_);
  auto can_lease = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return stopping_ || static_cast<int>(loops_.size()) < options_.loops;
  };
  mu_.Await(absl::Condition(&can_lease));
  return stopping_ ? 0 : options_.loops - static_cast<int>(loops_.size());
}

int WorkerBook::FreeSlots() const {
  absl::MutexLock lock(&mu_);
  return stopping_ ? 0 : options_.loops - static_cast<int>(loops_.size());
}

absl::Duration WorkerBook::heartbeat_interval() const {
  absl::MutexLock lock(&mu_);
  return heartbeat_interval_;
}

v1::LeaseRequest WorkerBook::LeaseRequest(int free) const {
  v1::LeaseRequest request;
  request.set_worker_id(options_.worker_id);
  request.set_max_units(free);
  request.set_shared_settings(true);  // as noveltygrid worker asks: settings once per response
  request.set_knows_embedding_in_store(true);
  return request;
}

absl::Duration WorkerBook::LeaseAnswered(const absl::Status& status, const v1::LeaseResponse& response, int asked,
                                         absl::Time now) {
  if (!status.ok()) return kRetryPause;
  absl::MutexLock lock(&mu_);
  if (response.heartbeat_interval_ms() > 0) heartbeat_interval_ = absl::Milliseconds(response.heartbeat_interval_ms());
  if (response.leases_size() < asked) ++counters_.short_leases;
  if (response.leases_size() == 0) {
    if (response.sweep_complete()) return absl::InfiniteDuration();
    return absl::Milliseconds(std::max<int64_t>(50, response.retry_after_ms()));
  }
  const v1::Lease* shared = SharedSettingsFor(response, kAidanBench);  // the plan is AidanBench's alone
  for (const v1::Lease& lease : response.leases()) {
    const uint64_t number = next_loop_++;
    loop_of_lease_[lease.lease_id()] = number;
    Loop& loop = loops_[number];
    loop.lease_id = lease.lease_id();
    loop.token = lease.fencing_token();
    loop.unit_id = lease.unit().id();
    loop.unit_hash = StableHash(loop.unit_id);
    loop.max_iterations = (lease.has_aidan() || shared == nullptr ? lease : *shared).aidan().max_iterations();
    loop.done = lease.checkpoint_size();
    loop.target = std::max(loop.done + 1, TargetSteps(loop.unit_hash, options_.iterations));
    loop.next_step = now + options_.step_interval;
    due_.push({loop.next_step, number});
    ++counters_.units_leased;
  }
  return absl::ZeroDuration();
}

void WorkerBook::StepDue(absl::Time now) {
  // Only the loops whose step is due, earliest first (a scan of every loop at every tick was a tenth
  // of the generator's CPU). An entry of a loop that has ended since it was queued is dropped.
  while (!due_.empty() && due_.top().first <= now) {
    const auto it = loops_.find(due_.top().second);
    due_.pop();
    if (it == loops_.end()) continue;
    Loop& loop = it->second;
    ++loop.done;
    ++counters_.steps_made;
    loop.next_step += options_.step_interval;
    if (loop.done < loop.target) {
      const auto pick = static_cast<uint32_t>((loop.unit_hash + loop.done) % pool_->size());
      out_steps_[it->first].push_back({pick, loop.done});
      // A loop behind (its round came late) makes every step due by now, as a real worker's loops go on
      // while its sender waits: the offered load does not bend to the coordinator's latency.
      due_.push({loop.next_step, it->first});
      continue;
    }
    // The last step ends the loop: the commit carries every answer (as the real worker's OnDone).
    out_steps_.erase(it->first);
    out_commits_.push_back(MakeCommit(loop));
    committing_[loop.lease_id] = loop.token;
    loop_of_lease_.erase(loop.lease_id);
    loops_.erase(it);
  }
}

Commit WorkerBook::MakeCommit(const Loop& loop) const {
  // The request's own fields, then the answers and calls, serialized once per shape (StepPool): two
  // serialized messages one after the other parse as one.
  v1::CompleteRequest head;
  head.set_worker_id(options_.worker_id);
  head.set_lease_id(loop.lease_id);
  head.set_fencing_token(loop.token);
  head.set_unit_id(loop.unit_id);
  head.set_stop_reason(kStopRepetitive);
  head.set_max_iterations(loop.max_iterations);
  return Commit{loop.lease_id, head.SerializeAsString(), &pool_->Result(loop.unit_hash, loop.done)};
}

WorkerBook::Round WorkerBook::TakeRound(absl::Time now) {
  Round round;
  absl::flat_hash_map<uint64_t, OutSteps> steps;
  {
    absl::MutexLock lock(&mu_);
    StepDue(now);
    std::swap(steps, out_steps_);
    std::swap(round.commits, out_commits_);
  }
  // Every entry's loop is running: one that ended or was lost dropped its entry. Each step's fixed
  // part is the pool's, referenced; the worker id goes last (fields parse in any order).
  WireBuffer wire;
  int steps_in_wire = 0;
  auto close = [&] {
    if (steps_in_wire == 0) return;
    AppendWorkerId(options_.worker_id, &wire);
    round.reports.push_back({wire.Take(), steps_in_wire});
    steps_in_wire = 0;
  };
  absl::MutexLock lock(&mu_);
  for (const auto& [number, out] : steps) {
    const auto it = loops_.find(number);
    if (it == loops_.end()) continue;  // lost since (a Heartbeat's answer in between)
    size_t steps_bytes = 0;
    for (const OutStep& step : out) steps_bytes += StepBytes(pool_->FixedStep(step.pick).size(), step.answer_num);
    AppendLeaseStepsHead(it->second.lease_id, it->second.token, steps_bytes, &wire);
    for (const OutStep& step : out) {
      AppendStep(pool_->FixedStep(step.pick), step.answer_num, 1.0 / step.answer_num, &wire);
    }
    steps_in_wire += static_cast<int>(out.size());
    if (wire.size() >= kReportBytes) close();
  }
  close();
  return round;
}

void WorkerBook::ReportAnswered(const absl::Status& status, int steps, const v1::ReportResponse& response) {
  if (!status.ok()) return;
  absl::MutexLock lock(&mu_);
  counters_.steps_reported += steps;
  for (const std::string& rejected : response.rejected_lease_ids()) {
    if (EraseLease(rejected)) ++counters_.units_refused;
  }
}

grpc::ByteBuffer WorkerBook::CompleteManyRequest(const std::vector<Commit>& commits) const {
  WireBuffer wire;
  AppendWorkerId(options_.worker_id, &wire);
  for (const Commit& c : commits) AppendCommit(c.head, *c.result, &wire);
  return wire.Take();
}

std::vector<Commit> WorkerBook::CompleteManyAnswered(std::vector<Commit> commits, const absl::Status& status,
                                                     const v1::CompleteManyResponse& response) {
  if (!status.ok() || response.outcomes_size() != static_cast<int>(commits.size())) return commits;
  std::vector<Commit> retry;
  absl::MutexLock lock(&mu_);
  for (size_t i = 0; i < commits.size(); ++i) {
    const v1::CompleteOutcome& outcome = response.outcomes(static_cast<int>(i));
    const auto code = static_cast<absl::StatusCode>(outcome.code());
    if (code == absl::StatusCode::kOk || code == absl::StatusCode::kNotFound) {
      SettleLocked(commits[i].lease_id, code == absl::StatusCode::kOk && outcome.response().accepted());
    } else {
      retry.push_back(std::move(commits[i]));
    }
  }
  return retry;
}

void WorkerBook::Settle(const std::string& lease_id, bool accepted) {
  absl::MutexLock lock(&mu_);
  SettleLocked(lease_id, accepted);
}

void WorkerBook::SettleLocked(const std::string& lease_id, bool accepted) {
  committing_.erase(lease_id);
  if (accepted) {
    ++counters_.units_committed;
  } else {
    ++counters_.units_refused;
  }
}

v1::HeartbeatRequest WorkerBook::HeartbeatRequest() const {
  v1::HeartbeatRequest request;
  request.set_worker_id(options_.worker_id);
  absl::MutexLock lock(&mu_);
  for (const auto& [number, loop] : loops_) {
    v1::LeaseProgress* p = request.add_leases();
    p->set_lease_id(loop.lease_id);
    p->set_fencing_token(loop.token);
    p->set_steps_done(loop.done);
  }
  for (const auto& [lease_id, token] : committing_) {
    v1::LeaseProgress* p = request.add_leases();
    p->set_lease_id(lease_id);
    p->set_fencing_token(token);
  }
  request.set_loops_in_flight(static_cast<int>(loops_.size()));
  request.set_capacity(options_.loops);
  request.mutable_calls()->set_in_flight(static_cast<int64_t>(loops_.size()));
  return request;
}

v1::HeartbeatRequest WorkerBook::GoodbyeRequest() const {
  v1::HeartbeatRequest request;
  request.set_worker_id(options_.worker_id);
  request.set_leaving(true);
  return request;
}

void WorkerBook::HeartbeatAnswered(const v1::HeartbeatResponse& response) {
  absl::MutexLock lock(&mu_);
  for (const std::string& lost : response.lost_lease_ids()) {
    if (EraseLease(lost)) ++counters_.units_refused;
  }
}

bool WorkerBook::EraseLease(const std::string& lease_id) {
  const auto it = loop_of_lease_.find(lease_id);
  if (it == loop_of_lease_.end()) return false;
  out_steps_.erase(it->second);
  loops_.erase(it->second);
  loop_of_lease_.erase(it);
  return true;
}

WorkerCounters WorkerBook::counters() const {
  absl::MutexLock lock(&mu_);
  WorkerCounters c = counters_;
  c.loops_running = static_cast<int64_t>(loops_.size());
  c.completes_waiting = static_cast<int64_t>(committing_.size());
  return c;
}

bool WorkerBook::AwaitSettled(int64_t units, absl::Time deadline) const {
  absl::MutexLock lock(&mu_);
  auto settled = [this, units]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return counters_.units_committed + counters_.units_refused >= units;
  };
  return mu_.AwaitWithDeadline(absl::Condition(&settled), deadline);
}

}  // namespace noveltygrid::load
