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

TEST(ProcCpuTest, ParsesTheMachineLine) {
  // user nice system idle iowait irq softirq steal: busy = 100 + 20 + 50 + 5 + 25, not idle or iowait.
  const std::string stat = "cpu  100 20 50 9000 40 5 25 30 0 0\ncpu0 50 10 25 4500 20 2 12 15 0 0\n";
  absl::StatusOr<MachineCpu> cpu = MachineCpuFromStat(stat, 100);
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  EXPECT_EQ(cpu->busy, absl::Seconds(2));
  EXPECT_EQ(cpu->steal, absl::Milliseconds(300));
  EXPECT_FALSE(MachineCpuFromStat("cpu0 1 2 3 4 5 6 7 8\n", 100).ok());  // a cpu's line, not the machine's
  EXPECT_FALSE(MachineCpuFromStat("cpu  1 2 3 4 5 6 7\n", 100).ok());    // no steal column
  EXPECT_FALSE(MachineCpuFromStat("cpu  1 2 x 4 5 6 7 8\n", 100).ok());
}

TEST(ProcCpuTest, ReadsThisProcess) { EXPECT_TRUE(ProcessCpu(0).ok()); }

TEST(ProcCpuTest, ReadsThisMachine) { EXPECT_TRUE(ReadMachineCpu().ok()); }

}  // namespace
}  // namespace noveltygrid::load
