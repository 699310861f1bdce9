#include "bench/coordinator_load/worker_book.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "bench/coordinator_load/report_wire.h"
#include "gtest/gtest.h"

namespace noveltygrid::load {
namespace {

constexpr absl::Duration kStep = absl::Milliseconds(10);

class WorkerBookTest : public ::testing::Test {
 protected:
  WorkerBookTest() : pool_(8, 40, 4, /*seed=*/1), book_(Options(), &pool_) {}

  static FakeWorkerOptions Options() {
    FakeWorkerOptions o;
    o.worker_id = "w";
    o.loops = 2;
    o.step_interval = kStep;
    o.iterations = 7;  // 5 to 9 steps a unit
    return o;
  }

  // Two leases, "L0" and "L1" (tokens 10 and 11, units "u0" and "u1"), answered at t0_.
  void LeaseTwo() {
    v1::LeaseResponse response;
    for (int i = 0; i < 2; ++i) {
      v1::Lease* lease = response.add_leases();
      lease->set_lease_id(absl::StrCat("L", i));
      lease->set_fencing_token(10 + i);
      lease->mutable_unit()->set_id(absl::StrCat("u", i));
      lease->mutable_aidan()->set_max_iterations(30);
    }
    EXPECT_EQ(book_.LeaseAnswered(absl::OkStatus(), response, 2, t0_), absl::ZeroDuration());  // ask again at once
  }

  // A round's Report as the coordinator parses it.
  static v1::ReportRequest Parse(const WireReport& report) {
    v1::ReportRequest request;
    EXPECT_TRUE(request.ParseFromString(Flatten(report.bytes)));
    return request;
  }

  const absl::Time t0_ = absl::Now();
  StepPool pool_;
  WorkerBook book_;
};

TEST_F(WorkerBookTest, ARoundReportsEachLeasesStepsMadeSinceTheLast) {
  LeaseTwo();
  EXPECT_EQ(book_.FreeSlots(), 0);
  EXPECT_TRUE(book_.TakeRound(t0_ + kStep / 2).reports.empty());  // nothing due yet

  const WorkerBook::Round round = book_.TakeRound(t0_ + kStep);
  ASSERT_EQ(round.reports.size(), 1u);
  EXPECT_TRUE(round.commits.empty());
  EXPECT_EQ(round.reports[0].steps, 2);
  const v1::ReportRequest report = Parse(round.reports[0]);
  EXPECT_EQ(report.worker_id(), "w");
  ASSERT_EQ(report.leases_size(), 2);
  for (const v1::LeaseSteps& lease : report.leases()) {
    const int i = lease.lease_id() == "L0" ? 0 : 1;
    EXPECT_EQ(lease.lease_id(), absl::StrCat("L", i));
    EXPECT_EQ(lease.fencing_token(), 10u + i);
    ASSERT_EQ(lease.steps_size(), 1);
    EXPECT_EQ(lease.steps(0).answer_num(), 1);
    EXPECT_DOUBLE_EQ(lease.steps(0).novelty(), 1.0);
    EXPECT_EQ(lease.steps(0).embedding_size(), 4);
  }
  book_.ReportAnswered(absl::OkStatus(), round.reports[0].steps, v1::ReportResponse());
  EXPECT_EQ(book_.counters().steps_reported, 2);
  EXPECT_EQ(book_.counters().steps_made, 2);
}

TEST(StepPoolTest, StepsLeftToTheStoreCarryTheFlagAndNoEmbedding) {
  const StepPool reported(2, 40, 4, /*seed=*/1);
  const StepPool stored(2, 40, 4, /*seed=*/1, /*embedding_in_store=*/true);
  v1::Step with, without;
  ASSERT_TRUE(with.ParseFromString(reported.FixedStep(1)));
  ASSERT_TRUE(without.ParseFromString(stored.FixedStep(1)));
  EXPECT_EQ(with.embedding_size(), 4);
  EXPECT_FALSE(with.embedding_in_store());
  EXPECT_EQ(without.embedding_size(), 0);
  EXPECT_TRUE(without.embedding_in_store());
  EXPECT_EQ(without.answer(), with.answer());
  EXPECT_LT(stored.FixedStep(1).size(), reported.FixedStep(1).size());
}

TEST_F(WorkerBookTest, ALoopAtItsTargetEndsInACommitOfEveryAnswerAndFreesItsSlot) {
  LeaseTwo();
  book_.TakeRound(t0_ + kStep);  // step 1 of each
  // Steps 2 and 3: a loop behind makes every step due by the round's time.
  const WorkerBook::Round behind = book_.TakeRound(t0_ + 3 * kStep);
  ASSERT_EQ(behind.reports.size(), 1u);
  const v1::ReportRequest report = Parse(behind.reports[0]);
  ASSERT_EQ(report.leases_size(), 2);
  for (const v1::LeaseSteps& lease : report.leases()) {
    ASSERT_EQ(lease.steps_size(), 2) << lease.lease_id();
    EXPECT_EQ(lease.steps(0).answer_num(), 2);
    EXPECT_EQ(lease.steps(1).answer_num(), 3);
  }
  // Long after: each loop reaches its target (5 to 9 steps) and ends. Its steps of this round are not
  // reported -- its commit carries every answer, as the real worker's does.
  const WorkerBook::Round round = book_.TakeRound(t0_ + 20 * kStep);
  EXPECT_TRUE(round.reports.empty());
  ASSERT_EQ(round.commits.size(), 2u);
  EXPECT_EQ(book_.FreeSlots(), 2);
  EXPECT_EQ(book_.counters().loops_running, 0);
  EXPECT_EQ(book_.counters().completes_waiting, 2);
  int answers = 0;
  for (const Commit& commit : round.commits) {
    v1::CompleteRequest complete;
    ASSERT_TRUE(complete.ParseFromString(commit.head + *commit.result));
    EXPECT_EQ(complete.lease_id(), commit.lease_id);
    EXPECT_EQ(complete.worker_id(), "w");
    EXPECT_EQ(complete.max_iterations(), 30);
    EXPECT_GE(complete.answers_size(), 5);
    EXPECT_LE(complete.answers_size(), 9);
    for (int n = 0; n < complete.answers_size(); ++n) EXPECT_EQ(complete.answers(n).answer_num(), n + 1);
    answers += complete.answers_size();
  }
  EXPECT_EQ(book_.counters().steps_made, answers);
  EXPECT_TRUE(book_.TakeRound(t0_ + 40 * kStep).reports.empty());  // ended loops make no steps
}

TEST_F(WorkerBookTest, CommitsAreSettledByTheirOutcomesAndTheUnsettledComeBack) {
  LeaseTwo();
  std::vector<Commit> commits = book_.TakeRound(t0_ + 20 * kStep).commits;
  ASSERT_EQ(commits.size(), 2u);
  v1::CompleteManyRequest request;
  ASSERT_TRUE(request.ParseFromString(Flatten(book_.CompleteManyRequest(commits))));
  EXPECT_EQ(request.worker_id(), "w");
  ASSERT_EQ(request.units_size(), 2);
  EXPECT_EQ(request.units(0).lease_id(), commits[0].lease_id);

  // A failed call settles nothing.
  commits = book_.CompleteManyAnswered(std::move(commits), absl::UnavailableError("down"), {});
  EXPECT_EQ(commits.size(), 2u);
  const std::string second = commits[1].lease_id;
  v1::CompleteManyResponse response;
  response.add_outcomes()->mutable_response()->set_accepted(true);
  response.add_outcomes()->set_code(static_cast<int>(absl::StatusCode::kUnavailable));
  commits = book_.CompleteManyAnswered(std::move(commits), absl::OkStatus(), response);
  ASSERT_EQ(commits.size(), 1u);
  EXPECT_EQ(commits[0].lease_id, second);
  EXPECT_EQ(book_.counters().units_committed, 1);
  EXPECT_FALSE(book_.AwaitSettled(2, absl::Now() + absl::Milliseconds(1)));

  v1::CompleteManyResponse not_found;
  not_found.add_outcomes()->set_code(static_cast<int>(absl::StatusCode::kNotFound));
  EXPECT_TRUE(book_.CompleteManyAnswered(std::move(commits), absl::OkStatus(), not_found).empty());
  EXPECT_EQ(book_.counters().units_refused, 1);
  EXPECT_EQ(book_.counters().completes_waiting, 0);
  EXPECT_TRUE(book_.AwaitSettled(2, absl::Now()));
}

TEST_F(WorkerBookTest, AHeartbeatListsEveryLeaseAndItsAnswerDropsTheLost) {
  LeaseTwo();
  book_.TakeRound(t0_ + kStep);
  v1::HeartbeatRequest heartbeat = book_.HeartbeatRequest();
  EXPECT_EQ(heartbeat.worker_id(), "w");
  EXPECT_EQ(heartbeat.loops_in_flight(), 2);
  EXPECT_EQ(heartbeat.capacity(), 2);
  ASSERT_EQ(heartbeat.leases_size(), 2);
  for (const v1::LeaseProgress& p : heartbeat.leases()) EXPECT_EQ(p.steps_done(), 1);

  v1::HeartbeatResponse lost;
  lost.add_lost_lease_ids("L0");
  lost.add_lost_lease_ids("unknown");
  book_.HeartbeatAnswered(lost);
  EXPECT_EQ(book_.counters().units_refused, 1);
  EXPECT_EQ(book_.counters().loops_running, 1);
  EXPECT_EQ(book_.FreeSlots(), 1);
  const WorkerBook::Round round = book_.TakeRound(t0_ + 2 * kStep);
  ASSERT_EQ(round.reports.size(), 1u);
  const v1::ReportRequest report = Parse(round.reports[0]);
  ASSERT_EQ(report.leases_size(), 1);
  EXPECT_EQ(report.leases(0).lease_id(), "L1");
}

TEST_F(WorkerBookTest, AReportsRefusalsDropTheirLoopsAndAFailedReportCountsNothing) {
  LeaseTwo();
  const WorkerBook::Round round = book_.TakeRound(t0_ + kStep);
  ASSERT_EQ(round.reports.size(), 1u);
  book_.ReportAnswered(absl::DeadlineExceededError("late"), round.reports[0].steps, v1::ReportResponse());
  EXPECT_EQ(book_.counters().steps_reported, 0);
  v1::ReportResponse refused;
  refused.add_rejected_lease_ids("L1");
  book_.ReportAnswered(absl::OkStatus(), round.reports[0].steps, refused);
  EXPECT_EQ(book_.counters().steps_reported, 2);
  EXPECT_EQ(book_.counters().units_refused, 1);
  EXPECT_EQ(book_.FreeSlots(), 1);
  EXPECT_EQ(book_.HeartbeatRequest().leases_size(), 1);
}

TEST_F(WorkerBookTest, ACompleteManyAnswerOfTheWrongLengthSettlesNothing) {
  LeaseTwo();
  std::vector<Commit> commits = book_.TakeRound(t0_ + 20 * kStep).commits;
  ASSERT_EQ(commits.size(), 2u);
  v1::CompleteManyResponse one;
  one.add_outcomes()->mutable_response()->set_accepted(true);
  EXPECT_EQ(book_.CompleteManyAnswered(std::move(commits), absl::OkStatus(), one).size(), 2u);
  EXPECT_EQ(book_.counters().units_committed, 0);
}

TEST_F(WorkerBookTest, ALeaseAnswerSaysWhenToAskAgain) {
  EXPECT_EQ(book_.LeaseAnswered(absl::UnavailableError("down"), v1::LeaseResponse(), 2, t0_), WorkerBook::kRetryPause);
  v1::LeaseResponse none;
  none.set_retry_after_ms(20);
  EXPECT_EQ(book_.LeaseAnswered(absl::OkStatus(), none, 2, t0_), absl::Milliseconds(50));  // at least 50 ms
  none.set_retry_after_ms(300);
  EXPECT_EQ(book_.LeaseAnswered(absl::OkStatus(), none, 2, t0_), absl::Milliseconds(300));
  none.set_sweep_complete(true);
  EXPECT_EQ(book_.LeaseAnswered(absl::OkStatus(), none, 2, t0_), absl::InfiniteDuration());
  EXPECT_EQ(book_.counters().short_leases, 3);  // the failed call is not an answer
  LeaseTwo();
  EXPECT_EQ(book_.counters().units_leased, 2);
}

TEST_F(WorkerBookTest, ALeaseAnswerShortOfTheAskIsCountedAndStoppingEndsTheWaits) {
  EXPECT_EQ(book_.LeaseAnswered(absl::OkStatus(), v1::LeaseResponse(), 2, t0_), absl::Milliseconds(50));
  EXPECT_EQ(book_.counters().short_leases, 1);
  EXPECT_EQ(book_.AwaitFreeSlots(), 2);
  EXPECT_EQ(book_.LeaseRequest(2).max_units(), 2);
  EXPECT_TRUE(book_.LeaseRequest(2).shared_settings());
  book_.Stop();
  EXPECT_TRUE(book_.Stopping());
  EXPECT_EQ(book_.FreeSlots(), 0);
  EXPECT_EQ(book_.AwaitFreeSlots(), 0);
  EXPECT_FALSE(book_.Pause(absl::Hours(1)));  // at once
}

}  // namespace
}  // namespace noveltygrid::load
