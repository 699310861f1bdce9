#include "coordinator/lease/unit_scheduler.h"

#include <atomic>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace noveltygrid {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

// `per_model` units for each model, model-major plan order; ids "model#i", items "model/qi" (no item is
// shared between models, so each model leases in plan order: pending_order_test.cc covers shared items).
std::vector<UnitSpec> Units(const std::vector<std::string>& models, int per_model) {
  std::vector<UnitSpec> units;
  for (const std::string& model : models) {
    for (int i = 0; i < per_model; ++i) {
      const int index = static_cast<int>(units.size());
      units.push_back(UnitSpec{.id = absl::StrCat(model, "#", i),
                               .index = index,
                               .benchmark = kAidanBench,
                               .model = model,
                               .item_id = absl::StrCat(model, "/q", i),
                               .item_text = absl::StrCat("question ", i),
                               .mode = "",
                               .dataset = "",
                               .paraphrases = {},
                               .domain = "",
                               .subdomain = "",
                               .category = ""});
    }
  }
  return units;
}

CheckpointStep Step(int answer_num) {
  v1::Step step;
  step.set_answer_num(answer_num);
  step.set_answer(absl::StrCat("answer ", answer_num));
  step.add_embedding(static_cast<float>(answer_num));
  return {answer_num, step.SerializeAsString()};
}

v1::Step Parsed(const CheckpointStep& step) {
  v1::Step parsed;
  EXPECT_TRUE(parsed.ParseFromString(step.bytes));
  return parsed;
}

std::vector<int> AnswerNums(const std::vector<CheckpointStep>& steps) {
  std::vector<int> nums;
  for (const CheckpointStep& step : steps) nums.push_back(step.answer_num);
  return nums;
}

std::vector<std::string> ModelsOf(const std::vector<LeaseGrant>& grants) {
  std::vector<std::string> models;
  for (const LeaseGrant& grant : grants) models.push_back(grant.unit->model);
  return models;
}

std::vector<std::string> IdsOf(const std::vector<LeaseGrant>& grants) {
  std::vector<std::string> ids;
  for (const LeaseGrant& grant : grants) ids.push_back(grant.unit->id);
  return ids;
}

SchedulerOptions Options(absl::Duration ttl, absl::Duration worker_timeout, int cap = 0) {
  return SchedulerOptions{.lease_ttl = ttl, .worker_timeout = worker_timeout, .per_model_cap = cap};
}

TEST(UnitSchedulerTest, LeasesEveryUnitExactlyOnceThenNothing) {
  FakeClock clock;
  UnitScheduler scheduler(Units({"m"}, 10), {"m"}, SchedulerOptions(), &clock);
  EXPECT_THAT(scheduler.Lease("w", 0), IsEmpty());
  EXPECT_THAT(scheduler.Lease("w", -1), IsEmpty());

  std::set<std::string> unit_ids, lease_ids;
  for (int i = 0; i < 4; ++i) {
    for (const LeaseGrant& grant : scheduler.Lease("w", 3)) {
      EXPECT_TRUE(unit_ids.insert(grant.unit->id).second) << grant.unit->id;
      EXPECT_TRUE(lease_ids.insert(grant.lease_id).second) << grant.lease_id;
      EXPECT_EQ(grant.fencing_token, 1u);
      EXPECT_EQ(grant.deadline, clock.Now() + SchedulerOptions().lease_ttl);
      EXPECT_THAT(grant.checkpoint, IsEmpty());
    }
  }
  EXPECT_EQ(unit_ids.size(), 10u);
  EXPECT_THAT(scheduler.Lease("w", 5), IsEmpty());
  EXPECT_THAT(scheduler.Lease("other", 5), IsEmpty());
}

TEST(UnitSchedulerTest, SpreadsLeasesAcrossModelsInConfigOrder) {
  FakeClock clock;
  UnitScheduler scheduler(Units({"a", "b", "c"}, 4), {"c", "a", "b"}, SchedulerOptions(), &clock);
  EXPECT_THAT(ModelsOf(scheduler.Lease("w1", 3)), ElementsAre("c", "a", "b"));
  // Each model now has one leased: the next round is again one per model.
  EXPECT_THAT(ModelsOf(scheduler.Lease("w2", 3)), ElementsAre("c", "a", "b"));
  // Finishing an "a" unit makes "a" the model with the fewest leased units.
  scheduler.MarkDone("a#0");
  EXPECT_THAT(ModelsOf(scheduler.Lease("w3", 1)), ElementsAre("a"));
}

TEST(UnitSchedulerTest, PerModelCapLimitsLeases) {
  FakeClock clock;
  UnitScheduler scheduler(Units({"a", "b", "c"}, 4), {"a", "b", "c"},
                          Options(absl::Seconds(30), absl::Seconds(15), /*cap=*/1), &clock);
  EXPECT_THAT(ModelsOf(scheduler.Lease("w", 10)), ElementsAre("a", "b", "c"));
  EXPECT_THAT(scheduler.Lease("w2", 10), IsEmpty());
  scheduler.MarkDone("b#0");
  EXPECT_THAT(IdsOf(scheduler.Lease("w2", 10)), ElementsAre("b#1"));
}

TEST(UnitSchedulerTest, ModelsOutsideTheConfigComeLastByName) {
  FakeClock clock;
  UnitScheduler scheduler(Units({"z", "y", "a"}, 1), {"a"}, SchedulerOptions(), &clock);
  EXPECT_THAT(ModelsOf(scheduler.Lease("w", 3)), ElementsAre("a", "y", "z"));
}

TEST(UnitSchedulerTest, LowestPlanIndexFirstAndReturnedUnitsKeepTheirPlace) {
  FakeClock clock;
  UnitScheduler scheduler(Units({"m"}, 4), {"m"}, SchedulerOptions(), &clock);
  std::vector<LeaseGrant> first = scheduler.Lease("w", 2);
  EXPECT_THAT(IdsOf(first), ElementsAre("m#0", "m#1"));
  scheduler.Release(first[0].lease_id, first[0].fencing_token);
  EXPECT_THAT(IdsOf(scheduler.Lease("w", 2)), ElementsAre("m#0", "m#2"));
}

TEST(UnitSchedulerTest, ExpiredLeaseReturnsWithLargerToken) {
  FakeClock clock;
  UnitScheduler scheduler(Units({"m"}, 1), {"m"}, Options(absl::Seconds(30), absl::Minutes(5)), &clock);
  const LeaseGrant first = scheduler.Lease("w1", 1).at(0);
  clock.Advance(absl::Seconds(30));
  EXPECT_EQ(scheduler.ExpireOverdue(), 0);  // the deadline itself is still in time
  EXPECT_THAT(scheduler.Lease("w2", 1), IsEmpty());
  clock.Advance(absl::Seconds(1));
  const std::vector<LeaseGrant> again = scheduler.Lease("w2", 1);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].unit->id, first.unit->id);
  EXPECT_GT(again[0].fencing_token, first.fencing_token);
  EXPECT_NE(again[0].lease_id, first.lease_id);
}

// Lease looks for overdue leases at most every expiry_every() (it scans every lease held);
// ExpireOverdue always looks.
TEST(UnitSchedulerTest, LeaseLooksForOverdueLeasesAtMostOncePerInterval) {
  FakeClock clock;
  UnitScheduler scheduler(Units({"m"}, 1), {"m"}, Options(absl::Seconds(30), absl::Minutes(5)), &clock);
  ASSERT_EQ(scheduler.Lease("w1", 1).size(), 1u);
  clock.Advance(absl::Seconds(30) - absl::Milliseconds(50));
  EXPECT_THAT(scheduler.Lease("w2", 1), IsEmpty());  // looked: nothing overdue yet
  clock.Advance(absl::Milliseconds(60));             // overdue by 10 ms, 60 ms after the last look
  EXPECT_THAT(scheduler.Lease("w2", 1), IsEmpty());
  clock.Advance(scheduler.expiry_every());
  EXPECT_EQ(scheduler.Lease("w2", 1).size(), 1u);
  // ExpireOverdue does not wait for the interval.
  clock.Advance(absl::Seconds(31));
  EXPECT_EQ(scheduler.ExpireOverdue(), 1);
}

TEST(UnitSchedulerTest, TheExpiryIntervalIsATwentiethOfTheShorterTimeout) {
  FakeClock clock;
  const auto every = [&clock](absl::Duration ttl, absl::Duration worker_timeout) {
    return UnitScheduler(Units({"m"}, 1), {"m"}, Options(ttl, worker_timeout), &clock).expiry_every();
  };
  EXPECT_EQ(every(absl::Seconds(30), absl::Seconds(15)), absl::Milliseconds(750));
  EXPECT_EQ(every(absl::Seconds(2), absl::Seconds(8)), absl::Milliseconds(100));
  EXPECT_EQ(every(absl::Minutes(10), absl::Minutes(5)), absl::Seconds(1));            // at most a second
  EXPECT_EQ(every(absl::Milliseconds(10), absl::Seconds(1)), absl::Milliseconds(1));  // at least 1 ms
}

// ExpireIfDue (the coordinator's wait loop) and Lease share the interval: one scan per interval in all.
TEST(UnitSchedulerTest, ExpireIfDueSharesLeasesInterval) {
  FakeClock clock;
  UnitScheduler scheduler(Units({"m"}, 2), {"m"}, Options(absl::Seconds(30), absl::Minutes(5)), &clock);
  ASSERT_EQ(scheduler.Lease("w1", 1).size(), 1u);
  clock.Advance(absl::Seconds(30) - absl::Milliseconds(50));
  ASSERT_EQ(scheduler.Lease("w2", 1).size(), 1u);  // looked: nothing overdue yet
  clock.Advance(absl::Milliseconds(60));           // w1's lease is overdue by 10 ms, 60 ms after Lease looked
  EXPECT_EQ(scheduler.ExpireIfDue(), 0);
  clock.Advance(scheduler.expiry_every());
  EXPECT_EQ(scheduler.ExpireIfDue(), 1);
  EXPECT_EQ(scheduler.ExpireIfDue(), 0);
  EXPECT_EQ(scheduler.Status().leased, 1);
}

TEST(UnitSchedulerTest, ExpireOverdueCountsReturnedLeases) {
  FakeClock clock;
  UnitScheduler scheduler(Units({"m"}, 3), {"m"}, Options(absl::Seconds(30), absl::Minutes(5)), &clock);
  ASSERT_EQ(scheduler.Lease("w", 3).size(), 3u);
  clock.Advance(absl::Seconds(31));
  EXPECT_EQ(scheduler.ExpireOverdue(), 3);
  EXPECT_EQ(scheduler.Status().pending, 3);
}

TEST(UnitSchedulerTest, HeartbeatExtendsDeadline) {
  FakeClock clock;
  const absl::Duration ttl = absl::Seconds(30);
  UnitScheduler scheduler(Units({"m"}, 1), {"m"}, Options(ttl, absl::Minutes(5)), &clock);
  const LeaseGrant grant = scheduler.Lease("w", 1).at(0);
  clock.Advance(ttl * 0.6);
  EXPECT_THAT(scheduler.Heartbeat("w", {{grant.lease_id, grant.fencing_token}}, WorkerInfo()), IsEmpty());
  clock.Advance(ttl * 0.6);
  EXPECT_EQ(scheduler.ExpireOverdue(), 0);
  EXPECT_THAT(scheduler.Lease("other", 1), IsEmpty());
  clock.Advance(ttl * 0.6);
  EXPECT_EQ(scheduler.ExpireOverdue(), 1);
}

TEST(UnitSchedulerTest, HeartbeatReportsLeasesNoLongerHeld) {
  FakeClock clock;
  UnitScheduler scheduler(Units({"m"}, 1), {"m"}, Options(absl::Seconds(30), absl::Minutes(5)), &clock);
  const LeaseGrant old = scheduler.Lease("w1", 1).at(0);
  clock.Advance(absl::Seconds(31));
  const LeaseGrant current = scheduler.Lease("w2", 1).at(0);

  EXPECT_THAT(scheduler.Heartbeat("w1", {{old.lease_id, old.fencing_token}}, WorkerInfo()), ElementsAre(old.lease_id));
  // Someone else's lease, or the right id with the wrong token, is not held either.
  EXPECT_THAT(scheduler.Heartbeat("w1", {{current.lease_id, current.fencing_token}}, WorkerInfo()),
              ElementsAre(current.lease_id));
  EXPECT_THAT(scheduler.Heartbeat("w2", {{current.lease_id, old.fencing_token}}, WorkerInfo()),
              ElementsAre(current.lease_id));
  EXPECT_THAT(scheduler.Heartbeat("w2", {{current.lease_id, current.fencing_token}}, WorkerInfo()), IsEmpty());
}

TEST(UnitSchedulerTest, SilentWorkerLosesLeasesBeforeTheirDeadline) {
  FakeClock clock;
  UnitScheduler scheduler(Units({"m"}, 2), {"m"}, Options(absl::Minutes(5), absl::Seconds(15)), &clock);
  const std::vector<LeaseGrant> held = scheduler.Lease("silent", 2);
  ASSERT_EQ(held.size(), 2u);
  clock.Advance(absl::Seconds(10));
  EXPECT_THAT(scheduler.Heartbeat("alive", {}, WorkerInfo()), IsEmpty());
  clock.Advance(absl::Seconds(6));  // silent for 16s > 15s; "alive" for 6s

  const std::vector<LeaseGrant> taken = scheduler.Lease("alive", 5);
  EXPECT_THAT(IdsOf(taken), ElementsAre("m#0", "m#1"));
  EXPECT_EQ(taken[0].fencing_token, 2u);
  const SchedulerStatus status = scheduler.Status();
  ASSERT_EQ(status.workers.size(), 1u);
  EXPECT_EQ(status.workers[0].worker_id, "alive");
  EXPECT_EQ(status.workers[0].leases, 2);

  EXPECT_THAT(scheduler.Heartbeat(
                  "silent", {{held[0].lease_id, held[0].fencing_token}, {held[1].lease_id, held[1].fencing_token}},
                  WorkerInfo()),
              ElementsAre(held[0].lease_id, held[1].lease_id));
}

TEST(UnitSchedulerTest, ALeavingWorkerIsForgottenAndItsLeasesReturnAtOnce) {
  FakeClock clock;
  UnitScheduler scheduler(Units({"m"}, 3), {"m"}, Options(absl::Minutes(5), absl::Minutes(5)), &clock);
  const std::vector<LeaseGrant> held = scheduler.Lease("leaving", 2);
  ASSERT_EQ(held.size(), 2u);
  scheduler.Lease("staying", 1);
  scheduler.Leave("leaving");
  scheduler.Leave("never-seen");  // ignored
  const SchedulerStatus status = scheduler.Status();
  EXPECT_EQ(status.pending, 2);
  EXPECT_EQ(status.leased, 1);
  ASSERT_EQ(status.workers.size(), 1u);
  EXPECT_EQ(status.workers[0].worker_id, "staying");
  EXPECT_EQ(scheduler.CheckCommit(held[0].lease_id, held[0].fencing_token, held[0].unit->id), CommitCheck::kStaleToken);
  const std::vector<LeaseGrant> again = scheduler.Lease("staying", 5);
  EXPECT_THAT(IdsOf(again), ElementsAre(held[0].unit->id, held[1].unit->id));
}

TEST(UnitSchedulerTest, CommitChecksHolderTokenAndUnit) {
  FakeClock clock;
  UnitScheduler scheduler(Units({"m"}, 2), {"m"}, Options(absl::Seconds(30), absl::Minutes(5)), &clock);
  const LeaseGrant old = scheduler.Lease("w1", 1).at(0);
  clock.Advance(absl::Seconds(31));
  const std::vector<LeaseGrant> grants = scheduler.Lease("w2", 2);
  ASSERT_EQ(grants.size(), 2u);
  const LeaseGrant& current = grants[0];
  const LeaseGrant& other = grants[1];
  ASSERT_EQ(current.unit->id, old.unit->id);
  const std::string unit = current.unit->id;

  EXPECT_EQ(scheduler.CheckCommit(old.lease_id, old.fencing_token, unit), CommitCheck::kStaleToken);
  EXPECT_EQ(scheduler.CheckCommit(current.lease_id, old.fencing_token, unit), CommitCheck::kStaleToken);
  EXPECT_EQ(scheduler.CheckCommit(other.lease_id, other.fencing_token, unit), CommitCheck::kStaleToken);
  EXPECT_EQ(scheduler.CheckCommit(current.lease_id, current.fencing_token, "no-such-unit"), CommitCheck::kUnknown);
  EXPECT_EQ(scheduler.CheckCommit(current.lease_id, current.fencing_token, unit), CommitCheck::kAccepted);

  scheduler.MarkDone(unit);
  EXPECT_EQ(scheduler.CheckCommit(current.lease_id, current.fencing_token, unit), CommitCheck::kDuplicate);
  EXPECT_EQ(scheduler.CheckCommit(old.lease_id, old.fencing_token, unit), CommitCheck::kDuplicate);
  EXPECT_EQ(scheduler.CheckCommit("unknown-lease", 7, unit), CommitCheck::kDuplicate);
}

TEST(UnitSchedulerTest, ReleasePutsTheUnitBack) {
  FakeClock clock;
  UnitScheduler scheduler(Units({"m"}, 1), {"m"}, SchedulerOptions(), &clock);
  const LeaseGrant grant = scheduler.Lease("w", 1).at(0);
  scheduler.Release(grant.lease_id, grant.fencing_token + 1);  // not the current token: ignored
  EXPECT_EQ(scheduler.Status().leased, 1);
  scheduler.Release(grant.lease_id, grant.fencing_token);
  EXPECT_EQ(scheduler.Status().pending, 1);
  EXPECT_EQ(scheduler.CheckCommit(grant.lease_id, grant.fencing_token, grant.unit->id), CommitCheck::kStaleToken);
  const std::vector<LeaseGrant> again = scheduler.Lease("w2", 1);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].fencing_token, 2u);
}

TEST(UnitSchedulerTest, ReportBuildsTheCheckpointTheNextLeaseReceives) {
  FakeClock clock;
  UnitScheduler scheduler(Units({"m"}, 1), {"m"}, Options(absl::Seconds(30), absl::Minutes(5)), &clock);
  const LeaseGrant first = scheduler.Lease("w1", 1).at(0);
  EXPECT_TRUE(scheduler.Report(first.lease_id, first.fencing_token, {Step(1), Step(2)}));
  EXPECT_TRUE(scheduler.Report(first.lease_id, first.fencing_token, {Step(2), Step(3)}));  // 2 again
  EXPECT_TRUE(scheduler.Report(first.lease_id, first.fencing_token, {Step(5)}));           // gap
  EXPECT_TRUE(scheduler.Report(first.lease_id, first.fencing_token, {Step(4), Step(6), Step(5)}));
  EXPECT_FALSE(scheduler.Report("no-such-lease", 1, {Step(5)}));

  // A report refreshes the deadline like a heartbeat.
  clock.Advance(absl::Seconds(20));
  EXPECT_TRUE(scheduler.Report(first.lease_id, first.fencing_token, {}));
  clock.Advance(absl::Seconds(20));
  EXPECT_EQ(scheduler.ExpireOverdue(), 0);

  clock.Advance(absl::Seconds(11));
  const LeaseGrant second = scheduler.Lease("w2", 1).at(0);
  EXPECT_THAT(AnswerNums(second.checkpoint), ElementsAre(1, 2, 3, 4));
  EXPECT_EQ(Parsed(second.checkpoint[3]).answer(), "answer 4");
  EXPECT_THAT(Parsed(second.checkpoint[3]).embedding(), ElementsAre(4.0f));

  // The old holder's reports no longer count.
  EXPECT_FALSE(scheduler.Report(first.lease_id, first.fencing_token, {Step(5)}));
  scheduler.Release(second.lease_id, second.fencing_token);
  EXPECT_THAT(AnswerNums(scheduler.Lease("w3", 1).at(0).checkpoint), ElementsAre(1, 2, 3, 4));
}

// One Report call for several leases (as a worker sends a round): each lease's steps go to its own
// unit, the leases not held are named by their index, and only the steps kept are taken.
TEST(UnitSchedulerTest, OneReportCoversEveryLeaseOfTheRound) {
  FakeClock clock;
  UnitScheduler scheduler(Units({"m"}, 3), {"m"}, Options(absl::Seconds(30), absl::Minutes(5)), &clock);
  const std::vector<LeaseGrant> held = scheduler.Lease("w1", 3);
  ASSERT_EQ(held.size(), 3u);
  std::vector<LeaseReport> reports;
  reports.push_back({held[0].lease_id, held[0].fencing_token, {Step(1), Step(2)}});
  reports.push_back({"no-such-lease", 1, {Step(1)}});
  reports.push_back({held[2].lease_id, held[2].fencing_token + 1, {Step(1)}});       // a token not issued
  reports.push_back({held[1].lease_id, held[1].fencing_token, {Step(1), Step(3)}});  // 3: a gap
  EXPECT_THAT(scheduler.Report(&reports), ElementsAre(1u, 2u));
  EXPECT_TRUE(reports[0].steps[1].bytes.empty());   // kept: moved out
  EXPECT_FALSE(reports[1].steps[0].bytes.empty());  // refused: left where it was
  EXPECT_FALSE(reports[3].steps[1].bytes.empty());  // past the gap: left too

  clock.Advance(absl::Minutes(6));  // every lease expires; each unit's next lease shows its checkpoint
  scheduler.ExpireOverdue();
  std::map<std::string, std::vector<int>> checkpoints;
  for (const LeaseGrant& grant : scheduler.Lease("w2", 3)) checkpoints[grant.unit->id] = AnswerNums(grant.checkpoint);
  EXPECT_THAT(checkpoints[held[0].unit->id], ElementsAre(1, 2));
  EXPECT_THAT(checkpoints[held[1].unit->id], ElementsAre(1));
  EXPECT_THAT(checkpoints[held[2].unit->id], IsEmpty());
}

TEST(UnitSchedulerTest, UnitDoneBeforeLeasingIsNeverLeased) {
  FakeClock clock;
  UnitScheduler scheduler(Units({"m"}, 3), {"m"}, SchedulerOptions(), &clock);
  scheduler.MarkDone("m#1");  // already in the journal at start-up
  scheduler.MarkDone("m#1");  // idempotent
  scheduler.MarkDone("not-a-unit");
  EXPECT_THAT(IdsOf(scheduler.Lease("w", 10)), ElementsAre("m#0", "m#2"));
  const SchedulerStatus status = scheduler.Status();
  EXPECT_EQ(status.done, 1);
  EXPECT_EQ(status.leased, 2);
  EXPECT_EQ(status.pending, 0);
}

TEST(UnitSchedulerTest, UnitByIdReturnsThePlansCopy) {
  FakeClock clock;
  UnitScheduler scheduler(Units({"m"}, 2), {"m"}, SchedulerOptions(), &clock);
  const UnitSpec* unit = scheduler.UnitById("m#1");
  ASSERT_NE(unit, nullptr);
  EXPECT_EQ(unit->index, 1);
  EXPECT_EQ(unit->item_id, "m/q1");
  EXPECT_EQ(scheduler.UnitById("m#9"), nullptr);
}

TEST(UnitSchedulerTest, StatusCountsModelsAndWorkers) {
  FakeClock clock;
  std::vector<UnitSpec> units = Units({"a", "b"}, 3);
  units.push_back(Units({"x"}, 1).at(0));
  units.back().index = 6;
  UnitScheduler scheduler(std::move(units), {"b", "a"}, Options(absl::Seconds(30), absl::Seconds(15)), &clock);
  EXPECT_FALSE(scheduler.AllDone());

  const std::vector<LeaseGrant> w1 = scheduler.Lease("w1", 3);  // b#0 a#0 x#0
  ASSERT_THAT(IdsOf(w1), ElementsAre("b#0", "a#0", "x#0"));
  scheduler.MarkDone("b#0");
  scheduler.MarkDone("a#0", /*failed=*/true);
  clock.Advance(absl::Seconds(5));
  scheduler.Heartbeat("w0", {},
                      WorkerInfo{.loops_in_flight = 7, .capacity = 8, .draining = true, .calls = {.retrying = 3}});
  clock.Advance(absl::Seconds(2));
  ASSERT_EQ(scheduler.Lease("w1", 1).size(), 1u);  // b#1

  const SchedulerStatus status = scheduler.Status();
  EXPECT_EQ(status.total, 7);
  EXPECT_EQ(status.done, 2);
  EXPECT_EQ(status.leased, 2);
  EXPECT_EQ(status.pending, 3);
  ASSERT_EQ(status.models.size(), 3u);
  EXPECT_EQ(status.models[0].model, "b");
  EXPECT_EQ(status.models[0].done, 1);
  EXPECT_EQ(status.models[0].leased, 1);
  EXPECT_EQ(status.models[0].pending, 1);
  EXPECT_EQ(status.models[0].failed, 0);
  EXPECT_EQ(status.models[1].model, "a");
  EXPECT_EQ(status.models[1].done, 1);
  EXPECT_EQ(status.models[1].failed, 1);
  EXPECT_EQ(status.models[1].pending, 2);
  EXPECT_EQ(status.models[2].model, "x");
  EXPECT_EQ(status.models[2].leased, 1);

  ASSERT_EQ(status.workers.size(), 2u);
  EXPECT_EQ(status.workers[0].worker_id, "w0");
  EXPECT_EQ(status.workers[0].since_last_seen, absl::Seconds(2));
  EXPECT_EQ(status.workers[0].leases, 0);
  EXPECT_EQ(status.workers[0].info.loops_in_flight, 7);
  EXPECT_EQ(status.workers[0].info.calls.retrying, 3);
  EXPECT_TRUE(status.workers[0].info.draining);
  EXPECT_EQ(status.workers[1].worker_id, "w1");
  EXPECT_EQ(status.workers[1].since_last_seen, absl::ZeroDuration());
  EXPECT_EQ(status.workers[1].leases, 2);

  for (const char* id : {"a#1", "a#2", "b#1", "b#2", "x#0"}) scheduler.MarkDone(id);
  EXPECT_TRUE(scheduler.AllDone());
}

TEST(UnitSchedulerTest, ConcurrentWorkersFinishEveryUnitExactlyOnce) {
  constexpr int kPerModel = 250;
  constexpr int kThreads = 4;
  FakeClock clock;
  UnitScheduler scheduler(Units({"a", "b", "c", "d"}, kPerModel), {"a", "b", "c", "d"}, SchedulerOptions(), &clock);
  std::vector<std::atomic<int>> accepted(4 * kPerModel);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const std::string worker = absl::StrCat("w", t);
      for (int round = 0; !scheduler.AllDone(); ++round) {
        const std::vector<LeaseGrant> grants = scheduler.Lease(worker, 1 + round % 5);
        std::vector<HeldLease> held;
        for (const LeaseGrant& grant : grants) held.push_back({grant.lease_id, grant.fencing_token});
        EXPECT_THAT(scheduler.Heartbeat(worker, held, WorkerInfo()), IsEmpty());
        for (size_t i = 0; i < grants.size(); ++i) {
          const LeaseGrant& grant = grants[i];
          if ((round + i) % 7 == 0) {  // give some back: they are leased again later
            scheduler.Release(grant.lease_id, grant.fencing_token);
            continue;
          }
          EXPECT_TRUE(scheduler.Report(grant.lease_id, grant.fencing_token, {Step(1)}));
          const CommitCheck check = scheduler.CheckCommit(grant.lease_id, grant.fencing_token, grant.unit->id);
          EXPECT_EQ(check, CommitCheck::kAccepted) << grant.unit->id;
          if (check == CommitCheck::kAccepted) ++accepted[grant.unit->index];
          scheduler.MarkDone(grant.unit->id);  // even on failure, so the other threads can finish
        }
        if (grants.empty()) std::this_thread::yield();
        (void)scheduler.Status();
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (size_t i = 0; i < accepted.size(); ++i) EXPECT_EQ(accepted[i].load(), 1) << "unit " << i;
  const SchedulerStatus status = scheduler.Status();
  EXPECT_EQ(status.done, 4 * kPerModel);
  EXPECT_EQ(status.leased, 0);
  EXPECT_EQ(status.pending, 0);
}

// ---- Restore: a restarted coordinator gives running units back to their workers ----

// What the first coordinator granted, as its lease log keeps it.
std::vector<RestoredLease> AsRestored(const std::vector<LeaseGrant>& grants, const std::string& worker) {
  std::vector<RestoredLease> out;
  for (const LeaseGrant& g : grants) out.push_back({g.unit->id, g.lease_id, g.fencing_token, worker});
  return out;
}

TEST(UnitSchedulerTest, RestoredLeasesStayWithTheirWorkerAndItsCommitsAreAccepted) {
  FakeClock clock;
  const std::vector<UnitSpec> units = Units({"m"}, 4);
  UnitScheduler before(&units, {"m"}, SchedulerOptions(), &clock);
  const std::vector<LeaseGrant> granted = before.Lease("w", 3);
  before.MarkDone("m#0");  // committed before the crash: in the journal, not given back

  UnitScheduler after(&units, {"m"}, SchedulerOptions(), &clock);
  after.MarkDone("m#0");
  EXPECT_EQ(after.Restore(AsRestored(granted, "w")).size(), 2u);
  EXPECT_THAT(IdsOf(after.Lease("other", 10)), ElementsAre("m#3")) << "a restored unit was handed out again";
  EXPECT_THAT(
      after.Heartbeat(
          "w", {{granted[1].lease_id, granted[1].fencing_token}, {granted[2].lease_id, granted[2].fencing_token}},
          WorkerInfo()),
      IsEmpty());
  EXPECT_EQ(after.CheckCommit(granted[1].lease_id, granted[1].fencing_token, "m#1"), CommitCheck::kAccepted);
  EXPECT_EQ(after.Status().leased, 3);
}

TEST(UnitSchedulerTest, RestoredLeaseTheWorkerDoesNotListReturnsAtItsFirstHeartbeat) {
  FakeClock clock;
  const std::vector<UnitSpec> units = Units({"m"}, 2);
  UnitScheduler before(&units, {"m"}, SchedulerOptions(), &clock);
  const std::vector<LeaseGrant> granted = before.Lease("w", 2);

  UnitScheduler after(&units, {"m"}, SchedulerOptions(), &clock);
  ASSERT_EQ(after.Restore(AsRestored(granted, "w")).size(), 2u);
  // The worker never got the second lease (the coordinator died before its reply arrived).
  EXPECT_THAT(after.Heartbeat("w", {{granted[0].lease_id, granted[0].fencing_token}}, WorkerInfo()), IsEmpty());
  const std::vector<LeaseGrant> again = after.Lease("other", 10);
  ASSERT_THAT(IdsOf(again), ElementsAre("m#1"));
  EXPECT_GT(again[0].fencing_token, granted[1].fencing_token) << "fencing tokens must go on from the restored ones";
  EXPECT_EQ(after.CheckCommit(granted[1].lease_id, granted[1].fencing_token, "m#1"), CommitCheck::kStaleToken);
  // Later heartbeats do not take confirmed leases back.
  EXPECT_THAT(after.Heartbeat("w", {{granted[0].lease_id, granted[0].fencing_token}}, WorkerInfo()), IsEmpty());
  EXPECT_EQ(after.CheckCommit(granted[0].lease_id, granted[0].fencing_token, "m#0"), CommitCheck::kAccepted);
}

TEST(UnitSchedulerTest, RestoredLeasesOfAWorkerThatNeverReturnsExpire) {
  FakeClock clock;
  const std::vector<UnitSpec> units = Units({"m"}, 1);
  UnitScheduler before(&units, {"m"}, SchedulerOptions(), &clock);
  const std::vector<LeaseGrant> granted = before.Lease("gone", 1);

  UnitScheduler after(&units, {"m"}, Options(absl::Seconds(30), absl::Seconds(15)), &clock);
  ASSERT_EQ(after.Restore(AsRestored(granted, "gone")).size(), 1u);
  EXPECT_THAT(after.Lease("other", 1), IsEmpty());
  clock.Advance(absl::Seconds(16));
  EXPECT_EQ(after.ExpireOverdue(), 1);
  EXPECT_THAT(IdsOf(after.Lease("other", 1)), ElementsAre("m#0"));
}

TEST(UnitSchedulerTest, RestoreSkipsUnknownDoneAndRepeatedLeases) {
  FakeClock clock;
  const std::vector<UnitSpec> units = Units({"m"}, 2);
  UnitScheduler after(&units, {"m"}, SchedulerOptions(), &clock);
  after.MarkDone("m#0");
  const std::vector<RestoredLease> records = {{"m#0", "L0", 1, "w"},   // committed
                                              {"nope", "L9", 1, "w"},  // not planned
                                              {"m#1", "", 1, "w"},     // no lease id
                                              {"m#1", "L1", 4, "w"},
                                              {"m#1", "L2", 5, "w"}};  // the unit is leased already
  const std::vector<RestoredLease> restored = after.Restore(records);
  ASSERT_EQ(restored.size(), 1u);
  EXPECT_EQ(restored[0].lease_id, "L1");
  EXPECT_EQ(after.CheckCommit("L1", 4, "m#1"), CommitCheck::kAccepted);
}

// A lease id names its unit's slot in the plan of the coordinator that granted it. A plan that grew
// in front of the unit moves it to another slot: its restored lease is still found, also while the
// lease its id names now is someone else's, and only until it ends. (One clock gives both schedulers
// the same salt: the new units' leases would get the old ids, were those not kept from reuse.)
TEST(UnitSchedulerTest, ARestoredLeaseIsFoundWhenThePlanMovedItsUnit) {
  FakeClock clock;
  const std::vector<UnitSpec> old_plan = Units({"m"}, 2);
  UnitScheduler before(&old_plan, {"m"}, SchedulerOptions(), &clock);
  const std::vector<LeaseGrant> granted = before.Lease("w", 2);
  ASSERT_EQ(granted.size(), 2u);

  std::vector<UnitSpec> grown = Units({"a"}, 2);  // two new units planned first: m#0 and m#1 move by two
  for (const UnitSpec& unit : old_plan) grown.push_back(unit);
  UnitScheduler after(&grown, {"a", "m"}, SchedulerOptions(), &clock);
  ASSERT_EQ(after.Restore(AsRestored(granted, "w")).size(), 2u);
  const std::vector<LeaseGrant> fresh = after.Lease("v", 2);  // the new units, in the slots the old ids name
  ASSERT_THAT(IdsOf(fresh), UnorderedElementsAre("a#0", "a#1"));
  for (const LeaseGrant& lease : granted) {
    EXPECT_EQ(after.CheckCommit(lease.lease_id, lease.fencing_token, lease.unit->id), CommitCheck::kAccepted);
  }
  for (const LeaseGrant& lease : fresh) {
    EXPECT_EQ(after.CheckCommit(lease.lease_id, lease.fencing_token, lease.unit->id), CommitCheck::kAccepted);
  }
  after.Release(granted[0].lease_id, granted[0].fencing_token);
  EXPECT_FALSE(after.Report(granted[0].lease_id, granted[0].fencing_token, {Step(1)}));
  EXPECT_TRUE(after.Report(granted[1].lease_id, granted[1].fencing_token, {Step(1)}));
  EXPECT_EQ(after.Status().leased, 3);
}

// A lease id names its slot, and is short enough to sit inside a std::string (no allocation) for plans
// below 16.7 M units; the leases of one scheduler all have different ids.
TEST(UnitSchedulerTest, LeaseIdsNameTheirSlotAndAreShort) {
  EXPECT_EQ(UnitScheduler::LeaseIdOf(0x1e240, 0x0badf00d), "1e240-0badf00d");
  EXPECT_EQ(UnitScheduler::LeaseIdOf(0xffffff, 0xffffffff).size(), 15u);
  EXPECT_EQ(UnitScheduler::SlotNamedBy(UnitScheduler::LeaseIdOf(0xffffff, 7)), 0xffffffu);
  EXPECT_EQ(UnitScheduler::SlotNamedBy("a1b2c3d4e5f60718"), std::nullopt);  // an id of the earlier form
  EXPECT_EQ(UnitScheduler::SlotNamedBy("lease-1"), std::nullopt);

  FakeClock clock;
  UnitScheduler scheduler(Units({"m"}, 3), {"m"}, Options(absl::Seconds(30), absl::Minutes(5)), &clock);
  std::set<std::string> ids;
  for (int round = 0; round < 100; ++round) {  // each unit leased 100 times
    for (const LeaseGrant& grant : scheduler.Lease("w", 3)) {
      EXPECT_LE(grant.lease_id.size(), 15u) << grant.lease_id;
      EXPECT_EQ(UnitScheduler::SlotNamedBy(grant.lease_id), static_cast<size_t>(grant.unit->index));
      ids.insert(grant.lease_id);
      scheduler.Release(grant.lease_id, grant.fencing_token);
    }
  }
  EXPECT_EQ(ids.size(), 300u);
}

}  // namespace
}  // namespace noveltygrid
