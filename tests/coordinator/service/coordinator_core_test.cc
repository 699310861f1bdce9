// CoordinatorCore: the coordinator service's logic without gRPC -- leases, heartbeats, reports,
// commits (fencing, duplicates, durability), releases, status and the shared token -- and the
// in-process client over it.
#include "coordinator/service/coordinator_core.h"

#include <map>
#include <string>
#include <vector>

#include "coordinator/service/in_process_client.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/wire.h"
#include "tests/coordinator/service/coordinator_core_fixture.h"
#include "tests/coordinator/service/test_coordinator.h"

namespace noveltygrid::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

TEST_F(CoordinatorCoreTest, LeaseCarriesTheUnitItsSettingsAndTheIntervals) {
  const v1::LeaseResponse response = LeaseUpTo(5);
  ASSERT_EQ(response.leases_size(), 2);
  EXPECT_EQ(response.leases(0).unit().id(), "u0");
  EXPECT_EQ(response.leases(1).unit().id(), "u1");
  // Asked without shared_settings (a worker from before it): every lease carries its own copy.
  EXPECT_TRUE(response.leases(0).has_aidan());
  EXPECT_EQ(response.leases(0).aidan().judge(), "judge");
  EXPECT_TRUE(response.leases(1).has_aidan());
  EXPECT_EQ(response.shared_size(), 0);
  EXPECT_FALSE(response.leases(0).has_novelty());
  EXPECT_GT(response.leases(0).fencing_token(), 0u);
  EXPECT_FALSE(response.sweep_complete());
  EXPECT_EQ(response.heartbeat_interval_ms(), 2000);
  EXPECT_EQ(response.retry_after_ms(), 500);
  EXPECT_EQ(StatusNow().units_leased(), 2);
}

TEST_F(CoordinatorCoreTest, AskedForSharedSettingsTheResponseCarriesThemOnceAndTheLeasesNone) {
  v1::LeaseRequest request = LeaseRequestOf(5, "w1");
  request.set_shared_settings(true);
  v1::LeaseResponse response;
  ASSERT_TRUE(core().Lease(kToken, request, &response).ok());
  ASSERT_EQ(response.leases_size(), 2);
  for (const v1::Lease& lease : response.leases()) {
    EXPECT_FALSE(lease.has_aidan()) << lease.unit().id();
    EXPECT_FALSE(lease.has_novelty()) << lease.unit().id();
  }
  ASSERT_EQ(response.shared_size(), 1);
  EXPECT_EQ(response.shared(0).unit().benchmark(), kAidanBench);
  EXPECT_EQ(response.shared(0).aidan().judge(), "judge");
  EXPECT_EQ(response.shared(0).lease_id(), "");  // settings and the benchmark's name, nothing else
  EXPECT_EQ(response.shared(0).unit().id(), "");

  TakeSharedSettings(&response);
  EXPECT_EQ(response.shared_size(), 0);
  for (const v1::Lease& lease : response.leases()) {
    EXPECT_EQ(lease.aidan().judge(), "judge") << lease.unit().id();
    EXPECT_EQ(lease.aidan().embedder(), "embedder") << lease.unit().id();
  }
}

TEST(CoordinatorCoreMixedTest, SharedSettingsComeOncePerBenchmarkAndReachOnlyItsLeases) {
  FakeClock clock;
  TestCoordinator coordinator(/*units=*/5, &clock, SchedulerOptions(), /*mixed=*/true);
  v1::LeaseRequest request;
  request.set_worker_id("w1");
  request.set_max_units(5);
  request.set_shared_settings(true);
  v1::LeaseResponse response;
  ASSERT_TRUE(coordinator.core().Lease(kToken, request, &response).ok());
  ASSERT_EQ(response.leases_size(), 5);
  ASSERT_EQ(response.shared_size(), 2);
  const v1::Lease* aidan = SharedSettingsFor(response, kAidanBench);
  const v1::Lease* novelty = SharedSettingsFor(response, kNoveltyBench);
  ASSERT_NE(aidan, nullptr);
  ASSERT_NE(novelty, nullptr);
  EXPECT_EQ(aidan->aidan().judge(), "judge");
  EXPECT_FALSE(aidan->has_novelty());
  EXPECT_EQ(novelty->novelty().k(), 10);
  EXPECT_FALSE(novelty->has_aidan());

  TakeSharedSettings(&response);
  int novelty_leases = 0;
  for (const v1::Lease& lease : response.leases()) {
    if (lease.unit().benchmark() == kNoveltyBench) {
      ++novelty_leases;
      EXPECT_EQ(lease.novelty().k(), 10) << lease.unit().id();
      EXPECT_FALSE(lease.has_aidan()) << lease.unit().id();
    } else {
      EXPECT_EQ(lease.aidan().judge(), "judge") << lease.unit().id();
      EXPECT_FALSE(lease.has_novelty()) << lease.unit().id();
    }
  }
  EXPECT_EQ(novelty_leases, 2);
}

TEST_F(CoordinatorCoreTest, WrongOrMissingTokenIsRefusedAndChangesNothing) {
  for (const std::string token : {"wrong!", "", "s3cre", "s3cret "}) {
    v1::LeaseRequest lease;
    lease.set_worker_id("w1");
    lease.set_max_units(1);
    v1::LeaseResponse lease_response;
    EXPECT_TRUE(absl::IsUnauthenticated(core().Lease(token, lease, &lease_response))) << token;
    EXPECT_EQ(lease_response.leases_size(), 0);
    v1::HeartbeatResponse heartbeat;
    EXPECT_TRUE(absl::IsUnauthenticated(core().Heartbeat(token, v1::HeartbeatRequest(), &heartbeat)));
    v1::ReportResponse report;
    EXPECT_TRUE(absl::IsUnauthenticated(core().Report(token, v1::ReportRequest(), &report)));
    v1::CompleteResponse complete;
    EXPECT_TRUE(absl::IsUnauthenticated(core().Complete(token, v1::CompleteRequest(), &complete)));
    v1::ReleaseResponse release;
    EXPECT_TRUE(absl::IsUnauthenticated(core().Release(token, v1::ReleaseRequest(), &release)));
    v1::StatusResponse status;
    EXPECT_TRUE(absl::IsUnauthenticated(core().Status(token, v1::StatusRequest(), &status)));
  }
  EXPECT_EQ(StatusNow().units_pending(), 2);
  EXPECT_TRUE(StatusNow().workers().empty());
}

TEST_F(CoordinatorCoreTest, HeartbeatKeepsHeldLeasesAndNamesLostOnes) {
  const v1::Lease lease = LeaseOne();
  v1::HeartbeatRequest request;
  request.set_worker_id("w1");
  request.set_capacity(4);
  request.set_loops_in_flight(1);
  v1::LeaseProgress* held = request.add_leases();
  held->set_lease_id(lease.lease_id());
  held->set_fencing_token(lease.fencing_token());
  v1::LeaseProgress* gone = request.add_leases();
  gone->set_lease_id("no-such-lease");
  gone->set_fencing_token(7);
  // Past the lease ttl (30 s) in steps the heartbeats cover: the lease stays.
  for (int i = 0; i < 4; ++i) {
    clock_.Advance(absl::Seconds(10));
    v1::HeartbeatResponse response;
    ASSERT_TRUE(core().Heartbeat(kToken, request, &response).ok());
    EXPECT_THAT(response.lost_lease_ids(), ElementsAre("no-such-lease"));
  }
  v1::StatusResponse status = StatusNow();
  EXPECT_EQ(status.units_leased(), 1);
  ASSERT_EQ(status.workers_size(), 1);
  EXPECT_EQ(status.workers(0).capacity(), 4);
  EXPECT_EQ(status.workers(0).loops_in_flight(), 1);
}

TEST_F(CoordinatorCoreTest, LeavingWorkerHandsItsLeasesBack) {
  LeaseOne();
  v1::HeartbeatRequest leaving;
  leaving.set_worker_id("w1");
  leaving.set_leaving(true);
  v1::HeartbeatResponse response;
  ASSERT_TRUE(core().Heartbeat(kToken, leaving, &response).ok());
  EXPECT_EQ(StatusNow().units_leased(), 0);
  EXPECT_EQ(StatusNow().units_pending(), 2);
  EXPECT_TRUE(StatusNow().workers().empty());
}

TEST_F(CoordinatorCoreTest, ReportedStepsComeBackWithTheNextLeaseOfTheUnit) {
  const v1::Lease first = LeaseOne();
  v1::ReportResponse report;
  ASSERT_TRUE(core().Report(kToken, ReportOf(first, 1, 2), &report).ok());
  EXPECT_THAT(report.rejected_lease_ids(), IsEmpty());
  ASSERT_TRUE(ReleaseLease(first).ok());

  const v1::Lease second = LeaseOne("w2");
  EXPECT_EQ(second.unit().id(), first.unit().id());
  EXPECT_GT(second.fencing_token(), first.fencing_token());
  ASSERT_EQ(second.checkpoint_size(), 2);
  EXPECT_EQ(second.checkpoint(1).answer(), "answer 2");
  // The old lease's reports are refused now.
  v1::ReportResponse stale;
  ASSERT_TRUE(core().Report(kToken, ReportOf(first, 3, 3), &stale).ok());
  EXPECT_THAT(stale.rejected_lease_ids(), ElementsAre(first.lease_id()));
}

// The gRPC service reads a Report as v1::ReceivedReport (each step still its bytes) and hands it over:
// the bytes are moved into the checkpoint, and the next lease carries exactly what was reported, every
// field and the embedding.
TEST_F(CoordinatorCoreTest, StepsMovedOutOfAReportComeBackAsReported) {
  const v1::Lease first = LeaseOne();
  v1::ReportRequest sent = ReportOf(first, 1, 2);
  for (v1::Step& step : *sent.mutable_leases(0)->mutable_steps()) {
    step.set_coherence(85.5);
    step.set_novelty(0.25 * step.answer_num());
    step.set_llm_novelty(0.5);
    step.set_valid(true);
    step.set_reasoning_tokens(7);
    for (int i = 0; i < 256; ++i) step.add_embedding(0.001f * static_cast<float>(i * step.answer_num()));
  }
  v1::ReceivedReport received;
  ASSERT_TRUE(received.ParseFromString(sent.SerializeAsString()));
  ASSERT_EQ(received.leases(0).steps(1), sent.leases(0).steps(1).SerializeAsString());  // the same wire form
  v1::ReportResponse report;
  ASSERT_TRUE(core().Report(kToken, &received, &report).ok());
  EXPECT_THAT(report.rejected_lease_ids(), IsEmpty());
  EXPECT_TRUE(received.leases(0).steps(0).empty());  // moved, not copied
  ASSERT_TRUE(ReleaseLease(first).ok());

  const v1::Lease second = LeaseOne("w2");
  ASSERT_EQ(second.checkpoint_size(), 2);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(second.checkpoint(i).SerializeAsString(), sent.leases(0).steps(i).SerializeAsString()) << i;
  }
  // A third lease of the unit gets the same checkpoint again: handing it out did not use it up.
  ASSERT_TRUE(ReleaseLease(second).ok());
  const v1::Lease third = LeaseOne("w3");
  ASSERT_EQ(third.checkpoint_size(), 2);
  EXPECT_EQ(third.checkpoint(1).SerializeAsString(), sent.leases(0).steps(1).SerializeAsString());
}

// A step that would not parse is a gap: it and its lease's later steps are not kept; the Report is
// answered OK (refused, the worker would send it again and again) and the other leases' steps are kept.
TEST_F(CoordinatorCoreTest, AStepThatWouldNotParseEndsItsLeasesSteps) {
  const v1::LeaseResponse leased = LeaseUpTo(2, "w1");
  ASSERT_EQ(leased.leases_size(), 2);
  v1::ReportRequest sent = ReportOf(leased.leases(0), 1, 3);
  *sent.add_leases() = ReportOf(leased.leases(1), 1, 2).leases(0);
  v1::ReceivedReport received;
  ASSERT_TRUE(received.ParseFromString(sent.SerializeAsString()));
  std::string* cut = received.mutable_leases(0)->mutable_steps(1);
  cut->resize(cut->size() - 1);  // step 2's answer now runs past its end
  v1::ReportResponse report;
  ASSERT_TRUE(core().Report(kToken, &received, &report).ok());
  EXPECT_THAT(report.rejected_lease_ids(), IsEmpty());
  for (const v1::Lease& lease : leased.leases()) ASSERT_TRUE(ReleaseLease(lease).ok());
  std::map<std::string, int> kept;  // unit -> checkpoint steps
  const v1::LeaseResponse again = LeaseUpTo(2, "w2");
  for (const v1::Lease& lease : again.leases()) kept[lease.unit().id()] = lease.checkpoint_size();
  EXPECT_EQ(kept[leased.leases(0).unit().id()], 1);
  EXPECT_EQ(kept[leased.leases(1).unit().id()], 2);
}

// A step whose `error` is not UTF-8 (which a string field refuses) would not parse when a lease sent it
// back: it is a gap from the start, and the next lease's checkpoint ends before it.
TEST_F(CoordinatorCoreTest, AStepWithAnErrorThatIsNotUtf8IsAGap) {
  const v1::Lease first = LeaseOne();
  v1::ReportRequest sent = ReportOf(first, 1, 3);
  sent.mutable_leases(0)->mutable_steps(1)->set_error("\xff\xfe not UTF-8");
  v1::ReportResponse report;
  ASSERT_TRUE(core().Report(kToken, sent, &report).ok());
  ASSERT_TRUE(ReleaseLease(first).ok());
  const v1::Lease second = LeaseOne("w2");
  ASSERT_EQ(second.checkpoint_size(), 1);
  EXPECT_EQ(second.checkpoint(0).answer(), "answer 1");
}

TEST_F(CoordinatorCoreTest, CompleteIsDurableOnceAndADuplicateIsAcknowledgedAndIgnored) {
  const v1::Lease lease = LeaseOne();
  v1::CompleteResponse response;
  ASSERT_TRUE(core().Complete(kToken, CompleteOf(lease), &response).ok());
  EXPECT_TRUE(response.accepted());
  EXPECT_FALSE(response.duplicate());
  ASSERT_EQ(coordinator_.committed().size(), 1u);
  EXPECT_EQ(coordinator_.committed()[0].unit.id, lease.unit().id());
  EXPECT_EQ(coordinator_.committed()[0].unit.item_text, "question 0");  // the plan's copy
  EXPECT_EQ(coordinator_.committed()[0].answers.size(), 2u);
  EXPECT_EQ(coordinator_.marked_done(), 1);
  EXPECT_EQ(StatusNow().units_done(), 1);

  v1::CompleteResponse again;
  ASSERT_TRUE(core().Complete(kToken, CompleteOf(lease), &again).ok());
  EXPECT_TRUE(again.accepted());
  EXPECT_TRUE(again.duplicate());
  EXPECT_EQ(coordinator_.committed().size(), 1u);
  EXPECT_EQ(coordinator_.marked_done(), 1);
}

TEST_F(CoordinatorCoreTest, CompleteManyAnswersEachUnitAsCompleteWouldInOneCall) {
  const v1::Lease a = LeaseOne();
  const v1::Lease b = LeaseOne();
  v1::Lease unknown = a;
  unknown.mutable_unit()->set_id("no-such-unit");
  v1::CompleteManyRequest request;
  request.set_worker_id("w1");
  *request.add_units() = CompleteOf(a);
  *request.add_units() = CompleteOf(unknown);
  *request.add_units() = CompleteOf(b);
  *request.add_units() = CompleteOf(a);  // the same unit again: a duplicate
  v1::CompleteManyResponse response;
  ASSERT_TRUE(core().CompleteMany(kToken, request, &response).ok());
  ASSERT_EQ(response.outcomes_size(), 4);
  EXPECT_EQ(response.outcomes(0).code(), 0);
  EXPECT_TRUE(response.outcomes(0).response().accepted());
  EXPECT_FALSE(response.outcomes(0).response().duplicate());
  EXPECT_EQ(static_cast<absl::StatusCode>(response.outcomes(1).code()), absl::StatusCode::kNotFound);
  EXPECT_FALSE(response.outcomes(1).message().empty());
  EXPECT_TRUE(response.outcomes(2).response().accepted());
  EXPECT_TRUE(response.outcomes(3).response().accepted());
  EXPECT_TRUE(response.outcomes(3).response().duplicate());
  EXPECT_EQ(coordinator_.committed().size(), 2u);
  // One sink call: the repeated unit is checked once its first copy is done, and not persisted again.
  EXPECT_THAT(coordinator_.batches(), ElementsAre(ElementsAre(a.unit().id(), b.unit().id())));
  EXPECT_EQ(StatusNow().units_done(), 2);
  EXPECT_EQ(coordinator_.marked_done(), 1);  // one wake-up for the call, not one per unit
}

// The accepted units are persisted in one sink call: when it fails, every one of them comes back
// UNAVAILABLE, to be sent again.
TEST_F(CoordinatorCoreTest, CompleteManyThatCannotBePersistedSaysUnavailablePerUnit) {
  const v1::Lease lease = LeaseOne();
  const v1::Lease second = LeaseOne();
  coordinator_.FailPersist(true);
  v1::CompleteManyRequest request;
  for (const v1::Lease& l : {lease, second}) *request.add_units() = CompleteOf(l);
  v1::CompleteManyResponse response;
  ASSERT_TRUE(core().CompleteMany(kToken, request, &response).ok());
  ASSERT_EQ(response.outcomes_size(), 2);
  for (const v1::CompleteOutcome& outcome : response.outcomes()) {
    EXPECT_EQ(static_cast<absl::StatusCode>(outcome.code()), absl::StatusCode::kUnavailable);
    EXPECT_FALSE(outcome.response().accepted());
  }
  EXPECT_EQ(coordinator_.persist_attempts(), 1);
  EXPECT_EQ(StatusNow().units_leased(), 2);
  EXPECT_EQ(coordinator_.marked_done(), 0);
  EXPECT_TRUE(absl::IsUnauthenticated(core().CompleteMany("wrong", request, &response)));
}

TEST_F(CompleteManyBatchTest, TheAcceptedUnitsOfACallArePersistedInOneSinkCall) {
  const v1::Lease done = LeaseOne();
  v1::CompleteResponse first;
  ASSERT_TRUE(core().Complete(kToken, CompleteOf(done), &first).ok());
  const v1::Lease a = LeaseOne();
  const v1::Lease stale = LeaseOne();
  ASSERT_TRUE(ReleaseLease(stale).ok());
  const v1::Lease current = LeaseOne("w2");
  ASSERT_EQ(current.unit().id(), stale.unit().id());
  const v1::Lease b = LeaseOne();
  v1::Lease unknown = a;
  unknown.mutable_unit()->set_id("no-such-unit");
  ASSERT_EQ(coordinator_.persist_attempts(), 1);

  const std::vector<v1::CompleteOutcome> outcomes = CompleteManyOf({a, stale, done, b, unknown});
  ASSERT_EQ(outcomes.size(), 5u);
  EXPECT_EQ(coordinator_.persist_attempts(), 2);  // one sink call for the whole CompleteMany
  ASSERT_EQ(coordinator_.batches().size(), 2u);
  EXPECT_THAT(coordinator_.batches()[1], ElementsAre(a.unit().id(), b.unit().id()));
  // Every other unit is answered as Complete answers it, and not persisted.
  EXPECT_EQ(CodeOf(outcomes[0]), absl::StatusCode::kOk);
  EXPECT_TRUE(outcomes[0].response().accepted());
  EXPECT_FALSE(outcomes[0].response().duplicate());
  EXPECT_EQ(CodeOf(outcomes[1]), absl::StatusCode::kOk);
  EXPECT_FALSE(outcomes[1].response().accepted());  // stale fencing token
  EXPECT_EQ(CodeOf(outcomes[2]), absl::StatusCode::kOk);
  EXPECT_TRUE(outcomes[2].response().duplicate());
  EXPECT_TRUE(outcomes[3].response().accepted());
  EXPECT_FALSE(outcomes[3].response().duplicate());
  EXPECT_EQ(CodeOf(outcomes[4]), absl::StatusCode::kNotFound);
  EXPECT_EQ(coordinator_.committed().size(), 3u);
  const v1::StatusResponse status = StatusNow();
  EXPECT_EQ(status.units_done(), 3);
  EXPECT_EQ(status.units_leased(), 1);  // the stale unit, leased to w2
  EXPECT_EQ(status.answers(), 6);
  const CommitCounts counts = core().Commits();
  EXPECT_EQ(counts.accepted, 3);
  EXPECT_EQ(counts.duplicates, 1);
  EXPECT_EQ(counts.stale_tokens, 1);
  EXPECT_EQ(counts.unknown_units, 1);
  EXPECT_EQ(coordinator_.marked_done(), 2);
}

TEST_F(CompleteManyBatchTest, AFailedBatchLeavesEveryAcceptedUnitLeasedForALaterCommit) {
  const v1::Lease a = LeaseOne();
  const v1::Lease stale = LeaseOne();
  ASSERT_TRUE(ReleaseLease(stale).ok());
  ASSERT_EQ(LeaseOne("w2").unit().id(), stale.unit().id());
  const v1::Lease b = LeaseOne();
  const v1::Lease c = LeaseOne();
  coordinator_.FailPersist(true);
  const std::vector<v1::CompleteOutcome> outcomes = CompleteManyOf({a, b, stale, c});
  ASSERT_EQ(outcomes.size(), 4u);
  EXPECT_EQ(coordinator_.persist_attempts(), 1);
  for (size_t i : {0, 1, 3}) {
    EXPECT_EQ(CodeOf(outcomes[i]), absl::StatusCode::kUnavailable) << i;
    EXPECT_THAT(outcomes[i].message(), HasSubstr("disk full")) << i;
    EXPECT_FALSE(outcomes[i].response().accepted()) << i;
  }
  EXPECT_EQ(CodeOf(outcomes[2]), absl::StatusCode::kOk);  // the stale token is answered as before
  EXPECT_FALSE(outcomes[2].response().accepted());
  EXPECT_EQ(StatusNow().units_leased(), 4);  // a, b and c, and the stale one's unit with w2
  EXPECT_EQ(StatusNow().units_done(), 0);
  EXPECT_EQ(core().Commits().unpersisted, 3);
  EXPECT_EQ(coordinator_.marked_done(), 0);

  coordinator_.FailPersist(false);
  v1::CompleteResponse later;
  ASSERT_TRUE(core().Complete(kToken, CompleteOf(b), &later).ok());
  EXPECT_TRUE(later.accepted());
  EXPECT_FALSE(later.duplicate());
  EXPECT_THAT(coordinator_.batches(), ElementsAre(ElementsAre(b.unit().id())));
  EXPECT_EQ(StatusNow().units_done(), 1);
  EXPECT_EQ(StatusNow().units_leased(), 3);
}

// A repeated unit makes the batch before it persist early; when that fails, the units after it that are
// accepted are not tried, but a stale one is still answered from memory as it would be alone.
TEST_F(CompleteManyBatchTest, AfterAFailedEarlyPersistStaleUnitsAreStillAnswered) {
  const v1::Lease a = LeaseOne();
  const v1::Lease stale = LeaseOne();
  ASSERT_TRUE(ReleaseLease(stale).ok());
  ASSERT_EQ(LeaseOne("w2").unit().id(), stale.unit().id());
  const v1::Lease b = LeaseOne();
  coordinator_.FailPersist(true);
  const std::vector<v1::CompleteOutcome> outcomes = CompleteManyOf({a, a, stale, b});
  ASSERT_EQ(outcomes.size(), 4u);
  EXPECT_EQ(coordinator_.persist_attempts(), 1);  // the batch before the repeat; the rest not tried
  EXPECT_THAT(outcomes[0].message(), HasSubstr("disk full"));
  for (size_t i : {1, 3}) {
    EXPECT_EQ(CodeOf(outcomes[i]), absl::StatusCode::kUnavailable) << i;
    EXPECT_THAT(outcomes[i].message(), HasSubstr("not tried")) << i;
  }
  EXPECT_EQ(CodeOf(outcomes[2]), absl::StatusCode::kOk);
  EXPECT_FALSE(outcomes[2].response().accepted());
  EXPECT_EQ(StatusNow().units_done(), 0);
}

TEST_F(CoordinatorCoreTest, StaleFencingTokenIsRefused) {
  const v1::Lease first = LeaseOne();
  ASSERT_TRUE(ReleaseLease(first).ok());
  const v1::Lease second = LeaseOne("w2");
  ASSERT_EQ(second.unit().id(), first.unit().id());

  v1::CompleteResponse response;
  ASSERT_TRUE(core().Complete(kToken, CompleteOf(first), &response).ok());
  EXPECT_FALSE(response.accepted());
  EXPECT_THAT(coordinator_.committed(), IsEmpty());
  // The current holder still commits.
  v1::CompleteResponse current;
  ASSERT_TRUE(core().Complete(kToken, CompleteOf(second), &current).ok());
  EXPECT_TRUE(current.accepted());
  EXPECT_EQ(coordinator_.committed().size(), 1u);
}

TEST_F(CoordinatorCoreTest, TheEndOfALostLoopOfACommittedUnitIsPassedOn) {
  const v1::Lease first = LeaseOne();
  ASSERT_TRUE(ReleaseLease(first).ok());  // taken back: `first` is the lost lease
  const v1::Lease second = LeaseOne("w2");
  ASSERT_EQ(second.unit().id(), first.unit().id());
  // The unit is not done yet: its checkpoint is the current lease's, left alone.
  ASSERT_TRUE(ReleaseLease(first, /*loop_ended=*/true).ok());
  EXPECT_THAT(coordinator_.lost_loops_ended(), IsEmpty());
  v1::CompleteResponse response;
  ASSERT_TRUE(core().Complete(kToken, CompleteOf(second), &response).ok());
  ASSERT_TRUE(response.accepted());
  // Done: the lost loop may have rewritten the checkpoint the commit deleted.
  ASSERT_TRUE(ReleaseLease(first, /*loop_ended=*/true).ok());
  EXPECT_THAT(coordinator_.lost_loops_ended(), ElementsAre(first.unit().id()));
  // So does a commit of the done unit from its lost lease or again from its last one (a duplicate
  // either way): a loop of the unit has ended -- also on workers that send no note.
  v1::CompleteResponse from_lost, again;
  ASSERT_TRUE(core().Complete(kToken, CompleteOf(first), &from_lost).ok());
  EXPECT_TRUE(from_lost.duplicate());
  ASSERT_TRUE(core().Complete(kToken, CompleteOf(second), &again).ok());
  EXPECT_TRUE(again.duplicate());
  EXPECT_THAT(coordinator_.lost_loops_ended(), ElementsAre(first.unit().id(), first.unit().id(), first.unit().id()));
  // A release that names no unit, or one not in the plan, passes nothing on.
  ASSERT_TRUE(ReleaseLease(first).ok());
  v1::Lease unknown = first;
  unknown.mutable_unit()->set_id("no-such-unit");
  ASSERT_TRUE(ReleaseLease(unknown, /*loop_ended=*/true).ok());
  EXPECT_THAT(coordinator_.lost_loops_ended(), SizeIs(3));
  EXPECT_EQ(coordinator_.committed().size(), 1u);
}

TEST_F(CoordinatorCoreTest, CommitOfAnUnknownUnitIsNotFound) {
  v1::Lease lease = LeaseOne();
  lease.mutable_unit()->set_id("no-such-unit");
  v1::CompleteResponse response;
  EXPECT_TRUE(absl::IsNotFound(core().Complete(kToken, CompleteOf(lease), &response)));
  EXPECT_THAT(coordinator_.committed(), IsEmpty());
}

TEST_F(CoordinatorCoreTest, CommitThatCannotBePersistedIsUnavailableAndTheUnitStaysLeased) {
  const v1::Lease lease = LeaseOne();
  coordinator_.FailPersist(true);
  v1::CompleteResponse response;
  const absl::Status failed = core().Complete(kToken, CompleteOf(lease), &response);
  EXPECT_TRUE(absl::IsUnavailable(failed)) << failed;
  EXPECT_FALSE(response.accepted());
  EXPECT_EQ(StatusNow().units_leased(), 1);
  EXPECT_EQ(coordinator_.marked_done(), 0);

  coordinator_.FailPersist(false);
  v1::CompleteResponse retried;
  ASSERT_TRUE(core().Complete(kToken, CompleteOf(lease), &retried).ok());
  EXPECT_TRUE(retried.accepted());
  EXPECT_EQ(StatusNow().units_done(), 1);
}

TEST_F(CoordinatorCoreTest, AWorkerLeasingAfterTheLastCommitIsToldTheSweepIsComplete) {
  for (int i = 0; i < 2; ++i) {
    v1::CompleteResponse response;
    ASSERT_TRUE(core().Complete(kToken, CompleteOf(LeaseOne()), &response).ok());
  }
  EXPECT_THAT(core().WorkersToldComplete(), IsEmpty());
  const v1::LeaseResponse response = LeaseUpTo(1);
  EXPECT_EQ(response.leases_size(), 0);
  EXPECT_TRUE(response.sweep_complete());
  EXPECT_THAT(core().WorkersToldComplete(), ElementsAre("w1"));
  v1::StatusResponse status = StatusNow();
  EXPECT_TRUE(status.complete());
  EXPECT_EQ(status.sweep(), "test-sweep");
  ASSERT_EQ(status.models_size(), 1);
  EXPECT_EQ(status.models(0).done(), 2);
}

TEST_F(CoordinatorCoreTest, InProcessClientPresentsItsTokenAndCanBeSwitchedAway) {
  InProcessCoordinatorClient client(&core(), kToken);
  const v1::LeaseRequest request = LeaseRequestOf(1);
  v1::LeaseResponse response;
  ASSERT_TRUE(client.Lease(request, &response, absl::InfiniteFuture()).ok());
  EXPECT_EQ(response.leases_size(), 1);

  client.SetReachable(false);
  v1::LeaseResponse away;
  EXPECT_TRUE(absl::IsUnavailable(client.Lease(request, &away, absl::InfiniteFuture())));
  EXPECT_EQ(away.leases_size(), 0);
  EXPECT_EQ(StatusNow().units_leased(), 1);  // the call never reached the coordinator

  InProcessCoordinatorClient intruder(&core(), "guess");
  v1::StatusResponse status;
  EXPECT_TRUE(absl::IsUnauthenticated(intruder.Status(v1::StatusRequest(), &status, absl::InfiniteFuture())));
}

}  // namespace
}  // namespace noveltygrid::testing
