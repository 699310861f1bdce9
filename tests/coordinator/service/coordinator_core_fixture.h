// CoordinatorCoreTest: a TestCoordinator (test_coordinator.h) and the requests the core's tests send
// it -- leases, commits one by one or a round at a time, reports, releases, status -- for the core's
// tests and the group commit tests.
#ifndef NOVELTYGRID_TESTS_COORDINATOR_SERVICE_COORDINATOR_CORE_FIXTURE_H_
#define NOVELTYGRID_TESTS_COORDINATOR_SERVICE_COORDINATOR_CORE_FIXTURE_H_

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "coordinator/service/coordinator_core.h"
#include "gtest/gtest.h"
#include "tests/coordinator/service/test_coordinator.h"

namespace noveltygrid::testing {

class CoordinatorCoreTest : public ::testing::Test {
 protected:
  explicit CoordinatorCoreTest(int units = 2) : coordinator_(units, &clock_) {}

  static v1::LeaseRequest LeaseRequestOf(int max_units, const std::string& worker = "w1") {
    v1::LeaseRequest request;
    request.set_worker_id(worker);
    request.set_max_units(max_units);
    return request;
  }

  // The core's answer when `worker` asks for up to `max_units` units.
  v1::LeaseResponse LeaseUpTo(int max_units, const std::string& worker = "w1") {
    v1::LeaseResponse response;
    EXPECT_TRUE(core().Lease(kToken, LeaseRequestOf(max_units, worker), &response).ok());
    return response;
  }

  v1::Lease LeaseOne(const std::string& worker = "w1") {
    const v1::LeaseResponse response = LeaseUpTo(1, worker);
    EXPECT_EQ(response.leases_size(), 1);
    return response.leases_size() == 1 ? response.leases(0) : v1::Lease();
  }

  static v1::CompleteRequest CompleteOf(const v1::Lease& lease, int answers = 2) {
    v1::CompleteRequest request;
    request.set_worker_id("w1");
    request.set_lease_id(lease.lease_id());
    request.set_fencing_token(lease.fencing_token());
    request.set_unit_id(lease.unit().id());
    for (int i = 1; i <= answers; ++i) {
      v1::Step* step = request.add_answers();
      step->set_answer_num(i);
      step->set_answer(absl::StrCat("answer ", i));
    }
    request.set_stop_reason(kStopIncoherent);
    return request;
  }

  // A round of commits: each of `units` as CompleteOf.
  static v1::CompleteManyRequest CompleteManyRequestOf(const std::vector<v1::Lease>& units) {
    v1::CompleteManyRequest request;
    request.set_worker_id("w1");
    for (const v1::Lease& lease : units) *request.add_units() = CompleteOf(lease);
    return request;
  }

  static v1::ReportRequest ReportOf(const v1::Lease& lease, int first, int last) {
    v1::ReportRequest request;
    request.set_worker_id("w1");
    v1::LeaseSteps* steps = request.add_leases();
    steps->set_lease_id(lease.lease_id());
    steps->set_fencing_token(lease.fencing_token());
    for (int i = first; i <= last; ++i) {
      v1::Step* step = steps->add_steps();
      step->set_answer_num(i);
      step->set_answer(absl::StrCat("answer ", i));
    }
    return request;
  }

  // loop_ended: as a worker whose loop of the lost lease has ended (ReleaseRequest.unit_id set).
  absl::Status ReleaseLease(const v1::Lease& lease, bool loop_ended = false) {
    v1::ReleaseRequest request;
    request.set_worker_id("w1");
    request.set_lease_id(lease.lease_id());
    request.set_fencing_token(lease.fencing_token());
    request.set_reason("test");
    if (loop_ended) request.set_unit_id(lease.unit().id());
    v1::ReleaseResponse response;
    return core().Release(kToken, request, &response);
  }

  v1::StatusResponse StatusNow() {
    v1::StatusResponse status;
    EXPECT_TRUE(core().Status(kToken, v1::StatusRequest(), &status).ok());
    return status;
  }

  // The outcome of each unit of `units`, committed in one CompleteMany.
  std::vector<v1::CompleteOutcome> CompleteManyOf(const std::vector<v1::Lease>& units) {
    v1::CompleteManyResponse response;
    EXPECT_TRUE(core().CompleteMany(kToken, CompleteManyRequestOf(units), &response).ok());
    return std::vector<v1::CompleteOutcome>(response.outcomes().begin(), response.outcomes().end());
  }

  // The core the helpers above talk to: coordinator_'s unless a test points them at another.
  CoordinatorCore& core() { return target_->core(); }

  FakeClock clock_;
  TestCoordinator coordinator_;
  TestCoordinator* target_ = &coordinator_;
};

// A worker's round of units: more of them than the two-unit fixture plans.
class CompleteManyBatchTest : public CoordinatorCoreTest {
 protected:
  CompleteManyBatchTest() : CoordinatorCoreTest(4) {}

  static absl::StatusCode CodeOf(const v1::CompleteOutcome& outcome) {
    return static_cast<absl::StatusCode>(outcome.code());
  }
};

}  // namespace noveltygrid::testing

#endif  // NOVELTYGRID_TESTS_COORDINATOR_SERVICE_COORDINATOR_CORE_FIXTURE_H_
