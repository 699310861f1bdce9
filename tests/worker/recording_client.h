// RecordingClient: a CoordinatorClient decorator for tests that forwards every call to another client
// (e.g. InProcessCoordinatorClient) and records the request, the response and the status after the
// call returned, so a test can wait for a call (AwaitUntil) instead of sleeping and then look at it.
#ifndef NOVELTYGRID_TESTS_WORKER_RECORDING_CLIENT_H_
#define NOVELTYGRID_TESTS_WORKER_RECORDING_CLIENT_H_

#include <functional>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "proto/coordinator_client.h"

namespace noveltygrid::testing {

template <typename Request, typename Response>
struct Call {
  Request request;
  Response response;
  absl::Status status;
};

// Every call made so far, per method, in order.
struct CallLog {
  std::vector<Call<v1::LeaseRequest, v1::LeaseResponse>> leases;
  std::vector<Call<v1::HeartbeatRequest, v1::HeartbeatResponse>> heartbeats;
  std::vector<Call<v1::ReportRequest, v1::ReportResponse>> reports;
  // One per unit committed, whether by Complete or inside a CompleteMany (with that unit's outcome).
  std::vector<Call<v1::CompleteRequest, v1::CompleteResponse>> completes;
  std::vector<Call<v1::CompleteManyRequest, v1::CompleteManyResponse>> complete_manys;
  std::vector<Call<v1::ReleaseRequest, v1::ReleaseResponse>> releases;

  // Steps in reports the coordinator took.
  int StepsAccepted() const {
    int steps = 0;
    for (const auto& call : reports) {
      if (!call.status.ok()) continue;
      for (const v1::LeaseSteps& lease : call.request.leases()) steps += lease.steps_size();
    }
    return steps;
  }
};

class RecordingClient final : public CoordinatorClient {
 public:
  explicit RecordingClient(CoordinatorClient* inner) : inner_(inner) {}

  // Blocks until `ready(log)` holds.
  void AwaitUntil(const std::function<bool(const CallLog&)>& ready) const {
    absl::MutexLock lock(&mu_);
    auto holds = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return ready(log_); };
    mu_.Await(absl::Condition(&holds));
  }
  CallLog log() const {
    absl::MutexLock lock(&mu_);
    return log_;
  }

  absl::Status Lease(const v1::LeaseRequest& request, v1::LeaseResponse* response, absl::Time deadline) override {
    return Record(&CallLog::leases, request, response, inner_->Lease(request, response, deadline));
  }
  absl::Status Heartbeat(const v1::HeartbeatRequest& request, v1::HeartbeatResponse* response,
                         absl::Time deadline) override {
    return Record(&CallLog::heartbeats, request, response, inner_->Heartbeat(request, response, deadline));
  }
  absl::Status Report(const v1::ReportRequest& request, v1::ReportResponse* response, absl::Time deadline) override {
    return Record(&CallLog::reports, request, response, inner_->Report(request, response, deadline));
  }
  absl::Status Complete(const v1::CompleteRequest& request, v1::CompleteResponse* response,
                        absl::Time deadline) override {
    return Record(&CallLog::completes, request, response, inner_->Complete(request, response, deadline));
  }
  // While set, CompleteMany is UNIMPLEMENTED (a coordinator from before it), recorded in complete_manys only.
  void SetCompleteManyUnimplemented(bool unimplemented) {
    absl::MutexLock lock(&mu_);
    complete_many_unimplemented_ = unimplemented;
  }
  absl::Status CompleteMany(const v1::CompleteManyRequest& request, v1::CompleteManyResponse* response,
                            absl::Time deadline) override {
    {
      absl::MutexLock lock(&mu_);
      if (complete_many_unimplemented_) {
        const absl::Status status = absl::UnimplementedError("unknown method CompleteMany");
        log_.complete_manys.push_back({request, *response, status});
        return status;
      }
    }
    const absl::Status status = inner_->CompleteMany(request, response, deadline);
    absl::MutexLock lock(&mu_);
    for (int i = 0; i < request.units_size(); ++i) {
      Call<v1::CompleteRequest, v1::CompleteResponse>& unit = log_.completes.emplace_back();
      unit.request = request.units(i);
      unit.status = status;
      if (status.ok() && i < response->outcomes_size()) {
        const v1::CompleteOutcome& outcome = response->outcomes(i);
        unit.response = outcome.response();
        unit.status = absl::Status(static_cast<absl::StatusCode>(outcome.code()), outcome.message());
      }
    }
    log_.complete_manys.push_back({request, *response, status});
    return status;
  }
  absl::Status Release(const v1::ReleaseRequest& request, v1::ReleaseResponse* response, absl::Time deadline) override {
    return Record(&CallLog::releases, request, response, inner_->Release(request, response, deadline));
  }
  absl::Status Status(const v1::StatusRequest& request, v1::StatusResponse* response, absl::Time deadline) override {
    return inner_->Status(request, response, deadline);
  }

 private:
  template <typename Request, typename Response>
  absl::Status Record(std::vector<Call<Request, Response>> CallLog::*calls, const Request& request,
                      const Response* response, absl::Status status) {
    absl::MutexLock lock(&mu_);
    (log_.*calls).push_back({request, *response, status});
    return status;
  }

  CoordinatorClient* const inner_;
  mutable absl::Mutex mu_;
  CallLog log_ ABSL_GUARDED_BY(mu_);
  bool complete_many_unimplemented_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace noveltygrid::testing

#endif  // NOVELTYGRID_TESTS_WORKER_RECORDING_CLIENT_H_
