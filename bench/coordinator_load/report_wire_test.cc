// report_wire.h: a Report framed around steps serialized once, and a CompleteMany framed around units
// serialized whole, parse to the ones built as messages.
#include "bench/coordinator_load/report_wire.h"

#include <string>

#include "gtest/gtest.h"
#include "noveltygrid/v1/coordinator.pb.h"

namespace noveltygrid::load {
namespace {

v1::Step FixedStep(const std::string& answer, double coherence) {
  v1::Step step;
  step.set_answer(answer);
  step.set_coherence(coherence);
  step.set_valid(true);
  for (int i = 0; i < 256; ++i) step.add_embedding(0.01f * static_cast<float>(i) - 1.0f);
  return step;
}

TEST(ReportWireTest, FramedReportParsesToTheReportBuiltAsMessages) {
  const v1::Step a = FixedStep("an answer", 71);
  const v1::Step b = FixedStep(std::string(300, 'x'), 94);  // a length that takes two varint bytes
  struct Made {
    const v1::Step* fixed;
    int answer_num;
    double novelty;
  };
  const Made first[] = {{&a, 1, 1.0}, {&b, 2, 0.5}};
  const Made second[] = {{&b, 300, 1.0 / 3}, {&a, -1, -0.25}};  // two-byte and negative varints

  v1::ReportRequest expected;
  expected.set_worker_id("load-7");
  std::string framed;
  AppendWorkerId("load-7", &framed);
  auto add_lease = [&](const std::string& lease_id, uint64_t token, const auto& made) {
    v1::LeaseSteps* lease = expected.add_leases();
    lease->set_lease_id(lease_id);
    lease->set_fencing_token(token);
    std::string steps;
    for (const Made& m : made) {
      v1::Step* step = lease->add_steps();
      *step = *m.fixed;
      step->set_answer_num(m.answer_num);
      step->set_novelty(m.novelty);
      AppendStep(m.fixed->SerializeAsString(), m.answer_num, m.novelty, &steps);
    }
    AppendLeaseStepsHead(lease_id, token, steps.size(), &framed);
    framed += steps;
  };
  add_lease("lease-1", 3, first);
  add_lease("lease-2", (uint64_t{1} << 40) + 5, second);

  v1::ReportRequest parsed;
  ASSERT_TRUE(parsed.ParseFromString(framed));
  EXPECT_EQ(parsed.SerializeAsString(), expected.SerializeAsString());
  ASSERT_EQ(parsed.leases_size(), 2);
  EXPECT_EQ(parsed.leases(1).steps(1).answer_num(), -1);
  EXPECT_EQ(parsed.leases(1).steps(0).novelty(), 1.0 / 3);
  EXPECT_EQ(parsed.leases(1).fencing_token(), (uint64_t{1} << 40) + 5);
}

TEST(ReportWireTest, FramedCompleteManyParsesToTheOneBuiltAsMessages) {
  v1::CompleteManyRequest expected;
  expected.set_worker_id("load-3");
  v1::CompleteRequest* first = expected.add_units();
  first->set_lease_id("lease-1");
  first->set_unit_id("u1");
  first->add_answers()->set_answer(std::string(200, 'y'));  // a unit longer than 127 bytes
  v1::CompleteRequest* second = expected.add_units();
  second->set_lease_id("lease-2");
  second->set_fencing_token(9);
  std::string framed;
  AppendWorkerId("load-3", &framed);
  for (const v1::CompleteRequest& unit : expected.units()) AppendCommit(unit.SerializeAsString(), &framed);
  v1::CompleteManyRequest parsed;
  ASSERT_TRUE(parsed.ParseFromString(framed));
  EXPECT_EQ(parsed.SerializeAsString(), expected.SerializeAsString());
  ASSERT_EQ(parsed.units_size(), 2);
  EXPECT_EQ(parsed.units(0).answers(0).answer().size(), 200u);
}

}  // namespace
}  // namespace noveltygrid::load
