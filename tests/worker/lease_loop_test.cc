// LeaseLoop against the real coordinator logic (CoordinatorCore through InProcessCoordinatorClient,
// wrapped in a RecordingClient), on a FakeClock, with a FakeUnitRunner whose units the test finishes
// by hand. Nothing sleeps: the test waits for calls (RecordingClient::AwaitUntil), for started units
// (FakeUnitRunner::AwaitStarted) and for the loop's threads to wait on the clock (FakeClock::AwaitDeadline
// / AwaitWaiters) before it advances time.
#include "worker/lease_loop.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/storage/keys.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/wire.h"
#include "tests/worker/lease_loop_fixture.h"

namespace noveltygrid::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::SizeIs;

// Records what a UnitObserver is told.
class RecordingObserver : public UnitObserver {
 public:
  void Leased(const v1::Lease& lease) override {
    absl::MutexLock lock(&mu_);
    leased_.push_back(lease.unit().id());
  }
  void Called(const CallStats& delta) override {
    absl::MutexLock lock(&mu_);
    deltas_.push_back(delta);
  }
  std::vector<std::string> leased() const {
    absl::MutexLock lock(&mu_);
    return leased_;
  }
  std::vector<CallStats> deltas() const {
    absl::MutexLock lock(&mu_);
    return deltas_;
  }

 private:
  mutable absl::Mutex mu_;
  std::vector<std::string> leased_ ABSL_GUARDED_BY(mu_);
  std::vector<CallStats> deltas_ ABSL_GUARDED_BY(mu_);
};

// With a round interval, the first step goes out at once and the steps made while the sender waits out
// the interval go out together, in one Report, when it has passed.
TEST_F(LeaseLoopTest, StepsMadeWithinTheRoundIntervalGoOutInOneReport) {
  round_interval_ = absl::Seconds(1);  // shorter than the heartbeat, so the sender's is the wait below
  Start(/*units=*/2, /*concurrency=*/2);
  runner_.AwaitStarted(2);
  EXPECT_TRUE(runner_.Step(0));
  client_->AwaitUntil([](const CallLog& log) { return log.StepsAccepted() == 1; });
  EXPECT_TRUE(runner_.Step(0));
  EXPECT_TRUE(runner_.Step(1));
  clock_.AwaitDeadline(clock_.Now() + absl::Seconds(1));
  EXPECT_THAT(client_->log().reports, SizeIs(1));
  clock_.Advance(absl::Seconds(1));
  client_->AwaitUntil([](const CallLog& log) { return log.StepsAccepted() == 3; });
  const CallLog log = client_->log();
  ASSERT_THAT(log.reports, SizeIs(2));
  EXPECT_EQ(log.reports[1].request.leases_size(), 2);
}

// Once no loop is left to add to the round, the sender does not wait out the interval: the last
// unit's commit goes at once (the fake clock never reaches the hour).
TEST_F(LeaseLoopTest, TheLastUnitsCommitDoesNotWaitForTheRoundInterval) {
  round_interval_ = absl::Hours(1);
  Start(/*units=*/1, /*concurrency=*/1);
  runner_.AwaitStarted(1);
  EXPECT_TRUE(runner_.Step(0));
  client_->AwaitUntil([](const CallLog& log) { return log.StepsAccepted() == 1; });  // the first round
  EXPECT_TRUE(runner_.Step(0));  // the second waits for the interval while the unit runs...
  runner_.Finish(0, kStopIncoherent);
  client_->AwaitUntil([](const CallLog& log) { return log.completes.size() == 1; });  // ...until it ends
  const CallLog log = client_->log();
  EXPECT_TRUE(log.completes[0].response.accepted());
  EXPECT_EQ(log.completes[0].request.answers_size(), 2);
}

// Metrics see each unit's calls as they happen -- what every step added, and at the end what came
// after the last step -- whether the unit is committed or cancelled, and never twice.
TEST_F(LeaseLoopTest, TellsTheObserverWhatEachStepAndEachEndAdded) {
  RecordingObserver observer;
  observer_ = &observer;
  Start(/*units=*/2, /*concurrency=*/2);
  runner_.AwaitStarted(2);
  EXPECT_THAT(observer.leased(), ::testing::UnorderedElementsAre("u0", "u1"));
  EXPECT_TRUE(runner_.Step(0));
  EXPECT_TRUE(runner_.Step(0));
  EXPECT_TRUE(runner_.Step(1));
  runner_.Finish(0, kStopIncoherent);
  runner_.Finish(1, kStopCancelled);
  const std::vector<CallStats> deltas = observer.deltas();
  ASSERT_THAT(deltas, SizeIs(5));  // three steps, two ends
  CallStats total;
  for (const CallStats& delta : deltas) {
    ASSERT_THAT(delta, SizeIs(1)) << "each told only what was new";
    MergeCallStats(delta, total);
  }
  EXPECT_EQ(total["generate:m"].requests, 3);
  EXPECT_EQ(total["judge:j"].requests, 2);
}

TEST_F(LeaseLoopTest, LeasesReportsHeartbeatsAndCommitsAUnitOnce) {
  // Two slots for one unit: while it runs, the loop keeps asking for more every retry_after.
  Start(/*units=*/1, /*concurrency=*/2);
  runner_.AwaitStarted(1);
  EXPECT_EQ(runner_.unit(0).lease.unit().id(), "u0");
  // The settings came once in the response (the loop asks for that) and reached the unit's lease.
  EXPECT_TRUE(client_->log().leases.front().request.shared_settings());
  EXPECT_EQ(client_->log().leases.front().response.shared_size(), 1);
  EXPECT_FALSE(client_->log().leases.front().response.leases(0).has_aidan());
  EXPECT_EQ(runner_.unit(0).lease.aidan().judge(), "judge");
  EXPECT_THAT(runner_.unit(0).checkpoint.answers, IsEmpty());
  EXPECT_TRUE(runner_.unit(0).still_leased());

  EXPECT_TRUE(runner_.Step(0));
  EXPECT_TRUE(runner_.Step(0));
  client_->AwaitUntil([](const CallLog& log) { return log.StepsAccepted() == 2; });
  for (const auto& report : client_->log().reports) EXPECT_THAT(report.response.rejected_lease_ids(), IsEmpty());

  Beat();
  const v1::HeartbeatRequest beat = client_->log().heartbeats.back().request;
  ASSERT_THAT(beat.leases(), SizeIs(1));
  EXPECT_EQ(beat.leases(0).lease_id(), runner_.unit(0).lease.lease_id());
  EXPECT_EQ(beat.leases(0).steps_done(), 2);
  EXPECT_EQ(beat.loops_in_flight(), 1);
  EXPECT_EQ(beat.capacity(), 2);
  EXPECT_FALSE(beat.draining());

  // The beat also ended the loop's pause: wait until it pauses again, so that it asks next only after
  // the commit is in.
  clock_.AwaitDeadline(clock_.Now() + kIdleRetry);
  runner_.Finish(0, kStopIncoherent);
  client_->AwaitUntil([](const CallLog& log) { return log.completes.size() == 1; });
  // The sweep is complete once the commit is in: the next lease says so and Run() returns by itself.
  clock_.Advance(kIdleRetry);
  ASSERT_TRUE(Join().ok()) << run_status_;
  const CallLog log = client_->log();
  ASSERT_THAT(log.completes, SizeIs(1));
  EXPECT_TRUE(log.completes[0].response.accepted());
  EXPECT_EQ(log.completes[0].request.answers_size(), 2);
  ASSERT_THAT(coordinator_->committed(), SizeIs(1));
  EXPECT_EQ(coordinator_->committed()[0].unit.id, "u0");
  EXPECT_EQ(coordinator_->committed()[0].answers.size(), 2u);
  EXPECT_TRUE(log.leases.back().response.sweep_complete());
  EXPECT_TRUE(log.heartbeats.back().request.leaving());  // the goodbye
  const LeaseLoop::Stats stats = loop_->stats();
  EXPECT_EQ(stats.units_started, 1);
  EXPECT_EQ(stats.units_committed, 1);
  EXPECT_EQ(stats.steps_reported, 2);
  EXPECT_EQ(stats.units_released, 0);
}

TEST_F(LeaseLoopTest, CommitsARoundsUnitsInOneCompleteManyAndFallsBackToCompleteForAnOlderCoordinator) {
  Start(/*units=*/3, /*concurrency=*/3);
  runner_.AwaitStarted(3);
  runner_.Finish(0, kStopIncoherent);
  runner_.Finish(1, kStopIncoherent);
  client_->AwaitUntil([](const CallLog& log) { return log.completes.size() == 2; });
  for (const auto& call : client_->log().complete_manys) EXPECT_TRUE(call.status.ok()) << call.status;

  // A coordinator without CompleteMany: the unit is committed with Complete.
  client_->SetCompleteManyUnimplemented(true);
  runner_.Finish(2, kStopIncoherent);
  client_->AwaitUntil([](const CallLog& log) { return log.completes.size() == 3; });
  const CallLog log = client_->log();
  EXPECT_TRUE(absl::IsUnimplemented(log.complete_manys.back().status));
  EXPECT_TRUE(log.completes.back().status.ok());
  EXPECT_TRUE(log.completes.back().response.accepted());
  ASSERT_THAT(coordinator_->committed(), SizeIs(3));
  clock_.Advance(kIdleRetry);
  ASSERT_TRUE(Join().ok()) << run_status_;
  EXPECT_EQ(loop_->stats().units_committed, 3);
}

TEST_F(LeaseLoopTest, WaitsForTheCoordinatorsRetryWhenNothingIsFree) {
  Start(/*units=*/1, /*concurrency=*/2);
  runner_.AwaitStarted(1);
  // One unit running, one slot free: the loop asks again only after retry_after.
  clock_.AwaitDeadline(clock_.Now() + kIdleRetry);
  const size_t leases = client_->log().leases.size();
  EXPECT_EQ(leases, 2u);
  clock_.Advance(kIdleRetry);
  client_->AwaitUntil([leases](const CallLog& log) { return log.leases.size() > leases; });
  EXPECT_EQ(runner_.started(), 1);
  runner_.Finish(0, kStopIncoherent);
  client_->AwaitUntil([](const CallLog& log) { return log.completes.size() == 1; });
  loop_->Drain();
  ASSERT_TRUE(Join().ok()) << run_status_;
}

TEST_F(LeaseLoopTest, DrainHandsARunningUnitBackAfterTheGrace) {
  Start(/*units=*/1, /*concurrency=*/1);
  runner_.AwaitStarted(1);
  EXPECT_TRUE(runner_.Step(0));
  client_->AwaitUntil([](const CallLog& log) { return log.StepsAccepted() == 1; });
  loop_->Drain();
  // Within the grace the unit keeps running and keeps its lease.
  clock_.AwaitDeadline(clock_.Now() + absl::Seconds(30));
  EXPECT_THAT(client_->log().releases, IsEmpty());
  EXPECT_EQ(aborts_.load(), 0);
  EXPECT_TRUE(runner_.unit(0).still_leased());
  clock_.Advance(absl::Seconds(30));
  ASSERT_TRUE(Join().ok()) << run_status_;

  EXPECT_EQ(aborts_.load(), 1);  // the unit's calls were ended
  const CallLog log = client_->log();
  ASSERT_THAT(log.releases, SizeIs(1));
  EXPECT_EQ(log.releases[0].request.lease_id(), runner_.unit(0).lease.lease_id());
  EXPECT_EQ(log.releases[0].request.reason(), "worker draining");
  EXPECT_THAT(log.completes, IsEmpty());
  EXPECT_THAT(coordinator_->committed(), IsEmpty());
  EXPECT_EQ(loop_->stats().units_released, 1);
  // Back to pending, its reported step kept for the next worker.
  std::vector<LeaseGrant> again = coordinator_->scheduler().Lease("w2", 1);
  ASSERT_THAT(again, SizeIs(1));
  EXPECT_THAT(again[0].checkpoint, SizeIs(1));
}

TEST_F(LeaseLoopTest, DrainWaitsForAUnitThatFinishesWithinTheGrace) {
  Start(/*units=*/1, /*concurrency=*/1);
  runner_.AwaitStarted(1);
  loop_->Drain();
  clock_.AwaitDeadline(clock_.Now() + absl::Seconds(30));
  EXPECT_TRUE(runner_.Step(0));
  runner_.Finish(0, kStopRepetitive);
  ASSERT_TRUE(Join().ok()) << run_status_;
  EXPECT_EQ(aborts_.load(), 0);
  EXPECT_THAT(client_->log().releases, IsEmpty());
  ASSERT_THAT(coordinator_->committed(), SizeIs(1));
  EXPECT_EQ(coordinator_->committed()[0].stop_reason, kStopRepetitive);
}

TEST_F(LeaseLoopTest, ALeaseTheCoordinatorTookBackIsAbandonedAndNotCommitted) {
  Start(/*units=*/1, /*concurrency=*/1);
  runner_.AwaitStarted(1);
  const v1::Lease lease = runner_.unit(0).lease;
  // The coordinator takes the lease back (it expired there) and hands the unit to another worker.
  coordinator_->scheduler().Release(lease.lease_id(), lease.fencing_token());
  ASSERT_THAT(coordinator_->scheduler().Lease("w2", 1), SizeIs(1));
  Beat();
  EXPECT_THAT(client_->log().heartbeats.back().response.lost_lease_ids(), ::testing::ElementsAre(lease.lease_id()));
  // The heartbeat thread waits again only after it has taken note.
  clock_.AwaitDeadline(clock_.Now() + kHeartbeat);
  EXPECT_FALSE(runner_.unit(0).still_leased());
  EXPECT_FALSE(runner_.Step(0));  // the unit is told to stop
  runner_.Finish(0, kStopIncoherent);
  loop_->Drain();
  ASSERT_TRUE(Join().ok()) << run_status_;
  EXPECT_THAT(client_->log().completes, IsEmpty());
  // Its loop has ended: the coordinator is told which unit, so that it can delete the checkpoint
  // the loop may have rewritten after the unit was committed elsewhere.
  ASSERT_THAT(client_->log().releases, SizeIs(1));
  EXPECT_EQ(client_->log().releases[0].request.lease_id(), lease.lease_id());
  EXPECT_EQ(client_->log().releases[0].request.unit_id(), lease.unit().id());
  EXPECT_EQ(loop_->stats().units_released, 0);
  EXPECT_THAT(coordinator_->committed(), IsEmpty());
  EXPECT_EQ(client_->log().StepsAccepted(), 0);
  EXPECT_EQ(loop_->stats().units_committed, 0);
}

TEST_F(LeaseLoopTest, AStoredCheckpointThatLostStepsCatchesUpWithTheNextStep) {
  checkpoints_ = std::make_unique<CheckpointStore>(&store_);
  Start(/*units=*/1, /*concurrency=*/1);
  runner_.AwaitStarted(1);
  EXPECT_TRUE(runner_.Step(0));
  EXPECT_TRUE(runner_.Step(0));
  ASSERT_THAT(checkpoints_->Load("u0").answers, SizeIs(2));
  // The store loses the list (a Redis restart without persistence): the next step stores all three.
  ASSERT_TRUE(store_.Delete(keys::Checkpoint("u0")).ok());
  EXPECT_TRUE(runner_.Step(0));
  const UnitCheckpoint stored = checkpoints_->Load("u0");
  ASSERT_THAT(stored.answers, SizeIs(3));
  EXPECT_EQ(stored.answers[1].answer, "answer 2");
  EXPECT_THAT(stored.embeddings[1], ElementsAre(1.0f, 2.0f));
  runner_.Finish(0, kStopIncoherent);
  client_->AwaitUntil([](const CallLog& log) { return log.completes.size() == 1; });
  loop_->Drain();
  ASSERT_TRUE(Join().ok()) << run_status_;
}

TEST_F(LeaseLoopTest, AUnitResumesFromTheLongerOfTheLeaseAndTheStoredCheckpoint) {
  checkpoints_ = std::make_unique<CheckpointStore>(&store_);
  std::vector<StepRecord> steps(3);
  for (int n = 1; n <= 3; ++n) {
    steps[n - 1].answer_num = n;
    steps[n - 1].answer = absl::StrCat("stored ", n);
  }
  size_t own = 0;
  checkpoints_->CatchUp("u0", steps, std::vector<Embedding>(3, {1.0f}), &own);
  Start(/*units=*/1, /*concurrency=*/1);
  runner_.AwaitStarted(1);
  ASSERT_THAT(runner_.unit(0).checkpoint.answers, SizeIs(3));
  EXPECT_EQ(runner_.unit(0).checkpoint.answers[2].answer, "stored 3");
  // Each new step is persisted before it is reported.
  EXPECT_TRUE(runner_.Step(0));
  EXPECT_THAT(checkpoints_->Load("u0").answers, SizeIs(4));
  runner_.Finish(0, kStopIncoherent);
  client_->AwaitUntil([](const CallLog& log) { return log.completes.size() == 1; });
  loop_->Drain();
  ASSERT_TRUE(Join().ok()) << run_status_;
  ASSERT_THAT(coordinator_->committed(), SizeIs(1));
  EXPECT_EQ(coordinator_->committed()[0].answers.size(), 4u);
}

// Every step the coordinator took from this worker's reports, in order.
std::vector<v1::Step> ReportedSteps(const CallLog& log) {
  std::vector<v1::Step> steps;
  for (const auto& call : log.reports) {
    if (!call.status.ok()) continue;
    for (const v1::LeaseSteps& lease : call.request.leases())
      steps.insert(steps.end(), lease.steps().begin(), lease.steps().end());
  }
  return steps;
}

TEST_F(LeaseLoopTest, AReportLeavesOutTheEmbeddingOfAStepTheCheckpointStoreHolds) {
  checkpoints_ = std::make_unique<CheckpointStore>(&store_);
  Start(/*units=*/1, /*concurrency=*/1);
  runner_.AwaitStarted(1);
  EXPECT_TRUE(runner_.Step(0));
  client_->AwaitUntil([](const CallLog& log) { return log.StepsAccepted() == 1; });
  // The store refuses the next step (the key now holds another kind): its report carries the embedding.
  ASSERT_TRUE(store_.Delete(keys::Checkpoint("u0")).ok());
  ASSERT_TRUE(store_.Set(keys::Checkpoint("u0"), "not a list").ok());
  EXPECT_TRUE(runner_.Step(0));
  client_->AwaitUntil([](const CallLog& log) { return log.StepsAccepted() == 2; });
  const std::vector<v1::Step> reported = ReportedSteps(client_->log());
  ASSERT_THAT(reported, SizeIs(2));
  EXPECT_TRUE(reported[0].embedding_in_store());
  EXPECT_THAT(reported[0].embedding(), IsEmpty());
  EXPECT_FALSE(reported[1].embedding_in_store());
  EXPECT_THAT(reported[1].embedding(), ElementsAre(1.0f, 2.0f));
  FinishTheUnitAndStop();
}

TEST_F(LeaseLoopTest, WithoutACheckpointStoreAReportCarriesEveryEmbedding) {
  Start(/*units=*/1, /*concurrency=*/1);
  runner_.AwaitStarted(1);
  EXPECT_TRUE(runner_.Step(0));
  client_->AwaitUntil([](const CallLog& log) { return log.StepsAccepted() == 1; });
  const std::vector<v1::Step> reported = ReportedSteps(client_->log());
  ASSERT_THAT(reported, SizeIs(1));
  EXPECT_FALSE(reported[0].embedding_in_store());
  EXPECT_THAT(reported[0].embedding(), ElementsAre(1.0f, 1.0f));
  FinishTheUnitAndStop();
}

// Unit u0's history before this worker, reported by an earlier one that then released the unit.
class ResumeFromReportsTest : public LeaseLoopTest {
 protected:
  void SetUp() override {
    PrepareCoordinator(/*units=*/1);
    checkpoints_ = std::make_unique<CheckpointStore>(&store_);
  }

  // Steps 1..n reported ("reported N", embedding {9, N}), from `first_left_to_store` on without the
  // embedding (its worker's store took them).
  void ReportEarlierRun(int n, int first_left_to_store) {
    std::vector<LeaseGrant> first = coordinator_->scheduler().Lease("w0", 1);
    ASSERT_THAT(first, SizeIs(1));
    std::vector<CheckpointStep> steps;
    for (int i = 1; i <= n; ++i) {
      StepRecord record;
      record.answer_num = i;
      record.answer = absl::StrCat("reported ", i);
      const Embedding embedding = {9.0f, static_cast<float>(i)};
      v1::Step step;
      const bool left = i >= first_left_to_store;
      ToProto(record, left ? nullptr : &embedding, &step);
      step.set_embedding_in_store(left);
      steps.push_back({i, step.SerializeAsString()});
    }
    ASSERT_TRUE(coordinator_->scheduler().Report(first[0].lease_id, first[0].fencing_token, std::move(steps)));
    coordinator_->scheduler().Release(first[0].lease_id, first[0].fencing_token);
  }

  // Steps 1..n in the store's list ("stored N", embedding {1, N}).
  void Store(int n) {
    std::vector<StepRecord> stored(n);
    std::vector<Embedding> embeddings;
    for (int i = 1; i <= n; ++i) {
      stored[i - 1].answer_num = i;
      stored[i - 1].answer = absl::StrCat("stored ", i);
      embeddings.push_back({1.0f, static_cast<float>(i)});
    }
    size_t own = 0;
    ASSERT_TRUE(checkpoints_->CatchUp("u0", stored, embeddings, &own));
  }

  const UnitCheckpoint& Resumed() {
    Start(/*units=*/1, /*concurrency=*/1);
    runner_.AwaitStarted(1);
    return runner_.unit(0).checkpoint;
  }
};

TEST_F(ResumeFromReportsTest, StepsLeftToTheStoreAreTakenFromIt) {
  ReportEarlierRun(/*n=*/2, /*first_left_to_store=*/2);
  Store(2);
  const UnitCheckpoint& resumed = Resumed();
  ASSERT_THAT(resumed.answers, SizeIs(2));
  EXPECT_EQ(resumed.answers[1].answer, "stored 2");
  EXPECT_THAT(resumed.embeddings, ElementsAre(ElementsAre(1.0f, 1.0f), ElementsAre(1.0f, 2.0f)));
  FinishTheUnitAndStop();
}

TEST_F(ResumeFromReportsTest, WithoutThemInTheStoreTheReportedStepsEndBeforeTheFirstLeftToIt) {
  ReportEarlierRun(/*n=*/2, /*first_left_to_store=*/2);  // and the store lost the unit's list
  const UnitCheckpoint& resumed = Resumed();
  ASSERT_THAT(resumed.answers, SizeIs(1));
  EXPECT_EQ(resumed.answers[0].answer, "reported 1");
  EXPECT_THAT(resumed.embeddings, ElementsAre(ElementsAre(9.0f, 1.0f)));
  FinishTheUnitAndStop();
}

TEST_F(ResumeFromReportsTest, AsLongAsTheCutLeasedStepsTheStoresListIsTakenAndWrittenOn) {
  ReportEarlierRun(/*n=*/2, /*first_left_to_store=*/2);  // cut to step 1
  Store(1);
  const UnitCheckpoint& resumed = Resumed();
  ASSERT_THAT(resumed.answers, SizeIs(1));
  EXPECT_EQ(resumed.answers[0].answer, "stored 1");
  EXPECT_TRUE(runner_.Step(0));  // step 2 goes into the list it resumed from, and leaves it the embedding
  client_->AwaitUntil([](const CallLog& log) { return log.StepsAccepted() == 1; });
  EXPECT_THAT(checkpoints_->Load("u0").answers, SizeIs(2));
  const std::vector<v1::Step> reported = ReportedSteps(client_->log());
  ASSERT_THAT(reported, SizeIs(1));
  EXPECT_TRUE(reported[0].embedding_in_store());
  FinishTheUnitAndStop();
}

// The coordinator takes this loop's next step after the lease's steps: resuming from a list of
// another history as long as them would splice the two there.
TEST_F(ResumeFromReportsTest, AsLongAsWholeLeasedStepsTheListIsLeftAlone) {
  ReportEarlierRun(/*n=*/1, /*first_left_to_store=*/2);  // step 1 with its embedding
  Store(1);
  const UnitCheckpoint& resumed = Resumed();
  ASSERT_THAT(resumed.answers, SizeIs(1));
  EXPECT_EQ(resumed.answers[0].answer, "reported 1");
  EXPECT_TRUE(runner_.Step(0));
  client_->AwaitUntil([](const CallLog& log) { return log.StepsAccepted() == 1; });
  EXPECT_EQ(*store_.ListLength(keys::Checkpoint("u0")), 1);
  const std::vector<v1::Step> reported = ReportedSteps(client_->log());
  ASSERT_THAT(reported, SizeIs(1));
  EXPECT_FALSE(reported[0].embedding_in_store());
  FinishTheUnitAndStop();
}

TEST_F(ResumeFromReportsTest, ALoopNotResumedFromTheListLeavesItAloneAndReportsItsEmbeddings) {
  ReportEarlierRun(/*n=*/3, /*first_left_to_store=*/4);  // three whole steps
  Store(2);                                              // of another history, and shorter
  const UnitCheckpoint& resumed = Resumed();
  ASSERT_THAT(resumed.answers, SizeIs(3));
  EXPECT_EQ(resumed.answers[2].answer, "reported 3");
  // Step 4 after the list's two steps would splice the two histories.
  EXPECT_TRUE(runner_.Step(0));
  client_->AwaitUntil([](const CallLog& log) { return log.StepsAccepted() == 1; });
  EXPECT_EQ(*store_.ListLength(keys::Checkpoint("u0")), 2);
  const std::vector<v1::Step> reported = ReportedSteps(client_->log());
  ASSERT_THAT(reported, SizeIs(1));
  EXPECT_EQ(reported[0].answer_num(), 4);
  EXPECT_FALSE(reported[0].embedding_in_store());
  EXPECT_THAT(reported[0].embedding(), ElementsAre(1.0f, 4.0f));
  FinishTheUnitAndStop();
}

}  // namespace
}  // namespace noveltygrid::testing
