#include "common/cpu_budget.h"

#include <sched.h>

#include <algorithm>
#include <cmath>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/json_util.h"

namespace noveltygrid {
namespace {

constexpr absl::string_view kCgroupRoot = "/sys/fs/cgroup";

std::optional<std::string> ReadWholeFile(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFile(path);
  if (!text.ok()) return std::nullopt;
  return *std::move(text);
}

// Quota over period, when both are positive numbers.
std::optional<double> Ratio(absl::string_view quota, absl::string_view period) {
  double q = 0, p = 0;
  if (!absl::SimpleAtod(absl::StripAsciiWhitespace(quota), &q) ||
      !absl::SimpleAtod(absl::StripAsciiWhitespace(period), &p) || !std::isfinite(q) || !std::isfinite(p) || !(q > 0) ||
      !(p > 0)) {
    return std::nullopt;
  }
  return q / p;
}

// `path` ("/a/b") and its ancestors ("/a", "/"), deepest first. A path that climbs ("/../x": the
// process's cgroup lies outside its cgroup namespace) is read as the namespace's root.
std::vector<std::string> SelfAndAncestors(absl::string_view path) {
  std::vector<std::string> out;
  if (absl::StrContains(path, "/..")) return {"/"};
  std::string p(absl::StripSuffix(path, "/"));
  while (true) {
    out.push_back(p.empty() ? "/" : p);
    if (p.empty()) break;
    const size_t slash = p.rfind('/');
    p.resize(slash == std::string::npos ? 0 : slash);
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
    // cgroup v1: the cpu controller's tree, mounted where the controllers field names it as a rule (the
    // usual directories are tried too). Inside a container the path names the host's view; the
    // container's own cgroup is then the mount's root, also tried.
    std::vector<std::string> mounts = {absl::StrCat("/", parts[1])};
    for (const char* usual : {"/cpu", "/cpu,cpuacct", "/cpuacct,cpu"}) {
      if (mounts.front() != usual) mounts.push_back(usual);
    }
    for (const std::string& mount : mounts) {
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
  const int cpus = std::max(affinity_cpus, 1);
  if (!quota.has_value() || !(*quota < cpus)) return cpus;  // also a NaN or infinite quota
  return static_cast<int>(std::max(1.0, std::floor(*quota)));
}

int DefaultPoolThreads(bool waits_on_store) {
  if (!waits_on_store) return UsableCpus();
  return static_cast<int>(std::max(2u, std::thread::hardware_concurrency()));
}

int UsableCpus() {
  int affinity = 0;
  cpu_set_t set;
  if (::sched_getaffinity(0, sizeof set, &set) == 0) affinity = CPU_COUNT(&set);
  if (affinity <= 0) affinity = static_cast<int>(std::thread::hardware_concurrency());
  return CpuBudget(affinity, CgroupCpuQuota(ReadWholeFile));
}

}  // namespace noveltygrid
