// Group commit (CoordinatorCore::CommitCalls): Complete and CompleteMany calls committed together are
// persisted in one sink call and each is answered exactly as if it had been made alone, after the
// calls before it. Each scenario is played twice from the same state -- together on coordinator_, one
// call at a time on alone_ -- and the answers are compared.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "coordinator/service/coordinator_core.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/coordinator/service/coordinator_core_fixture.h"
#include "tests/coordinator/service/test_coordinator.h"

namespace noveltygrid::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::SizeIs;

constexpr int kUnits = 6;

// One commit call: a CompleteMany of `units`, or a Complete of the one unit.
struct Call {
  std::vector<v1::Lease> units;
  bool many = true;
  std::string token = kToken;
};

// What a call was answered: its status and its response.
struct Answer {
  absl::Status status;
  v1::CompleteManyResponse many;
  v1::CompleteResponse one;

  std::string Text() const { return absl::StrCat(status.ToString(), " ", many.DebugString(), one.DebugString()); }
  absl::StatusCode CodeOf(int unit) const { return static_cast<absl::StatusCode>(many.outcomes(unit).code()); }
};

class CommitCallsTest : public CoordinatorCoreTest {
 protected:
  CommitCallsTest() : CoordinatorCoreTest(kUnits) {}

  // The state every scenario starts from, on core(): u0..u5 leased to w1 (in order), u1 then released
  // and leased to w2 (so w1's lease of it is stale), u5 committed. Returns w1's leases, then a lease
  // of no planned unit.
  std::vector<v1::Lease> Start() {
    const v1::LeaseResponse leased = LeaseUpTo(kUnits);
    std::vector<v1::Lease> leases(leased.leases().begin(), leased.leases().end());
    EXPECT_THAT(leases, SizeIs(kUnits));
    EXPECT_TRUE(ReleaseLease(leases[1]).ok());
    EXPECT_EQ(LeaseOne("w2").unit().id(), "u1");
    v1::CompleteResponse committed;
    EXPECT_TRUE(core().Complete(kToken, CompleteOf(leases[5]), &committed).ok());
    v1::Lease unknown = leases[0];
    unknown.set_lease_id("no-such-lease");
    unknown.mutable_unit()->set_id("no-such-unit");
    leases.push_back(unknown);
    return leases;
  }

  // Makes `calls` on core(): in one CommitCalls when `together`, else one after the other through
  // Complete and CompleteMany.
  std::vector<Answer> Commit(const std::vector<Call>& calls, bool together) {
    std::vector<v1::CompleteManyRequest> many(calls.size());
    std::vector<v1::CompleteRequest> one(calls.size());
    std::vector<Answer> answers(calls.size());
    std::vector<CommitCall> group;
    group.reserve(calls.size());
    for (size_t i = 0; i < calls.size(); ++i) {
      if (calls[i].many) {
        many[i] = CompleteManyRequestOf(calls[i].units);
        group.emplace_back(calls[i].token, many[i], &answers[i].many);
      } else {
        one[i] = CompleteOf(calls[i].units.at(0));
        group.emplace_back(calls[i].token, one[i], &answers[i].one);
      }
    }
    if (together) {
      std::vector<CommitCall*> pointers;
      for (CommitCall& call : group) pointers.push_back(&call);
      core().CommitCalls(pointers);
      for (size_t i = 0; i < calls.size(); ++i) answers[i].status = group[i].status();
      return answers;
    }
    for (size_t i = 0; i < calls.size(); ++i) {
      answers[i].status = calls[i].many ? core().CompleteMany(calls[i].token, many[i], &answers[i].many)
                                        : core().Complete(calls[i].token, one[i], &answers[i].one);
    }
    return answers;
  }

  // Plays the scenario `calls_of` (given Start()'s leases) on coordinator_ together and on alone_ one
  // call at a time (with the sink failing when `failing_sink`), checks that every call got the same
  // answer both ways, and returns coordinator_'s.
  template <typename CallsOf>
  std::vector<Answer> Play(CallsOf calls_of, bool failing_sink = false) {
    std::vector<Answer> answers[2];
    for (bool together : {true, false}) {
      target_ = together ? &coordinator_ : &alone_;
      const std::vector<v1::Lease> leases = Start();
      if (together) leases_ = leases;
      target_->FailPersist(failing_sink);
      answers[together] = Commit(calls_of(leases), together);
    }
    target_ = &coordinator_;
    EXPECT_EQ(answers[true].size(), answers[false].size());
    for (size_t i = 0; i < answers[true].size() && i < answers[false].size(); ++i) {
      EXPECT_EQ(answers[true][i].Text(), answers[false][i].Text()) << "call " << i;
    }
    EXPECT_EQ(StatusNow().units_done(), AloneStatus().units_done());
    EXPECT_EQ(StatusNow().units_leased(), AloneStatus().units_leased());
    return answers[true];
  }

  v1::StatusResponse AloneStatus() {
    v1::StatusResponse status;
    EXPECT_TRUE(alone_.core().Status(kToken, v1::StatusRequest(), &status).ok());
    return status;
  }

  TestCoordinator alone_{kUnits, &clock_};
  std::vector<v1::Lease> leases_;  // Start()'s on coordinator_, for what a test does after Play
};

TEST_F(CommitCallsTest, MergedCallsArePersistedInOneSinkCallAndEachIsAnsweredAsAlone) {
  const std::vector<Answer> answers = Play([](const std::vector<v1::Lease>& l) {
    return std::vector<Call>{{{l[0], l[1], l[2]}}, {{l[3]}, /*many=*/false}, {{l[5], l[6], l[4]}}};
  });
  ASSERT_THAT(answers, SizeIs(3));
  // Start()'s commit of u5, then one sink call for the group; alone, one per call.
  EXPECT_THAT(coordinator_.batches(), ElementsAre(ElementsAre("u5"), ElementsAre("u0", "u2", "u3", "u4")));
  EXPECT_THAT(alone_.batches(), SizeIs(4));
  ASSERT_EQ(answers[0].many.outcomes_size(), 3);
  EXPECT_TRUE(answers[0].many.outcomes(0).response().accepted());
  EXPECT_FALSE(answers[0].many.outcomes(1).response().accepted());  // w1's stale lease of u1
  EXPECT_TRUE(answers[0].many.outcomes(2).response().accepted());
  EXPECT_TRUE(answers[1].status.ok());
  EXPECT_TRUE(answers[1].one.accepted());
  ASSERT_EQ(answers[2].many.outcomes_size(), 3);
  EXPECT_TRUE(answers[2].many.outcomes(0).response().duplicate());  // u5, committed before
  EXPECT_EQ(answers[2].CodeOf(1), absl::StatusCode::kNotFound);
  EXPECT_TRUE(answers[2].many.outcomes(2).response().accepted());
  EXPECT_FALSE(answers[2].many.outcomes(2).response().duplicate());
  EXPECT_EQ(StatusNow().units_done(), 5);
  EXPECT_EQ(coordinator_.marked_done(), 2);  // Start()'s commit, then one wake-up for the group
}

TEST_F(CommitCallsTest, AUnitInTwoMergedCallsIsADuplicateInTheLaterOne) {
  const std::vector<Answer> answers = Play([](const std::vector<v1::Lease>& l) {
    return std::vector<Call>{{{l[0], l[2]}}, {{l[3], l[0]}}, {{l[2]}, /*many=*/false}};
  });
  ASSERT_THAT(answers, SizeIs(3));
  ASSERT_EQ(answers[1].many.outcomes_size(), 2);
  EXPECT_FALSE(answers[1].many.outcomes(0).response().duplicate());
  EXPECT_TRUE(answers[1].many.outcomes(1).response().accepted());
  EXPECT_TRUE(answers[1].many.outcomes(1).response().duplicate());
  EXPECT_TRUE(answers[2].one.duplicate());
  // What was accepted before the repeat is persisted before the repeat is checked; each unit once.
  EXPECT_THAT(coordinator_.batches(), ElementsAre(ElementsAre("u5"), ElementsAre("u0", "u2", "u3")));
  EXPECT_EQ(core().Commits().duplicates, 2);
}

TEST_F(CommitCallsTest, AFailedSinkCallFailsTheAcceptedUnitsOfEveryMergedCallAndALaterGroupCommitsThem) {
  const auto calls_of = [](const std::vector<v1::Lease>& l) {
    return std::vector<Call>{{{l[0], l[1], l[2]}}, {{l[3]}, /*many=*/false}, {{l[4]}}};
  };
  const std::vector<Answer> failed = Play(calls_of, /*failing_sink=*/true);
  ASSERT_THAT(failed, SizeIs(3));
  EXPECT_EQ(coordinator_.persist_attempts(), 2);  // Start()'s, then one for the group
  for (int unit : {0, 2}) {
    EXPECT_EQ(failed[0].CodeOf(unit), absl::StatusCode::kUnavailable) << unit;
    EXPECT_THAT(failed[0].many.outcomes(unit).message(), HasSubstr("disk full")) << unit;
    EXPECT_FALSE(failed[0].many.outcomes(unit).response().accepted()) << unit;
  }
  EXPECT_EQ(failed[0].CodeOf(1), absl::StatusCode::kOk);  // the stale lease is answered as before
  EXPECT_TRUE(absl::IsUnavailable(failed[1].status)) << failed[1].status;
  EXPECT_EQ(failed[2].CodeOf(0), absl::StatusCode::kUnavailable);
  EXPECT_EQ(StatusNow().units_done(), 1);
  EXPECT_EQ(StatusNow().units_leased(), 5);  // u0, u2, u3, u4 with w1 and u1 with w2
  EXPECT_EQ(coordinator_.marked_done(), 1);

  coordinator_.FailPersist(false);
  const std::vector<Answer> retried = Commit(calls_of(leases_), /*together=*/true);
  ASSERT_THAT(retried, SizeIs(3));
  EXPECT_TRUE(retried[0].many.outcomes(0).response().accepted());
  EXPECT_FALSE(retried[0].many.outcomes(0).response().duplicate());
  EXPECT_TRUE(retried[1].status.ok());
  EXPECT_TRUE(retried[1].one.accepted());
  EXPECT_TRUE(retried[2].many.outcomes(0).response().accepted());
  EXPECT_THAT(coordinator_.batches(), ElementsAre(ElementsAre("u5"), ElementsAre("u0", "u2", "u3", "u4")));
  EXPECT_EQ(StatusNow().units_done(), 5);
}

TEST_F(CommitCallsTest, ACallWithAWrongTokenIsRefusedAloneAndTheOthersCommitTogether) {
  const std::vector<Answer> answers = Play([](const std::vector<v1::Lease>& l) {
    return std::vector<Call>{
        {{l[0]}}, {{l[2], l[3]}, /*many=*/true, "wrong"}, {{l[2]}, /*many=*/false, ""}, {{l[4]}, /*many=*/false}};
  });
  ASSERT_THAT(answers, SizeIs(4));
  EXPECT_TRUE(answers[0].many.outcomes(0).response().accepted());
  EXPECT_TRUE(absl::IsUnauthenticated(answers[1].status)) << answers[1].status;
  EXPECT_EQ(answers[1].many.outcomes_size(), 0);  // its units were not looked at
  EXPECT_TRUE(absl::IsUnauthenticated(answers[2].status)) << answers[2].status;
  EXPECT_FALSE(answers[2].one.accepted());
  EXPECT_TRUE(answers[3].one.accepted());
  EXPECT_THAT(coordinator_.batches(), ElementsAre(ElementsAre("u5"), ElementsAre("u0", "u4")));
  EXPECT_EQ(StatusNow().units_leased(), 3);  // u2 and u3 with w1, u1 with w2
  const CommitCounts counts = core().Commits();
  EXPECT_EQ(counts.accepted, 3);
  EXPECT_EQ(counts.duplicates + counts.stale_tokens + counts.unknown_units + counts.unpersisted, 0);
}

}  // namespace
}  // namespace noveltygrid::testing
