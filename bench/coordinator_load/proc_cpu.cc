#include "bench/coordinator_load/proc_cpu.h"

#include <unistd.h>

#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/json_util.h"
#include "common/status_macros.h"

namespace noveltygrid::load {

absl::StatusOr<absl::Duration> CpuFromStat(const std::string& stat, long ticks_per_second) {
  // "PID (COMM) STATE PPID ...": COMM may hold spaces and parentheses, so count fields after the last ')'.
  const size_t close = stat.rfind(')');
  if (close == std::string::npos) return absl::InvalidArgumentError("not a /proc/PID/stat line");
  const std::vector<std::string> fields = absl::StrSplit(stat.substr(close + 1), ' ', absl::SkipEmpty());
  // fields[0] is STATE (field 3), so utime (field 14) is fields[11] and stime (15) fields[12].
  int64_t utime = 0, stime = 0;
  if (fields.size() < 13 || !absl::SimpleAtoi(fields[11], &utime) || !absl::SimpleAtoi(fields[12], &stime)) {
    return absl::InvalidArgumentError("no utime/stime in the /proc/PID/stat line");
  }
  return absl::Seconds(static_cast<double>(utime + stime) / static_cast<double>(ticks_per_second));
}

absl::StatusOr<absl::Duration> ProcessCpu(int pid) {
  const std::string path = pid == 0 ? "/proc/self/stat" : absl::StrCat("/proc/", pid, "/stat");
  const absl::StatusOr<std::string> text = ReadFile(path);
  if (!text.ok()) return absl::NotFoundError(absl::StrCat(text.status().message(), " (is the process running?)"));
  return CpuFromStat(*text, ::sysconf(_SC_CLK_TCK));
}

absl::StatusOr<MachineCpu> MachineCpuFromStat(const std::string& stat, long ticks_per_second) {
  // "cpu  user nice system idle iowait irq softirq steal ...", in clock ticks; the first line.
  const std::string first = stat.substr(0, stat.find('\n'));
  const std::vector<std::string> fields = absl::StrSplit(first, ' ', absl::SkipEmpty());
  int64_t ticks[8] = {};
  if (fields.size() < 9 || fields[0] != "cpu") return absl::InvalidArgumentError("not a /proc/stat text");
  for (int i = 0; i < 8; ++i) {
    if (!absl::SimpleAtoi(fields[i + 1], &ticks[i]))
      return absl::InvalidArgumentError("a /proc/stat field is no number");
  }
  auto time = [ticks_per_second](int64_t n) {
    return absl::Seconds(static_cast<double>(n) / static_cast<double>(ticks_per_second));
  };
  return MachineCpu{.busy = time(ticks[0] + ticks[1] + ticks[2] + ticks[5] + ticks[6]), .steal = time(ticks[7])};
}

absl::StatusOr<MachineCpu> ReadMachineCpu() {
  ASSIGN_OR_RETURN(const std::string text, ReadFile("/proc/stat"));
  return MachineCpuFromStat(text, ::sysconf(_SC_CLK_TCK));
}

}  // namespace noveltygrid::load
