#include "bench/coordinator_load/proc_cpu.h"

#include "gtest/gtest.h"

namespace noveltygrid::load {
namespace {

TEST(ProcCpuTest, ParsesUserAndSystemTicks) {
  // A command name with a space and a parenthesis must not shift the fields.
  const std::string stat = "4242 (my (odd) cmd) S 1 4242 4242 0 -1 4194560 1000 0 0 0 250 50 0 0 20 0 9 0";
  absl::StatusOr<absl::Duration> cpu = CpuFromStat(stat, 100);
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  EXPECT_EQ(*cpu, absl::Seconds(3));
}

TEST(ProcCpuTest, RefusesGarbage) {
  EXPECT_FALSE(CpuFromStat("nonsense", 100).ok());
  EXPECT_FALSE(CpuFromStat("1 (x) S 1 2", 100).ok());
}

TEST(ProcCpuTest, ReadsThisProcess) { EXPECT_TRUE(ProcessCpu(0).ok()); }

}  // namespace
}  // namespace noveltygrid::load
