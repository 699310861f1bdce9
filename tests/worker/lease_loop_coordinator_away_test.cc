// LeaseLoop while the coordinator is away or refuses: backoff, the reconnect window, stalled units,
// refused tokens and units that cannot start here (the fixture: lease_loop_fixture.h).
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/worker/lease_loop_fixture.h"

namespace noveltygrid::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

TEST_F(LeaseLoopTest, KeepsLeasingWithBackoffUntilTheCoordinatorIsBack) {
  Start(/*units=*/1, /*concurrency=*/1, kToken, /*reachable=*/false);
  // Run() backs off on the clock (next to the heartbeat thread) and asks nothing until it moves.
  clock_.AwaitWaiters(2);
  ASSERT_THAT(client_->log().leases, SizeIs(1));
  EXPECT_TRUE(absl::IsUnavailable(client_->log().leases[0].status));
  clock_.Advance(kMaxBackoff);
  client_->AwaitUntil([](const CallLog& log) { return log.leases.size() == 2; });
  clock_.AwaitWaiters(2);
  EXPECT_THAT(client_->log().leases, SizeIs(2));
  EXPECT_EQ(runner_.started(), 0);

  in_process_->SetReachable(true);
  clock_.Advance(kMaxBackoff);
  runner_.AwaitStarted(1);
  EXPECT_TRUE(client_->log().leases.back().status.ok());
  runner_.Finish(0, kStopIncoherent);
  client_->AwaitUntil([](const CallLog& log) { return log.completes.size() == 1; });
  loop_->Drain();
  ASSERT_TRUE(Join().ok()) << run_status_;
  EXPECT_THAT(coordinator_->committed(), SizeIs(1));
}

TEST_F(LeaseLoopTest, BacksOffWhileTheCoordinatorIsAwayAndRetriesTheCommitUntilAccepted) {
  Start(/*units=*/1, /*concurrency=*/1);
  runner_.AwaitStarted(1);
  EXPECT_TRUE(runner_.Step(0));
  client_->AwaitUntil([](const CallLog& log) { return log.StepsAccepted() == 1; });
  in_process_->SetReachable(false);
  runner_.Finish(0, kStopIncoherent);
  client_->AwaitUntil([](const CallLog& log) { return !log.completes.empty(); });
  // The lease loop (asking for more) and the sender (retrying the commit) back off on the clock,
  // next to the heartbeat thread; no call is repeated until the clock moves.
  clock_.AwaitWaiters(3);
  CallLog log = client_->log();
  ASSERT_THAT(log.completes, SizeIs(1));
  EXPECT_TRUE(absl::IsUnavailable(log.completes[0].status));
  const size_t leases = log.leases.size();
  EXPECT_TRUE(absl::IsUnavailable(log.leases.back().status));
  EXPECT_THAT(coordinator_->committed(), IsEmpty());

  clock_.Advance(kMaxBackoff);  // still away: each retries once
  client_->AwaitUntil([leases](const CallLog& log) { return log.completes.size() == 2 && log.leases.size() > leases; });
  clock_.AwaitWaiters(3);
  EXPECT_THAT(coordinator_->committed(), IsEmpty());

  in_process_->SetReachable(true);
  clock_.Advance(kMaxBackoff);
  client_->AwaitUntil([](const CallLog& log) { return log.completes.size() == 3; });
  log = client_->log();
  EXPECT_TRUE(log.completes[2].status.ok());
  EXPECT_TRUE(log.completes[2].response.accepted());
  ASSERT_THAT(coordinator_->committed(), SizeIs(1));
  loop_->Drain();
  ASSERT_TRUE(Join().ok()) << run_status_;
  EXPECT_EQ(loop_->stats().units_committed, 1);
  EXPECT_THAT(coordinator_->committed(), SizeIs(1));
}

// While the coordinator is away (a restart), a running unit goes on: the restarted coordinator gives
// its lease back. Only a coordinator away for longer than the reconnect window makes it stop.
TEST_F(LeaseLoopTest, RunningUnitsGoOnWhileTheCoordinatorIsAwayUntilTheReconnectWindowEnds) {
  reconnect_window_ = absl::Seconds(5);
  Start(/*units=*/1, /*concurrency=*/1);
  runner_.AwaitStarted(1);
  in_process_->SetReachable(false);
  for (int beat = 0; beat < 3; ++beat) Beat();      // failed: away for 0, 2 and 4 s
  clock_.AwaitDeadline(clock_.Now() + kHeartbeat);  // the heartbeat thread took note of the last one
  EXPECT_TRUE(runner_.unit(0).still_leased()) << "abandoned within the reconnect window";
  EXPECT_TRUE(runner_.Step(0));
  Beat();  // away for 6 s
  clock_.AwaitDeadline(clock_.Now() + kHeartbeat);
  EXPECT_FALSE(runner_.unit(0).still_leased());
  EXPECT_FALSE(runner_.Step(0));
  runner_.Finish(0, kStopIncoherent);
  in_process_->SetReachable(true);
  loop_->Drain();
  ASSERT_TRUE(Join().ok()) << run_status_;
  EXPECT_THAT(client_->log().completes, IsEmpty());
  EXPECT_THAT(coordinator_->committed(), IsEmpty());
  // Given up on by this worker, not taken back: no note that its loop ended (it would not arrive).
  EXPECT_THAT(client_->log().releases, IsEmpty());
}

// A unit with no step for longer than stall_multiple (2) x its call's timeout (1 s) is reported in
// heartbeats with the call it waits on; a step ends that.
TEST_F(LeaseLoopTest, AUnitWithoutStepsForLongIsReportedStalledWithItsCall) {
  Start(/*units=*/1, /*concurrency=*/1);
  runner_.AwaitStarted(1);
  waiting_since_ = clock_.Now();
  Beat();  // 2 s without a step: not beyond the threshold
  EXPECT_EQ(client_->log().heartbeats.back().request.calls().stalled(), 0);
  Beat();  // 4 s
  v1::CallWaits calls = client_->log().heartbeats.back().request.calls();
  EXPECT_EQ(calls.stalled(), 1);
  EXPECT_THAT(calls.stalled_unit(), HasSubstr("unit u0: no step or new call for 4s, waiting on generate by m for 4s"));
  // The coordinator's status carries it to `status` and the progress line.
  v1::StatusResponse status;
  ASSERT_TRUE(coordinator_->core().Status(kToken, v1::StatusRequest(), &status).ok());
  EXPECT_EQ(status.calls().stalled(), 1);
  EXPECT_THAT(status.calls().stalled_unit(), HasSubstr("waiting on generate by m"));
  EXPECT_TRUE(runner_.Step(0));
  Beat();
  EXPECT_EQ(client_->log().heartbeats.back().request.calls().stalled(), 0);
  runner_.Finish(0, kStopIncoherent);
  client_->AwaitUntil([](const CallLog& log) { return log.completes.size() == 1; });
  loop_->Drain();
  ASSERT_TRUE(Join().ok()) << run_status_;
}

TEST_F(LeaseLoopTest, ARefusedTokenEndsRunWithAnError) {
  Start(/*units=*/1, /*concurrency=*/1, /*token=*/"not-the-token");
  const absl::Status status = Join();
  EXPECT_TRUE(absl::IsUnauthenticated(status)) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr("refused this worker"));
  EXPECT_EQ(runner_.started(), 0);
  EXPECT_THAT(client_->log().leases, SizeIs(1));  // not retried
}

TEST_F(LeaseLoopTest, AUnitThatCannotStartHereIsHandedBack) {
  runner_.FailStarts(absl::FailedPreconditionError("no model m on this worker"));
  Start(/*units=*/1, /*concurrency=*/1);
  client_->AwaitUntil([](const CallLog& log) { return !log.releases.empty(); });
  const CallLog log = client_->log();
  EXPECT_EQ(log.releases[0].request.reason(), "no model m on this worker");
  EXPECT_TRUE(log.releases[0].status.ok());
  EXPECT_EQ(coordinator_->scheduler().Status().pending, 1);
  loop_->Drain();
  ASSERT_TRUE(Join().ok()) << run_status_;
  EXPECT_EQ(runner_.started(), 0);
}

}  // namespace
}  // namespace noveltygrid::testing
