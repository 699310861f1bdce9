// A re-leased unit's checkpoint for workers that know Step.embedding_in_store and for older ones.
#include <string>

#include "coordinator/service/coordinator_core.h"
#include "gtest/gtest.h"
#include "tests/coordinator/service/coordinator_core_fixture.h"
#include "tests/coordinator/service/test_coordinator.h"

namespace noveltygrid::testing {
namespace {

// Steps 1-3 of a unit were reported, step 2 without its embedding (the reporting worker's store took
// it), then the lease was released.
class ResumedCheckpointTest : public CoordinatorCoreTest {
 protected:
  void SetUp() override {
    const v1::Lease first = LeaseOne();
    v1::ReportRequest report = ReportOf(first, 1, 3);
    for (v1::Step& step : *report.mutable_leases(0)->mutable_steps()) {
      if (step.answer_num() == 2) {
        step.set_embedding_in_store(true);
      } else {
        step.add_embedding(static_cast<float>(step.answer_num()));
      }
    }
    v1::ReportResponse reported;
    ASSERT_TRUE(core().Report(kToken, report, &reported).ok());
    ASSERT_TRUE(ReleaseLease(first).ok());
    unit_id_ = first.unit().id();
  }

  v1::Lease Resume(bool knows_embedding_in_store) {
    v1::LeaseRequest request = LeaseRequestOf(1, "w2");
    request.set_knows_embedding_in_store(knows_embedding_in_store);
    v1::LeaseResponse response;
    EXPECT_TRUE(core().Lease(kToken, request, &response).ok());
    EXPECT_EQ(response.leases_size(), 1);
    if (response.leases_size() != 1) return v1::Lease();
    EXPECT_EQ(response.leases(0).unit().id(), unit_id_);
    return response.leases(0);
  }

  std::string unit_id_;
};

TEST_F(ResumedCheckpointTest, AWorkerThatKnowsTheFlagGetsEveryStep) {
  const v1::Lease lease = Resume(/*knows_embedding_in_store=*/true);
  ASSERT_EQ(lease.checkpoint_size(), 3);
  EXPECT_TRUE(lease.checkpoint(1).embedding_in_store());
  EXPECT_EQ(lease.checkpoint(1).embedding_size(), 0);
  EXPECT_EQ(lease.checkpoint(2).embedding_size(), 1);
}

TEST_F(ResumedCheckpointTest, AnOlderWorkerGetsTheStepsBeforeTheFirstFlaggedOne) {
  const v1::Lease lease = Resume(/*knows_embedding_in_store=*/false);
  ASSERT_EQ(lease.checkpoint_size(), 1);
  EXPECT_EQ(lease.checkpoint(0).answer_num(), 1);
  EXPECT_EQ(lease.checkpoint(0).embedding_size(), 1);
  // Handing out the shorter checkpoint kept the whole one for the next lease.
  ASSERT_TRUE(ReleaseLease(lease).ok());
  EXPECT_EQ(Resume(/*knows_embedding_in_store=*/true).checkpoint_size(), 3);
}

}  // namespace
}  // namespace noveltygrid::testing
