// CPU time of a process as Linux accounts it (/proc/PID/stat utime + stime), and of the whole machine
// (/proc/stat), for the load generator's "cores used" figures: the difference of two readings over the
// wall time between them.
#ifndef NOVELTYGRID_BENCH_COORDINATOR_LOAD_PROC_CPU_H_
#define NOVELTYGRID_BENCH_COORDINATOR_LOAD_PROC_CPU_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace noveltygrid::load {

// User + system CPU time of process `pid` (0: this process) so far.
absl::StatusOr<absl::Duration> ProcessCpu(int pid);

// The same from the text of a /proc/PID/stat file (its 14th and 15th fields, in clock ticks).
absl::StatusOr<absl::Duration> CpuFromStat(const std::string& stat, long ticks_per_second);

// The machine's CPU time so far, summed over its cpus (the "cpu" line of /proc/stat). `busy` is what
// ran -- user, nice, system, irq and softirq -- and `steal` what the hypervisor gave to other guests
// while this one wanted to run: a window with steal measured a machine that was not all there.
struct MachineCpu {
  absl::Duration busy;
  absl::Duration steal;
};
absl::StatusOr<MachineCpu> ReadMachineCpu();

// The same from the text of /proc/stat.
absl::StatusOr<MachineCpu> MachineCpuFromStat(const std::string& stat, long ticks_per_second);

}  // namespace noveltygrid::load

#endif  // NOVELTYGRID_BENCH_COORDINATOR_LOAD_PROC_CPU_H_
