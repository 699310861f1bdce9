#include "tests/chaos/chaos_plan.h"

#include <algorithm>
#include <cstdlib>
#include <random>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gtest/gtest.h"

namespace noveltygrid::testing {
namespace {

// How many of each fault one run schedules: [min, max] per kind, drawn uniformly.
struct FaultCount {
  FaultKind kind;
  int min;
  int max;
};
constexpr FaultCount kFaultCounts[] = {
    {FaultKind::kKillWorker, 1, 3},   {FaultKind::kTermWorker, 1, 2}, {FaultKind::kKillCoordinator, 1, 3},
    {FaultKind::kRestartRedis, 1, 2}, {FaultKind::kCutNetwork, 1, 2},
};

}  // namespace

const char* FaultName(FaultKind kind) {
  switch (kind) {
    case FaultKind::kKillWorker:
      return "worker-sigkill";
    case FaultKind::kTermWorker:
      return "worker-sigterm";
    case FaultKind::kKillCoordinator:
      return "coordinator-sigkill";
    case FaultKind::kRestartRedis:
      return "redis-restart";
    case FaultKind::kCutNetwork:
      return "network-cut";
  }
  return "?";
}

uint64_t ChaosSeed() {
  const char* text = std::getenv("NOVELTYGRID_CHAOS_SEED");
  if (text == nullptr || *text == '\0') return kDefaultChaosSeed;
  uint64_t seed = 0;
  EXPECT_TRUE(absl::SimpleAtoi(text, &seed)) << "NOVELTYGRID_CHAOS_SEED='" << text << "' is not a number";
  return seed;
}

ChaosPlan MakeChaosPlan(uint64_t seed) {
  // One engine, drawn from in a fixed order: adding a draw at the end keeps earlier plans as they were.
  std::mt19937_64 rng(seed);
  auto uniform_int = [&rng](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  auto uniform_real = [&rng](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); };
  ChaosPlan plan;
  plan.seed = seed;
  plan.fault_rate = uniform_real(0.03, 0.1);
  plan.latency_ms = uniform_int(10, 25);
  plan.jitter_ms = uniform_int(0, 10);
  plan.sim_seed = rng() % 1'000'000;
  for (int i = 0; i < 3; ++i) plan.concurrency.push_back(uniform_int(5, 10));
  plan.namespaced_concurrency = uniform_int(3, 8);
  for (const FaultCount& count : kFaultCounts) {
    const int n = uniform_int(count.min, count.max);
    for (int i = 0; i < n; ++i) {
      ScheduledFault fault;
      fault.kind = count.kind;
      fault.at_progress = uniform_real(0.08, 0.8);
      fault.target = rng();
      fault.extra_hold = absl::Milliseconds(uniform_int(0, 1500));
      plan.faults.push_back(fault);
    }
  }
  std::stable_sort(plan.faults.begin(), plan.faults.end(),
                   [](const ScheduledFault& a, const ScheduledFault& b) { return a.at_progress < b.at_progress; });
  return plan;
}

std::string Describe(const ChaosPlan& plan) {
  std::string out = absl::StrFormat("provider faults %.1f%%, latency %d+%d ms, serve-sim seed %d; loops",
                                    100 * plan.fault_rate, plan.latency_ms, plan.jitter_ms, plan.sim_seed);
  for (int c : plan.concurrency) absl::StrAppend(&out, " ", c);
  absl::StrAppend(&out, " (namespaced ", plan.namespaced_concurrency, "); schedule:");
  for (const ScheduledFault& f : plan.faults) {
    absl::StrAppend(&out, absl::StrFormat(" %s@%.0f%%", FaultName(f.kind), 100 * f.at_progress));
  }
  return out;
}

}  // namespace noveltygrid::testing
