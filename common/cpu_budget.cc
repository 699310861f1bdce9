#include "common/cpu_budget.h"

#include <sched.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace noveltygrid {
namespace {

constexpr absl::string_view kCgroupRoot = "/sys/fs/cgroup";

std::optional<std::string> ReadWholeFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Quota over period, when both are positive numbers.
std::optional<double> Ratio(absl::string_view quota, absl::string_view period) {
  double q = 0, p = 0;
  if (!absl::SimpleAtod(absl::StripAsciiWhitespace(quota), &q) ||
      !absl::SimpleAtod(absl::StripAsciiWhitespace(period), &p) || !(q > 0) || !(p > 0)) {
    return std::nullopt;
  }
  return q / p;
}

// `path` ("/a/b") and its ancestors ("/a", "/"), deepest first.
std::vector<std::string> SelfAndAncestors(absl::string_view path) {
  std::vector<std::string> out;
  std::string p(absl::StripSuffix(path, "/"));
  while (true) {
    out.push_back(p.empty() ? "/" : p);
    if (p.empty()) break;
    p.resize(p.rfind('/') == std::string::npos ? 0 : p.rfind('/'));
  }
  return out;
}

void Tighten(std::optional<double> quota, std::optional<double>* tightest) {
  if (quota.has_value() && (!tightest->has_value() || *quota < **tightest)) *tightest = quota;
}

}  // namespace

std::optional<double> CgroupCpuQuota(ReadFileFn read) {
  const std::optional<std::string> self = read("/proc/self/cgroup");
  if (!self.has_value()) return std::nullopt;
  std::optional<double> tightest;
  for (absl::string_view line : absl::StrSplit(*self, '\n', absl::SkipWhitespace())) {
    // "hierarchy-id:controllers:path"; the path may itself hold ':'.
    const std::vector<absl::string_view> parts = absl::StrSplit(line, absl::MaxSplits(':', 2));
    if (parts.size() != 3) continue;
    const absl::string_view path = absl::StripAsciiWhitespace(parts[2]);
    if (parts[0] == "0" && parts[1].empty()) {  // cgroup v2 (also the "unified" tree of a hybrid setup)
      for (absl::string_view mount : {"", "/unified"}) {
        for (const std::string& dir : SelfAndAncestors(path)) {
          const std::optional<std::string> max =
              read(absl::StrCat(kCgroupRoot, mount, dir == "/" ? "" : dir, "/cpu.max"));
          if (!max.has_value()) continue;
          const std::vector<absl::string_view> fields = absl::StrSplit(*max, ' ', absl::SkipWhitespace());
          if (fields.size() == 2) Tighten(Ratio(fields[0], fields[1]), &tightest);  // "max 100000": none
        }
      }
      continue;
    }
    const std::vector<absl::string_view> controllers = absl::StrSplit(parts[1], ',');
    if (std::find(controllers.begin(), controllers.end(), "cpu") == controllers.end()) continue;
    // cgroup v1: the cpu controller's tree, mounted alone or with cpuacct. Inside a container the
    // path names the host's view; the container's own cgroup is then the mount's root, also tried.
    for (absl::string_view mount : {"/cpu", "/cpu,cpuacct", "/cpuacct,cpu"}) {
      for (const std::string& dir : SelfAndAncestors(path)) {
        const std::string base = absl::StrCat(kCgroupRoot, mount, dir == "/" ? "" : dir);
        const std::optional<std::string> quota = read(base + "/cpu.cfs_quota_us");  // -1: none
        const std::optional<std::string> period = read(base + "/cpu.cfs_period_us");
        if (quota.has_value() && period.has_value()) Tighten(Ratio(*quota, *period), &tightest);
      }
    }
  }
  return tightest;
}

int CpuBudget(int affinity_cpus, std::optional<double> quota) {
  int cpus = std::max(affinity_cpus, 1);
  if (quota.has_value()) cpus = std::min(cpus, static_cast<int>(std::max(1.0, std::floor(*quota))));
  return cpus;
}

int UsableCpus() {
  int affinity = 0;
  cpu_set_t set;
  if (::sched_getaffinity(0, sizeof set, &set) == 0) affinity = CPU_COUNT(&set);
  if (affinity <= 0) affinity = static_cast<int>(std::thread::hardware_concurrency());
  return CpuBudget(affinity, CgroupCpuQuota(ReadWholeFile));
}

}  // namespace noveltygrid
