// The chaos test's input: one seed, and everything drawn from it -- the simulated provider's fault
// rate, latency and fault seed, the workers' loops in flight, and the schedule of process and network
// faults over the sweep. A pure function of the seed, so a failure replays from the seed it prints
// (timing still differs between runs; the schedule and the settings do not).
//
// Faults are scheduled by progress (a fraction of the sweep's units committed), so every one of them
// lands while the sweep runs whatever the machine's speed; the test applies them one after another.
#ifndef NOVELTYGRID_TESTS_CHAOS_CHAOS_PLAN_H_
#define NOVELTYGRID_TESTS_CHAOS_CHAOS_PLAN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/time/time.h"

namespace noveltygrid::testing {

enum class FaultKind {
  kKillWorker,       // SIGKILL a worker, start a replacement
  kTermWorker,       // SIGTERM a worker (it drains and hands units back), start a replacement
  kKillCoordinator,  // SIGKILL the coordinator, restart it on the same address and folder
  kRestartRedis,     // stop redis-server (SIGTERM, AOF flushed) and start it again
  kCutNetwork,       // take the namespaced worker's veth down past the worker timeout, then up
};
inline constexpr int kFaultKinds = 5;
const char* FaultName(FaultKind kind);

struct ScheduledFault {
  FaultKind kind = FaultKind::kKillWorker;
  double at_progress = 0;     // applied once units_done >= at_progress x units
  uint64_t target = 0;        // which worker (modulo those that can be hit)
  absl::Duration extra_hold;  // kCutNetwork: how long the link stays down after the worker timed out
};

struct ChaosPlan {
  uint64_t seed = 0;
  // serve-sim
  double fault_rate = 0;
  int latency_ms = 0;
  int jitter_ms = 0;
  uint64_t sim_seed = 0;
  // loops in flight of the root-namespace workers (their replacements inherit them) and of the
  // namespaced one
  std::vector<int> concurrency;
  int namespaced_concurrency = 0;
  std::vector<ScheduledFault> faults;  // by at_progress
};

// $NOVELTYGRID_CHAOS_SEED when set (a decimal number), else kDefaultChaosSeed.
inline constexpr uint64_t kDefaultChaosSeed = 20240514;
uint64_t ChaosSeed();

ChaosPlan MakeChaosPlan(uint64_t seed);
// One line: the settings and the schedule, for the log.
std::string Describe(const ChaosPlan& plan);

}  // namespace noveltygrid::testing

#endif  // NOVELTYGRID_TESTS_CHAOS_CHAOS_PLAN_H_
