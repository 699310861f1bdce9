// report_wire.h: a Report framed around steps serialized once, and a CompleteMany framed around units
// serialized in two parts, parse to the ones built as messages; the lasting parts are referenced.
#include "bench/coordinator_load/report_wire.h"

#include <string>
#include <string_view>
#include <vector>

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
  const std::string fixed_a = a.SerializeAsString(), fixed_b = b.SerializeAsString();  // lasting
  WireBuffer framed;
  AppendWorkerId("load-7", &framed);
  auto add_lease = [&](const std::string& lease_id, uint64_t token, const auto& made) {
    v1::LeaseSteps* lease = expected.add_leases();
    lease->set_lease_id(lease_id);
    lease->set_fencing_token(token);
    size_t steps_bytes = 0;
    for (const Made& m : made) steps_bytes += StepBytes((m.fixed == &a ? fixed_a : fixed_b).size(), m.answer_num);
    AppendLeaseStepsHead(lease_id, token, steps_bytes, &framed);
    const size_t before = framed.size();
    for (const Made& m : made) {
      v1::Step* step = lease->add_steps();
      *step = *m.fixed;
      step->set_answer_num(m.answer_num);
      step->set_novelty(m.novelty);
      AppendStep(m.fixed == &a ? fixed_a : fixed_b, m.answer_num, m.novelty, &framed);
    }
    EXPECT_EQ(framed.size() - before, steps_bytes);
  };
  add_lease("lease-1", 3, first);
  add_lease("lease-2", (uint64_t{1} << 40) + 5, second);

  v1::ReportRequest parsed;
  ASSERT_TRUE(parsed.ParseFromString(Flatten(framed.Take())));
  EXPECT_EQ(framed.size(), 0u);
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
  std::vector<std::string> serialized;  // lasting
  for (const v1::CompleteRequest& unit : expected.units()) serialized.push_back(unit.SerializeAsString());
  WireBuffer framed;
  AppendWorkerId("load-3", &framed);
  for (const std::string& unit : serialized) AppendCommit(unit.substr(0, 9), std::string_view(unit).substr(9), &framed);
  v1::CompleteManyRequest parsed;
  ASSERT_TRUE(parsed.ParseFromString(Flatten(framed.Take())));
  EXPECT_EQ(parsed.SerializeAsString(), expected.SerializeAsString());
  ASSERT_EQ(parsed.units_size(), 2);
  EXPECT_EQ(parsed.units(0).answers(0).answer().size(), 200u);
}

TEST(ReportWireTest, LastingBytesAreReferencedAndCopiesAreTakenAtOnce) {
  std::string lasting(100, 'a');
  std::string copied = "copied";
  WireBuffer wire;
  wire.AppendCopy(copied);
  wire.AppendLasting(lasting);
  wire.AppendCopy("!");
  const grpc::ByteBuffer buffer = wire.Take();
  copied[0] = 'C';   // a copy does not see it
  lasting[0] = 'A';  // a reference does
  EXPECT_EQ(Flatten(buffer), "copied" + lasting + "!");
  EXPECT_EQ(buffer.Length(), 107u);
}

}  // namespace
}  // namespace noveltygrid::load
