#include "bench/coordinator_load/fake_worker.h"

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

// What a loop's steps of a round start with: one step (~1.45 KB) and a second.
constexpr size_t kStepsReserve = 3 << 10;

// With rounds back to back (round_interval zero), steps are made this often.
constexpr absl::Duration kMinTick = absl::Milliseconds(10);

// A unit's step count: iterations-2 .. iterations+2, by its id.
int TargetSteps(const std::string& unit_id, int iterations) {
  return std::max(1, iterations - 2 + static_cast<int>(StableHash(unit_id) % 5));
}

}  // namespace

StepPool::StepPool(int size, int answer_bytes, int embedding_dim, uint64_t seed) {
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
    fixed.mutable_embedding()->Add(e.begin(), e.end());
    fixed_steps_.push_back(fixed.SerializeAsString());
  }
}

void StepPool::AppendResult(uint64_t unit_hash, int steps, std::string* out) const {
  const std::pair<size_t, int> shape{unit_hash % answers_.size(), steps};
  const std::string* result;
  {
    absl::MutexLock lock(&mu_);
    auto [it, added] = results_.try_emplace(shape);
    if (added) it->second = Result(shape.first, steps);
    result = &it->second;  // node-based and never erased: stays where it is
  }
  out->append(*result);  // outside the lock: fifty workers share the pool
}

std::string StepPool::Result(size_t first, int steps) const {
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

FakeWorker::FakeWorker(FakeWorkerOptions options, GrpcCoordinatorClient* client, LatencyRecorder* recorder,
                       const StepPool* pool)
    : options_(std::move(options)), client_(client), recorder_(recorder), pool_(pool) {}

FakeWorker::~FakeWorker() { Stop(); }

void FakeWorker::Start() {
  threads_.emplace_back([this] { LeaseLoop(); });
  threads_.emplace_back([this] { HeartbeatLoop(); });
  threads_.emplace_back([this] { SendLoop(); });
  for (int i = 0; i < options_.complete_senders; ++i) threads_.emplace_back([this] { CompleteLoop(); });
}

void FakeWorker::Stop() {
  {
    absl::MutexLock lock(&mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  for (std::thread& t : threads_) t.join();
  threads_.clear();
  v1::HeartbeatRequest leaving;
  leaving.set_worker_id(options_.worker_id);
  leaving.set_leaving(true);
  v1::HeartbeatResponse ignored;
  client_->Heartbeat(leaving, &ignored, absl::Now() + absl::Seconds(2)).IgnoreError();
}

WorkerCounters FakeWorker::counters() const {
  absl::MutexLock lock(&mu_);
  WorkerCounters c = counters_;
  c.loops_running = static_cast<int64_t>(loops_.size());
  c.completes_waiting = static_cast<int64_t>(committing_.size());
  return c;
}

bool FakeWorker::Stopping() const {
  absl::MutexLock lock(&mu_);
  return stopping_;
}

bool FakeWorker::Pause(absl::Duration d) {
  absl::MutexLock lock(&mu_);
  auto stopping = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stopping_; };
  return !mu_.AwaitWithTimeout(absl::Condition(&stopping), d);
}

void FakeWorker::LeaseLoop() {
  while (true) {
    int free;
    {
      absl::MutexLock lock(&mu_);
      auto can_lease = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return stopping_ || static_cast<int>(loops_.size()) < options_.loops;
      };
      mu_.Await(absl::Condition(&can_lease));
      if (stopping_) return;
      free = options_.loops - static_cast<int>(loops_.size());
    }
    v1::LeaseRequest request;
    request.set_worker_id(options_.worker_id);
    request.set_max_units(free);
    request.set_shared_settings(true);  // as noveltygrid worker asks: settings once per response
    v1::LeaseResponse response;
    const absl::Time start = absl::Now();
    const absl::Status status = client_->Lease(request, &response, Deadline());
    const absl::Time now = absl::Now();
    recorder_->Record(Rpc::kLease, now - start, status.ok());
    if (!status.ok()) {
      if (!Pause(absl::Milliseconds(100))) return;
      continue;
    }
    {
      absl::MutexLock lock(&mu_);
      if (response.heartbeat_interval_ms() > 0)
        heartbeat_interval_ = absl::Milliseconds(response.heartbeat_interval_ms());
      if (response.leases_size() < free) ++counters_.short_leases;
      const v1::Lease* shared = SharedSettingsFor(response, kAidanBench);  // the plan is AidanBench's alone
      for (const v1::Lease& lease : response.leases()) {
        const uint64_t number = next_loop_++;
        loop_of_lease_[lease.lease_id()] = number;
        Loop& loop = loops_[number];
        loop.lease_id = lease.lease_id();
        loop.token = lease.fencing_token();
        loop.unit_id = lease.unit().id();
        loop.max_iterations = (lease.has_aidan() || shared == nullptr ? lease : *shared).aidan().max_iterations();
        loop.done = lease.checkpoint_size();
        loop.target = std::max(loop.done + 1, TargetSteps(loop.unit_id, options_.iterations));
        loop.next_step = now + options_.step_interval;
        due_.push({loop.next_step, number});
        ++counters_.units_leased;
      }
    }
    if (response.leases_size() == 0) {
      if (response.sweep_complete()) return;
      if (!Pause(absl::Milliseconds(std::max<int64_t>(50, response.retry_after_ms())))) return;
    }
  }
}

void FakeWorker::HeartbeatLoop() {
  while (true) {
    v1::HeartbeatRequest request;
    {
      absl::MutexLock lock(&mu_);
      const absl::Duration interval = heartbeat_interval_;
      auto stopping = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stopping_; };
      if (mu_.AwaitWithTimeout(absl::Condition(&stopping), interval)) return;
      request.set_worker_id(options_.worker_id);
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
    }
    v1::HeartbeatResponse response;
    const absl::Time start = absl::Now();
    const absl::Status status = client_->Heartbeat(request, &response, Deadline());
    recorder_->Record(Rpc::kHeartbeat, absl::Now() - start, status.ok());
    absl::MutexLock lock(&mu_);
    for (const std::string& lost : response.lost_lease_ids()) {
      if (EraseLease(lost)) ++counters_.units_refused;
    }
  }
}

void FakeWorker::StepDue(absl::Time now) {
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
      const size_t pick = (StableHash(loop.unit_id) + loop.done) % pool_->size();
      OutSteps& out = out_steps_[it->first];
      if (out.bytes.empty()) out.bytes.reserve(kStepsReserve);
      AppendStep(pool_->FixedStep(pick), loop.done, 1.0 / loop.done, &out.bytes);
      ++out.count;
      // A loop behind (its round came late) makes every step due by now, as a real worker's loops go on
      // while its sender waits: the offered load does not bend to the coordinator's latency.
      due_.push({loop.next_step, it->first});
      continue;
    }
    // The last step ends the loop: the commit carries every answer (as the real worker's OnDone).
    out_steps_.erase(it->first);
    out_completes_.push_back(MakeCommit(loop));
    committing_[loop.lease_id] = loop.token;
    loop_of_lease_.erase(loop.lease_id);
    loops_.erase(it);
  }
}

FakeWorker::Commit FakeWorker::MakeCommit(const Loop& loop) const {
  // The request's own fields, then the answers and calls, serialized once per shape (StepPool): two
  // serialized messages one after the other parse as one.
  v1::CompleteRequest head;
  head.set_worker_id(options_.worker_id);
  head.set_lease_id(loop.lease_id);
  head.set_fencing_token(loop.token);
  head.set_unit_id(loop.unit_id);
  head.set_stop_reason(kStopRepetitive);
  head.set_max_iterations(loop.max_iterations);
  Commit commit{loop.lease_id, head.SerializeAsString()};
  pool_->AppendResult(StableHash(loop.unit_id), loop.done, &commit.bytes);
  return commit;
}

void FakeWorker::SendLoop() {
  // Each round first makes the steps that came due since the last one -- in place of the model replies
  // a real worker's loops would have queued for it -- so one wake-up a round does both. A step then
  // waits for the next round, as it waits for its Report in a real worker.
  const absl::Duration tick = options_.round_interval > absl::ZeroDuration() ? options_.round_interval : kMinTick;
  absl::Time last_round = absl::InfinitePast();
  while (true) {
    if (const absl::Duration wait = last_round + tick - absl::Now(); wait > absl::ZeroDuration()) {
      if (!Pause(wait)) return;
    }
    last_round = absl::Now();
    absl::flat_hash_map<uint64_t, OutSteps> steps;
    std::vector<Commit> completes;
    {
      absl::MutexLock lock(&mu_);
      if (stopping_) return;
      StepDue(last_round);
      std::swap(steps, out_steps_);
      std::swap(completes, out_completes_);
    }
    SendReport(std::move(steps));
    if (options_.complete_many) {
      SendCompleteMany(std::move(completes));
      continue;
    }
    if (options_.complete_senders > 0) {
      absl::MutexLock lock(&mu_);
      for (Commit& c : completes) complete_queue_.push_back(std::move(c));
      continue;
    }
    for (const Commit& c : completes) {
      if (Stopping()) return;
      SendComplete(c);
    }
  }
}

void FakeWorker::CompleteLoop() {
  while (true) {
    Commit commit;
    {
      absl::MutexLock lock(&mu_);
      auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stopping_ || !complete_queue_.empty(); };
      mu_.Await(absl::Condition(&ready));
      if (stopping_) return;
      commit = std::move(complete_queue_.front());
      complete_queue_.pop_front();
    }
    SendComplete(commit);
  }
}

void FakeWorker::SendReport(absl::flat_hash_map<uint64_t, OutSteps> steps) {
  struct Held {
    OutSteps* steps;
    std::string lease_id;
    uint64_t token;
  };
  std::vector<Held> held;
  {
    absl::MutexLock lock(&mu_);
    for (auto& [number, out] : steps) {
      const auto it = loops_.find(number);
      if (it == loops_.end()) continue;  // ended or lost since
      held.push_back({&out, it->second.lease_id, it->second.token});
    }
  }
  // The request in pieces: each lease's head, then its steps as they were made (moved, not copied).
  std::vector<std::string> request;
  request.reserve(2 * held.size() + 1);
  size_t request_bytes = 0;
  int request_steps = 0;
  auto send = [&] {
    if (request_steps == 0) return;
    AppendWorkerId(options_.worker_id, &request.emplace_back());  // fields parse in any order
    v1::ReportResponse response;
    const absl::Time start = absl::Now();
    const absl::Status status = client_->ReportSerialized(std::move(request), &response, Deadline());
    recorder_->Record(Rpc::kReport, absl::Now() - start, status.ok());
    absl::MutexLock lock(&mu_);
    if (status.ok()) {
      counters_.steps_reported += request_steps;
      for (const std::string& rejected : response.rejected_lease_ids()) {
        if (EraseLease(rejected)) ++counters_.units_refused;
      }
    }
    request.clear();
    request_bytes = 0;
    request_steps = 0;
  };
  for (const Held& h : held) {
    std::string& head = request.emplace_back();
    AppendLeaseStepsHead(h.lease_id, h.token, h.steps->bytes.size(), &head);
    request_bytes += head.size() + h.steps->bytes.size();
    request.push_back(std::move(h.steps->bytes));
    request_steps += h.steps->count;
    if (request_bytes >= kReportBytes) send();
  }
  send();
}

void FakeWorker::SendComplete(const Commit& commit) {
  v1::CompleteRequest request;                   // the path of workers from before CompleteMany: built as a message
  if (!request.ParseFromString(commit.bytes)) {  // not expected: the generator serialized it
    absl::MutexLock lock(&mu_);
    Settle(commit.lease_id, /*accepted=*/false);
    return;
  }
  while (true) {
    v1::CompleteResponse response;
    const absl::Time start = absl::Now();
    const absl::Status status = client_->Complete(request, &response, Deadline());
    recorder_->Record(Rpc::kComplete, absl::Now() - start, status.ok());
    if (status.ok() || absl::IsNotFound(status)) {
      absl::MutexLock lock(&mu_);
      Settle(commit.lease_id, status.ok() && response.accepted());
      return;
    }
    if (!Pause(absl::Milliseconds(100))) return;
  }
}

void FakeWorker::SendCompleteMany(std::vector<Commit> commits) {
  while (!commits.empty()) {
    std::vector<std::string> request(1);
    AppendWorkerId(options_.worker_id, &request[0]);
    for (const Commit& c : commits) AppendCommit(c.bytes, &request[0]);
    v1::CompleteManyResponse response;
    const absl::Time start = absl::Now();
    const absl::Status status = client_->CompleteManySerialized(std::move(request), &response, Deadline());
    recorder_->Record(Rpc::kCompleteMany, absl::Now() - start, status.ok());
    if (status.ok() && response.outcomes_size() == static_cast<int>(commits.size())) {
      std::vector<Commit> retry;
      absl::MutexLock lock(&mu_);
      for (size_t i = 0; i < commits.size(); ++i) {
        const v1::CompleteOutcome& outcome = response.outcomes(static_cast<int>(i));
        const auto code = static_cast<absl::StatusCode>(outcome.code());
        if (code == absl::StatusCode::kOk || code == absl::StatusCode::kNotFound) {
          Settle(commits[i].lease_id, code == absl::StatusCode::kOk && outcome.response().accepted());
        } else {
          retry.push_back(std::move(commits[i]));
        }
      }
      commits = std::move(retry);
      if (commits.empty()) return;
    }
    if (!Pause(absl::Milliseconds(100))) return;
  }
}

bool FakeWorker::EraseLease(const std::string& lease_id) {
  const auto it = loop_of_lease_.find(lease_id);
  if (it == loop_of_lease_.end()) return false;
  out_steps_.erase(it->second);
  loops_.erase(it->second);
  loop_of_lease_.erase(it);
  return true;
}

void FakeWorker::Settle(const std::string& lease_id, bool accepted) {
  committing_.erase(lease_id);
  if (accepted) {
    ++counters_.units_committed;
  } else {
    ++counters_.units_refused;
  }
}

}  // namespace noveltygrid::load
