#include "bench/coordinator_load/fake_worker.h"

#include <utility>

namespace noveltygrid::load {

FakeWorker::FakeWorker(FakeWorkerOptions options, GrpcCoordinatorClient* client, LatencyRecorder* recorder,
                       const StepPool* pool)
    : client_(client), recorder_(recorder), book_(std::move(options), pool) {}

FakeWorker::~FakeWorker() { Stop(); }

void FakeWorker::Start() {
  threads_.emplace_back([this] { LeaseLoop(); });
  threads_.emplace_back([this] { HeartbeatLoop(); });
  threads_.emplace_back([this] { SendLoop(); });
  for (int i = 0; i < book_.options().complete_senders; ++i) threads_.emplace_back([this] { CompleteLoop(); });
}

void FakeWorker::Stop() {
  {
    absl::MutexLock lock(&mu_);
    if (stopped_) return;
    stopped_ = true;
  }
  book_.Stop();
  for (std::thread& t : threads_) t.join();
  threads_.clear();
  v1::HeartbeatResponse ignored;
  client_->Heartbeat(book_.GoodbyeRequest(), &ignored, absl::Now() + absl::Seconds(2)).IgnoreError();
}

void FakeWorker::LeaseLoop() {
  while (true) {
    const int free = book_.AwaitFreeSlots();
    if (free == 0) return;  // stopping
    v1::LeaseResponse response;
    const absl::Time start = absl::Now();
    const absl::Status status = client_->Lease(book_.LeaseRequest(free), &response, book_.Deadline());
    const absl::Time now = absl::Now();
    recorder_->Record(Rpc::kLease, now - start, status.ok());
    const absl::Duration next = book_.LeaseAnswered(status, response, free, now);
    if (next == absl::InfiniteDuration()) return;  // the sweep is complete
    if (next > absl::ZeroDuration() && !book_.Pause(next)) return;
  }
}

void FakeWorker::HeartbeatLoop() {
  while (book_.Pause(book_.heartbeat_interval())) {
    v1::HeartbeatResponse response;
    const absl::Time start = absl::Now();
    const absl::Status status = client_->Heartbeat(book_.HeartbeatRequest(), &response, book_.Deadline());
    recorder_->Record(Rpc::kHeartbeat, absl::Now() - start, status.ok());
    book_.HeartbeatAnswered(response);
  }
}

void FakeWorker::SendLoop() {
  // Each round first makes the steps that came due since the last one -- in place of the model replies
  // a real worker's loops would have queued for it -- so one wake-up a round does both. A step then
  // waits for the next round, as it waits for its Report in a real worker.
  absl::Time last_round = absl::InfinitePast();
  while (true) {
    if (const absl::Duration wait = last_round + book_.round_tick() - absl::Now(); wait > absl::ZeroDuration()) {
      if (!book_.Pause(wait)) return;
    }
    if (book_.Stopping()) return;
    last_round = absl::Now();
    WorkerBook::Round round = book_.TakeRound(last_round);
    for (const WireReport& report : round.reports) SendReport(report);
    if (book_.options().complete_many) {
      SendCompleteMany(std::move(round.commits));
      continue;
    }
    if (book_.options().complete_senders > 0) {
      absl::MutexLock lock(&mu_);
      for (Commit& c : round.commits) complete_queue_.push_back(std::move(c));
      continue;
    }
    for (const Commit& c : round.commits) {
      if (book_.Stopping()) return;
      SendComplete(c);
    }
  }
}

void FakeWorker::CompleteLoop() {
  while (true) {
    Commit commit;
    {
      absl::MutexLock lock(&mu_);
      auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stopped_ || !complete_queue_.empty(); };
      mu_.Await(absl::Condition(&ready));
      if (stopped_) return;
      commit = std::move(complete_queue_.front());
      complete_queue_.pop_front();
    }
    SendComplete(commit);
  }
}

void FakeWorker::SendReport(const WireReport& report) {
  v1::ReportResponse response;
  const absl::Time start = absl::Now();
  const absl::Status status = client_->ReportSerialized(report.bytes, &response, book_.Deadline());
  recorder_->Record(Rpc::kReport, absl::Now() - start, status.ok());
  book_.ReportAnswered(status, report.steps, response);
}

void FakeWorker::SendComplete(const Commit& commit) {
  v1::CompleteRequest request;  // the path of workers from before CompleteMany: built as a message
  if (!request.ParseFromString(commit.head + *commit.result)) {  // not expected: the generator serialized it
    book_.Settle(commit.lease_id, /*accepted=*/false);
    return;
  }
  while (true) {
    v1::CompleteResponse response;
    const absl::Time start = absl::Now();
    const absl::Status status = client_->Complete(request, &response, book_.Deadline());
    recorder_->Record(Rpc::kComplete, absl::Now() - start, status.ok());
    if (status.ok() || absl::IsNotFound(status)) {
      book_.Settle(commit.lease_id, status.ok() && response.accepted());
      return;
    }
    if (!book_.Pause(WorkerBook::kRetryPause)) return;
  }
}

void FakeWorker::SendCompleteMany(std::vector<Commit> commits) {
  while (!commits.empty()) {
    v1::CompleteManyResponse response;
    const absl::Time start = absl::Now();
    const absl::Status status =
        client_->CompleteManySerialized(book_.CompleteManyRequest(commits), &response, book_.Deadline());
    recorder_->Record(Rpc::kCompleteMany, absl::Now() - start, status.ok());
    commits = book_.CompleteManyAnswered(std::move(commits), status, response);
    if (commits.empty()) return;
    if (!book_.Pause(WorkerBook::kRetryPause)) return;
  }
}

}  // namespace noveltygrid::load
