#include "bench/coordinator_load/callback_worker.h"

#include <algorithm>
#include <utility>

#include "absl/time/clock.h"
#include "grpcpp/support/client_callback.h"
#include "proto/grpc_status.h"

namespace noveltygrid::load {

// A call in flight: what gRPC reads and writes until its callback has run. Not in an anonymous
// namespace: the lambda in the member template SendBytes captures a shared_ptr<Pending<...>>, and GCC
// warns (-Wsubobject-linkage) when such a closure, which takes its linkage from an externally visible
// class, has a field whose type uses the anonymous namespace. The name must stay unique in
// noveltygrid::load (the linker would merge another Pending of this namespace silently).
namespace callback_internal {

template <typename Request, typename Response>
struct Pending {
  std::unique_ptr<grpc::ClientContext> context;
  Request request;
  Response response;
  absl::Time start;  // just before the call starts
};

}  // namespace callback_internal

using callback_internal::Pending;

std::shared_ptr<CallbackWorker> CallbackWorker::Create(FakeWorkerOptions options, GrpcCoordinatorClient* client,
                                                       LatencyRecorder* recorder, const StepPool* pool,
                                                       Scheduler* scheduler) {
  return std::shared_ptr<CallbackWorker>(new CallbackWorker(std::move(options), client, recorder, pool, scheduler));
}

CallbackWorker::CallbackWorker(FakeWorkerOptions options, GrpcCoordinatorClient* client, LatencyRecorder* recorder,
                               const StepPool* pool, Scheduler* scheduler)
    : client_(client),
      recorder_(recorder),
      scheduler_(scheduler),
      stub_(v1::Coordinator::NewStub(client->channel())),
      book_(std::move(options), pool) {}

void CallbackWorker::Start() {
  const absl::Time now = absl::Now();
  At(now, &CallbackWorker::Round);
  At(now + book_.heartbeat_interval(), &CallbackWorker::Heartbeat);
  MaybeLease();
}

void CallbackWorker::Stop() {
  book_.Stop();  // first: a round on the scheduler from here on makes no steps and takes no commits
  {
    absl::MutexLock lock(&mu_);
    if (stopped_) return;
    stopped_ = true;
    auto idle = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return in_flight_ == 0; };
    mu_.Await(absl::Condition(&idle));
  }
  v1::HeartbeatResponse ignored;
  client_->Heartbeat(book_.GoodbyeRequest(), &ignored, absl::Now() + absl::Seconds(2)).IgnoreError();
}

bool CallbackWorker::Begin() {
  absl::MutexLock lock(&mu_);
  if (stopped_) return false;
  ++in_flight_;
  return true;
}

void CallbackWorker::End() {
  absl::MutexLock lock(&mu_);
  --in_flight_;
}

void CallbackWorker::At(absl::Time when, void (CallbackWorker::*task)()) {
  scheduler_->At(when, [self = shared_from_this(), task] { ((*self).*task)(); });
}

void CallbackWorker::MaybeLease() {
  int free;
  {
    absl::MutexLock lock(&mu_);
    if (stopped_ || leasing_) return;
    free = book_.FreeSlots();
    if (free == 0) return;
    leasing_ = true;
    ++in_flight_;
  }
  auto call = std::make_shared<Pending<v1::LeaseRequest, v1::LeaseResponse>>();
  call->request = book_.LeaseRequest(free);
  call->context = client_->Context(book_.Deadline());
  call->start = absl::Now();
  stub_->async()->Lease(call->context.get(), &call->request, &call->response,
                        [self = shared_from_this(), call, free](grpc::Status status) {
                          self->LeaseAnswered(call->response, free, FromGrpcStatus(status), call->start);
                          self->End();
                        });
}

void CallbackWorker::LeaseAnswered(const v1::LeaseResponse& response, int asked, const absl::Status& status,
                                   absl::Time start) {
  const absl::Time now = absl::Now();
  recorder_->Record(Rpc::kLease, now - start, status.ok());
  const absl::Duration next = book_.LeaseAnswered(status, response, asked, now);
  if (next == absl::InfiniteDuration()) return;  // the sweep is complete: leasing_ stays set
  auto again = [this] {
    {
      absl::MutexLock lock(&mu_);
      leasing_ = false;
    }
    MaybeLease();
  };
  if (next == absl::ZeroDuration()) {
    again();
    return;
  }
  scheduler_->At(now + next, [self = shared_from_this(), again] { again(); });
}

void CallbackWorker::Round() {
  // As FakeWorker's rounds: the steps that came due since the last one are made, then sent.
  if (book_.Stopping()) return;
  auto round = std::make_shared<RoundCalls>();
  round->started = absl::Now();
  WorkerBook::Round taken = book_.TakeRound(round->started);
  round->reports = std::move(taken.reports);
  round->commits = std::move(taken.commits);
  MaybeLease();  // the loops that ended left free slots
  Continue(std::move(round));
}

void CallbackWorker::Continue(std::shared_ptr<RoundCalls> round) {
  if (round->next_report < round->reports.size()) {
    SendReport(std::move(round));
  } else if (!round->commits.empty()) {
    SendCommits(std::move(round));
  } else {
    At(std::max(absl::Now(), round->started + book_.round_tick()), &CallbackWorker::Round);
  }
}

template <typename Response>
void CallbackWorker::SendBytes(const grpc::internal::RpcMethod& method, Rpc kind, grpc::ByteBuffer request,
                               std::function<void(const absl::Status&, const Response&, absl::Time)> answered) {
  if (!Begin()) return;
  auto call = std::make_shared<Pending<grpc::ByteBuffer, grpc::ByteBuffer>>();
  call->request = std::move(request);
  call->context = client_->Context(book_.Deadline());
  call->start = absl::Now();
  grpc::internal::CallbackUnaryCall<grpc::ByteBuffer, grpc::ByteBuffer>(
      client_->channel().get(), method, call->context.get(), &call->request, &call->response,
      [self = shared_from_this(), call, &method, kind, answered = std::move(answered)](grpc::Status grpc_status) {
        Response response;
        const absl::Status status = ParseReply(grpc_status, &call->response, &response, method.name());
        const absl::Time now = absl::Now();
        self->recorder_->Record(kind, now - call->start, status.ok());
        answered(status, response, now);
        self->End();
      });
}

void CallbackWorker::SendReport(std::shared_ptr<RoundCalls> round) {
  SendBytes<v1::ReportResponse>(
      client_->report_method(), Rpc::kReport, std::move(round->reports[round->next_report].bytes),
      [this, round](const absl::Status& status, const v1::ReportResponse& response, absl::Time) {
        book_.ReportAnswered(status, round->reports[round->next_report].steps, response);
        MaybeLease();  // leases the Report was refused for left free slots
        ++round->next_report;
        Continue(round);
      });
}

void CallbackWorker::SendCommits(std::shared_ptr<RoundCalls> round) {
  SendBytes<v1::CompleteManyResponse>(
      client_->complete_many_method(), Rpc::kCompleteMany, book_.CompleteManyRequest(round->commits),
      [this, round](const absl::Status& status, const v1::CompleteManyResponse& response, absl::Time now) {
        round->commits = book_.CompleteManyAnswered(std::move(round->commits), status, response);
        if (round->commits.empty()) {
          Continue(round);
        } else {  // some not settled: sent again after a pause, as FakeWorker does
          scheduler_->At(now + WorkerBook::kRetryPause, [self = shared_from_this(), round] { self->Continue(round); });
        }
      });
}

void CallbackWorker::Heartbeat() {
  if (!Begin()) return;
  auto call = std::make_shared<Pending<v1::HeartbeatRequest, v1::HeartbeatResponse>>();
  call->request = book_.HeartbeatRequest();
  call->context = client_->Context(book_.Deadline());
  call->start = absl::Now();
  stub_->async()->Heartbeat(call->context.get(), &call->request, &call->response,
                            [self = shared_from_this(), call](grpc::Status status) {
                              const absl::Time now = absl::Now();
                              self->recorder_->Record(Rpc::kHeartbeat, now - call->start, status.ok());
                              self->book_.HeartbeatAnswered(call->response);
                              self->MaybeLease();  // the leases lost left free slots
                              self->At(now + self->book_.heartbeat_interval(), &CallbackWorker::Heartbeat);
                              self->End();
                            });
}

}  // namespace noveltygrid::load
