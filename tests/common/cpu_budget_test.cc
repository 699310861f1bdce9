#include "common/cpu_budget.h"

#include <sched.h>

#include <limits>
#include <map>
#include <optional>
#include <string>

#include "gtest/gtest.h"

namespace noveltygrid {
namespace {

// CgroupCpuQuota over a fake file system: the files in `files`, nothing else.
std::optional<double> QuotaOf(const std::map<std::string, std::string>& files) {
  return CgroupCpuQuota([&](const std::string& path) -> std::optional<std::string> {
    auto it = files.find(path);
    if (it == files.end()) return std::nullopt;
    return it->second;
  });
}

TEST(CpuBudgetTest, CgroupV2QuotaOfTheProcessCgroup) {
  EXPECT_EQ(QuotaOf({{"/proc/self/cgroup", "0::/\n"}, {"/sys/fs/cgroup/cpu.max", "150000 100000\n"}}), 1.5);
  EXPECT_EQ(QuotaOf({{"/proc/self/cgroup", "0::/\n"}, {"/sys/fs/cgroup/cpu.max", "max 100000\n"}}), std::nullopt);
}

TEST(CpuBudgetTest, TheTightestLevelOnTheWayToTheRootCounts) {
  EXPECT_EQ(QuotaOf({{"/proc/self/cgroup", "0::/kubepods/pod1/c1\n"},
                     {"/sys/fs/cgroup/kubepods/pod1/c1/cpu.max", "max 100000"},
                     {"/sys/fs/cgroup/kubepods/pod1/cpu.max", "50000 100000"},
                     {"/sys/fs/cgroup/kubepods/cpu.max", "400000 100000"}}),
            0.5);
}

TEST(CpuBudgetTest, CgroupV1CpuControllerMountedWithCpuacct) {
  const std::map<std::string, std::string> files = {
      {"/proc/self/cgroup", "12:memory:/docker/abc\n4:cpu,cpuacct:/docker/abc\n0::/\n"},
      {"/sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_quota_us", "200000\n"},
      {"/sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_period_us", "100000\n"}};
  EXPECT_EQ(QuotaOf(files), 2.0);
}

TEST(CpuBudgetTest, CgroupV1InsideAContainerReadsTheMountRoot) {
  // The path names the host's cgroup, which the container sees as its mount's root.
  EXPECT_EQ(QuotaOf({{"/proc/self/cgroup", "3:cpu:/kubepods/pod9/c9\n"},
                     {"/sys/fs/cgroup/cpu/cpu.cfs_quota_us", "300000"},
                     {"/sys/fs/cgroup/cpu/cpu.cfs_period_us", "100000"}}),
            3.0);
  EXPECT_EQ(QuotaOf({{"/proc/self/cgroup", "3:cpu:/\n"},
                     {"/sys/fs/cgroup/cpu/cpu.cfs_quota_us", "-1"},
                     {"/sys/fs/cgroup/cpu/cpu.cfs_period_us", "100000"}}),
            std::nullopt);
}

TEST(CpuBudgetTest, PathsWithTrailingSlashesColonsOrOutsideTheNamespace) {
  EXPECT_EQ(QuotaOf({{"/proc/self/cgroup", "0::/pod/c1/\n"}, {"/sys/fs/cgroup/pod/c1/cpu.max", "200000 100000"}}), 2.0);
  EXPECT_EQ(QuotaOf({{"/proc/self/cgroup", "5:cpu:/a:b\n"},
                     {"/sys/fs/cgroup/cpu/a:b/cpu.cfs_quota_us", "100000"},
                     {"/sys/fs/cgroup/cpu/a:b/cpu.cfs_period_us", "100000"}}),
            1.0);
  // A cgroup outside the process's cgroup namespace ("/../x") is read at the namespace's root only.
  EXPECT_EQ(QuotaOf({{"/proc/self/cgroup", "0::/../x\n"},
                     {"/sys/fs/cgroup/../x/cpu.max", "100000 100000"},
                     {"/sys/fs/cgroup/cpu.max", "300000 100000"}}),
            3.0);
}

TEST(CpuBudgetTest, HybridSetupsAndControllerNamedMounts) {
  EXPECT_EQ(QuotaOf({{"/proc/self/cgroup", "0::/\n"}, {"/sys/fs/cgroup/unified/cpu.max", "50000 100000"}}), 0.5);
  EXPECT_EQ(QuotaOf({{"/proc/self/cgroup", "2:cpuacct,cpu:/j\n"},
                     {"/sys/fs/cgroup/cpuacct,cpu/j/cpu.cfs_quota_us", "400000"},
                     {"/sys/fs/cgroup/cpuacct,cpu/j/cpu.cfs_period_us", "100000"}}),
            4.0);
}

TEST(CpuBudgetTest, UnreadableOrMalformedFilesSetNoQuota) {
  EXPECT_EQ(QuotaOf({{"/proc/self/cgroup", "0::/\n"}, {"/sys/fs/cgroup/cpu.max", "inf 100000"}}), std::nullopt);
  EXPECT_EQ(QuotaOf({{"/proc/self/cgroup", "0::/\n"}, {"/sys/fs/cgroup/cpu.max", "1e999 100000"}}), std::nullopt);
  EXPECT_EQ(QuotaOf({}), std::nullopt);
  EXPECT_EQ(QuotaOf({{"/proc/self/cgroup", "garbage\n"}}), std::nullopt);
  EXPECT_EQ(QuotaOf({{"/proc/self/cgroup", "0::/\n"}, {"/sys/fs/cgroup/cpu.max", "lots 0"}}), std::nullopt);
}

TEST(CpuBudgetTest, TheQuotaCapsTheAffinityRoundedDownAndNeverBelowOne) {
  EXPECT_EQ(CpuBudget(64, std::nullopt), 64);
  EXPECT_EQ(CpuBudget(64, 1.0), 1);
  EXPECT_EQ(CpuBudget(64, 2.5), 2);
  EXPECT_EQ(CpuBudget(2, 8.0), 2);
  EXPECT_EQ(CpuBudget(64, 0.25), 1);
  EXPECT_EQ(CpuBudget(0, std::nullopt), 1);
  EXPECT_EQ(CpuBudget(8, std::numeric_limits<double>::infinity()), 8);
  EXPECT_EQ(CpuBudget(8, std::numeric_limits<double>::quiet_NaN()), 8);
}

TEST(CpuBudgetTest, APoolThatWaitsOnAStoreKeepsAtLeastTwoThreads) {
  EXPECT_EQ(DefaultPoolThreads(false), UsableCpus());
  EXPECT_GE(DefaultPoolThreads(true), 2);
  EXPECT_GE(DefaultPoolThreads(true), DefaultPoolThreads(false));
}

TEST(CpuBudgetTest, ThisProcessHasAtLeastOneCpuAndNoMoreThanItsAffinity) {
  cpu_set_t set;
  ASSERT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
  EXPECT_GE(UsableCpus(), 1);
  EXPECT_LE(UsableCpus(), CPU_COUNT(&set));
}

}  // namespace
}  // namespace noveltygrid
