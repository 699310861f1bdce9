// Commits on two threads (the service's two committers) overlap in their sink calls: the checks and
// the marking done stay serialised, and a unit one commit is persisting is waited for by another that
// carries it, which then finds it done (a duplicate), so that no unit is persisted twice.
#include <algorithm>
#include <functional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/time/clock.h"
#include "coordinator/service/coordinator_core.h"
#include "gtest/gtest.h"
#include "tests/coordinator/service/coordinator_core_fixture.h"
#include "tests/coordinator/service/test_coordinator.h"

namespace noveltygrid::testing {
namespace {

constexpr absl::Duration kPatience = absl::Seconds(30);  // only a failing test waits this long

using Outcomes = std::vector<v1::CompleteOutcome>;

class OverlappingCommitsTest : public CoordinatorCoreTest {
 protected:
  OverlappingCommitsTest() : CoordinatorCoreTest(4) {
    const v1::LeaseResponse leased = LeaseUpTo(4);
    leases_.assign(leased.leases().begin(), leased.leases().end());
  }

  // Commits `first` on one thread and holds its sink call; then, on another thread, `retry`, which
  // carries a unit of `first` and so must wait for that write to end (Commits().waited) rather than go
  // to the sink; then `before_resume`, and lets the held write go on. Returns both calls' outcomes.
  std::pair<Outcomes, Outcomes> RetryWhileHeld(const std::vector<v1::Lease>& first, const std::vector<v1::Lease>& retry,
                                               const std::function<void()>& before_resume) {
    Outcomes first_outcomes;
    Outcomes retry_outcomes;
    coordinator_.HoldPersist();
    std::thread a([&] { first_outcomes = CompleteManyOf(first); });
    EXPECT_TRUE(coordinator_.AwaitHeld(1, kPatience));
    std::thread c([&] { retry_outcomes = CompleteManyOf(retry); });
    const absl::Time give_up = absl::Now() + kPatience;
    while (core().Commits().waited == 0 && absl::Now() < give_up) std::this_thread::yield();
    EXPECT_EQ(core().Commits().waited, 1);
    before_resume();
    coordinator_.ResumePersist();
    a.join();
    c.join();
    return {first_outcomes, retry_outcomes};
  }

  std::vector<v1::Lease> leases_;
};

TEST_F(OverlappingCommitsTest, TwoGroupsOfOtherUnitsAreInTheSinkAtOnce) {
  ASSERT_EQ(leases_.size(), 4u);
  coordinator_.HoldPersist();
  std::vector<v1::CompleteOutcome> first;
  std::vector<v1::CompleteOutcome> second;
  std::thread a([&] { first = CompleteManyOf({leases_[0]}); });
  std::thread b([&] { second = CompleteManyOf({leases_[1], leases_[2]}); });
  // Both groups inside their sink calls at the same time: one does not hold the commit lock through it.
  EXPECT_TRUE(coordinator_.AwaitHeld(2, kPatience));
  coordinator_.ResumePersist();
  a.join();
  b.join();
  ASSERT_EQ(first.size(), 1u);
  ASSERT_EQ(second.size(), 2u);
  for (const v1::CompleteOutcome& outcome : {first[0], second[0], second[1]}) {
    EXPECT_TRUE(outcome.response().accepted());
    EXPECT_FALSE(outcome.response().duplicate());
  }
  EXPECT_EQ(coordinator_.persist_attempts(), 2);
  EXPECT_EQ(StatusNow().units_done(), 3);
  EXPECT_EQ(coordinator_.marked_done(), 2);  // once per group
}

TEST_F(OverlappingCommitsTest, AUnitAnotherGroupIsPersistingIsADuplicateOnceThatGroupIsDone) {
  ASSERT_EQ(leases_.size(), 4u);
  // The worker sends u0 again (its answer was late) with u1, while the first write of u0 is held.
  const auto [first, retry] = RetryWhileHeld({leases_[0]}, {leases_[0], leases_[1]}, [] {});
  ASSERT_EQ(first.size(), 1u);
  ASSERT_EQ(retry.size(), 2u);
  EXPECT_TRUE(first[0].response().accepted());
  EXPECT_FALSE(first[0].response().duplicate());
  EXPECT_TRUE(retry[0].response().accepted());
  EXPECT_TRUE(retry[0].response().duplicate());
  EXPECT_TRUE(retry[1].response().accepted());
  EXPECT_FALSE(retry[1].response().duplicate());
  // u0 persisted once, by the first group; the retry's sink call carried u1 alone.
  EXPECT_EQ(coordinator_.batches(), (std::vector<std::vector<std::string>>{{"u0"}, {"u1"}}));
  EXPECT_EQ(StatusNow().units_done(), 2);
}

TEST_F(OverlappingCommitsTest, AUnitWhoseWriteFailedIsCommittedByTheGroupThatWaitedForIt) {
  ASSERT_EQ(leases_.size(), 4u);
  coordinator_.FailPersist(true);
  // The held write fails; the store is back for the retry, which finds u0 still leased and persists it.
  const auto [first, retry] = RetryWhileHeld({leases_[0]}, {leases_[0]}, [this] { coordinator_.FailPersist(false); });
  ASSERT_EQ(first.size(), 1u);
  ASSERT_EQ(retry.size(), 1u);
  EXPECT_EQ(static_cast<absl::StatusCode>(first[0].code()), absl::StatusCode::kUnavailable);
  EXPECT_EQ(static_cast<absl::StatusCode>(retry[0].code()), absl::StatusCode::kOk);
  EXPECT_TRUE(retry[0].response().accepted());
  EXPECT_FALSE(retry[0].response().duplicate());
  EXPECT_EQ(coordinator_.batches(), (std::vector<std::vector<std::string>>{{"u0"}}));
  EXPECT_EQ(StatusNow().units_done(), 1);
}

TEST_F(OverlappingCommitsTest, AGroupPersistsWhatItAcceptedBeforeWaitingForAnotherGroupsUnit) {
  ASSERT_EQ(leases_.size(), 4u);
  coordinator_.HoldPersist();
  // Group A: a Complete of u1, then a CompleteMany repeating u1 with u0. The repeat persists u1 first,
  // alone, and that write is held, with u0 still to be checked.
  const v1::CompleteManyRequest u1_alone = CompleteManyRequestOf({leases_[1]});
  const v1::CompleteManyRequest u1_and_u0 = CompleteManyRequestOf({leases_[1], leases_[0]});
  v1::CompleteManyResponse a_first;
  v1::CompleteManyResponse a_second;
  CommitCall a_calls[] = {{kToken, u1_alone, &a_first}, {kToken, u1_and_u0, &a_second}};
  std::thread a([&] { core().CommitCalls({&a_calls[0], &a_calls[1]}); });
  ASSERT_TRUE(coordinator_.AwaitHeld(1, kPatience));
  // Group B: u0, then u1, which A is persisting. B must persist u0 before it waits for u1: while it
  // waits, A goes on to check u0, and must find it being persisted, not free to take.
  Outcomes b;
  std::thread b_thread([&] { b = CompleteManyOf({leases_[0], leases_[1]}); });
  EXPECT_TRUE(coordinator_.AwaitHeld(2, kPatience));  // A's write of u1 and B's of u0, at once
  coordinator_.ResumePersist();
  a.join();
  b_thread.join();
  // Each unit persisted once and accepted once; the other sight of it is a duplicate.
  std::vector<std::string> persisted;
  for (const std::vector<std::string>& batch : coordinator_.batches()) {
    persisted.insert(persisted.end(), batch.begin(), batch.end());
  }
  std::sort(persisted.begin(), persisted.end());
  EXPECT_EQ(persisted, (std::vector<std::string>{"u0", "u1"}));
  ASSERT_EQ(a_first.outcomes_size(), 1);
  ASSERT_EQ(a_second.outcomes_size(), 2);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_FALSE(a_first.outcomes(0).response().duplicate());  // u1, first sight
  EXPECT_TRUE(a_second.outcomes(0).response().duplicate());  // u1 again
  EXPECT_TRUE(a_second.outcomes(1).response().duplicate());  // u0: B's
  EXPECT_FALSE(b[0].response().duplicate());                 // u0
  EXPECT_TRUE(b[1].response().duplicate());                  // u1: A's
  EXPECT_EQ(core().Commits().accepted, 2);
  EXPECT_EQ(StatusNow().units_done(), 2);
}

}  // namespace
}  // namespace noveltygrid::testing
