// CoordinatorCore::Lease under large resumed checkpoints: a reply stops taking grants once it is over
// kLeaseReplyBudgetBytes, gives the rest back for the next Lease, and always sends its first grant.
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

using ::testing::Contains;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::UnorderedElementsAre;

// Four units whose resumed checkpoints are large: a lease reply stops taking grants once it is over
// kLeaseReplyBudgetBytes and gives the rest back for the next Lease.
class LeaseReplyBudgetTest : public CoordinatorCoreTest {
 protected:
  LeaseReplyBudgetTest() : CoordinatorCoreTest(4) {}

  // Leases every unit to "w0", reports one step of `answer_bytes[i]` bytes for the i-th lease, and
  // releases them all: each unit's next lease carries that step as its checkpoint.
  void CheckpointEveryUnit(const std::vector<size_t>& answer_bytes) {
    const v1::LeaseResponse first = LeaseUpTo(4, "w0");
    ASSERT_EQ(first.leases_size(), 4);
    for (int i = 0; i < 4; ++i) {
      v1::ReportRequest report = ReportOf(first.leases(i), 1, 1);
      report.mutable_leases(0)->mutable_steps(0)->set_answer(std::string(answer_bytes[i], 'a' + i));
      v1::ReportResponse response;
      ASSERT_TRUE(core().Report(kToken, report, &response).ok());
      ASSERT_THAT(response.rejected_lease_ids(), IsEmpty());
      ASSERT_TRUE(ReleaseLease(first.leases(i)).ok());
    }
  }

  static std::vector<std::string> UnitsOf(const v1::LeaseResponse& response) {
    std::vector<std::string> units;
    for (const v1::Lease& lease : response.leases()) units.push_back(lease.unit().id());
    return units;
  }
};

TEST_F(LeaseReplyBudgetTest, GrantsPastTheBudgetAreGivenBackAndLeasedNext) {
  // Three checkpoints of 0.4 budgets: the third takes the reply over the budget, so the fourth is
  // given back.
  const size_t step = kLeaseReplyBudgetBytes * 2 / 5;
  CheckpointEveryUnit({step, step, step, step});
  const v1::LeaseResponse reply = LeaseUpTo(4, "w1");
  ASSERT_EQ(reply.leases_size(), 3);
  EXPECT_GT(reply.ByteSizeLong(), kLeaseReplyBudgetBytes);
  EXPECT_LT(reply.ByteSizeLong(), static_cast<size_t>(kMaxMessageBytes));
  for (const v1::Lease& lease : reply.leases()) {
    ASSERT_EQ(lease.checkpoint_size(), 1);
    EXPECT_EQ(lease.checkpoint(0).answer().size(), step);
  }
  EXPECT_EQ(StatusNow().units_leased(), 3);
  EXPECT_EQ(StatusNow().units_pending(), 1);

  // The unit given back goes to the next worker that asks, checkpoint and all.
  const v1::LeaseResponse next = LeaseUpTo(4, "w2");
  ASSERT_EQ(next.leases_size(), 1);
  const std::vector<std::string> first_units = UnitsOf(reply);
  EXPECT_THAT(first_units, Not(Contains(next.leases(0).unit().id())));
  ASSERT_EQ(next.leases(0).checkpoint_size(), 1);
  EXPECT_EQ(next.leases(0).checkpoint(0).answer().size(), step);
  EXPECT_EQ(StatusNow().units_pending(), 0);
}

TEST_F(LeaseReplyBudgetTest, ACheckpointOverTheBudgetStillGoesOutAlone) {
  const size_t large = kLeaseReplyBudgetBytes + 1024;
  CheckpointEveryUnit({large, large, large, large});
  std::vector<std::string> units;
  for (int i = 0; i < 4; ++i) {
    const v1::LeaseResponse reply = LeaseUpTo(4, absl::StrCat("w", i + 1));
    ASSERT_EQ(reply.leases_size(), 1) << i;
    ASSERT_EQ(reply.leases(0).checkpoint_size(), 1);
    EXPECT_EQ(reply.leases(0).checkpoint(0).answer().size(), large);
    units.push_back(reply.leases(0).unit().id());
  }
  EXPECT_THAT(units, UnorderedElementsAre("u0", "u1", "u2", "u3"));
}

}  // namespace
}  // namespace noveltygrid::testing
