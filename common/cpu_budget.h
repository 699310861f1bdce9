// How many CPUs this process may use, the default size of its thread pools. A process pinned to one
// core (taskset, a cpuset) or given one CPU by its cgroup (a Kubernetes pod's `limits.cpu: 1` on a
// 64-core node) that starts a thread per core of the machine only makes its threads take turns:
// every hand-over between them is a futex wake-up and a context switch, for no parallelism.
#ifndef NOVELTYGRID_COMMON_CPU_BUDGET_H_
#define NOVELTYGRID_COMMON_CPU_BUDGET_H_

#include <optional>
#include <string>

#include "absl/functional/function_ref.h"
#include "absl/strings/string_view.h"

namespace noveltygrid {

// The CPUs of this process's affinity mask, capped by its cgroup's CPU quota (cgroup v2 `cpu.max`, v1
// `cpu.cfs_quota_us` / `cpu.cfs_period_us`) rounded down; at least 1. Read afresh at each call.
int UsableCpus();

// The default size of a pool that runs model callbacks. UsableCpus() when its tasks only compute; when
// they also wait on a store's round trips (Redis: the embedding and equivalence caches, called
// synchronously from the callbacks), a waiting thread holds no CPU and one thread per CPU would leave
// replies queued behind each round trip, so then the machine's cores, at least 2 (the default before
// UsableCpus; no measurement yet says how many such a pool wants).
int DefaultPoolThreads(bool waits_on_store);

// The parts of UsableCpus, for tests. `read` returns a file's text, nullopt when it cannot be read.
using ReadFileFn = absl::FunctionRef<std::optional<std::string>(const std::string& path)>;

// The tightest CPU quota on the way from this process's cgroup (as /proc/self/cgroup names it) up to
// the root, in CPUs (1.5 for "150000 100000"); nullopt when no level sets one or none can be read.
std::optional<double> CgroupCpuQuota(ReadFileFn read);

// `affinity_cpus` capped by `quota` rounded down, at least 1.
int CpuBudget(int affinity_cpus, std::optional<double> quota);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COMMON_CPU_BUDGET_H_
