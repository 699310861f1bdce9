#include "coordinator/plan/planner.h"

#include "common/hashing.h"
#include "coordinator/benchmarks/registry.h"

namespace noveltygrid {

const Benchmark* Plan::Find(const std::string& name) const {
  for (const auto& benchmark : benchmarks) {
    if (benchmark->name() == name) return benchmark.get();
  }
  return nullptr;
}

Plan PlanSweep(const SweepConfig& config) {
  Plan plan;
  for (const ModelSpec& m : config.models) plan.models.push_back(m.name);
  plan.benchmarks = MakeBenchmarks(config);
  StableHasher fingerprint;
  for (const auto& benchmark : plan.benchmarks) {
    const size_t first = plan.units.size();
    benchmark->PlanUnits(plan.models, plan.units, fingerprint);
    // Repeats follow the benchmark's own units, repeat-major; each has its own id (and seed).
    const size_t last = plan.units.size();
    for (int repeat = 1; repeat < config.repeats; ++repeat) {
      for (size_t i = first; i < last; ++i) {
        UnitSpec unit = plan.units[i];
        unit.repeat = repeat;
        unit.id = RepeatUnitId(unit.id, repeat);
        unit.index = static_cast<int>(plan.units.size());
        fingerprint.Add(unit.id);
        plan.units.push_back(std::move(unit));
      }
    }
  }
  plan.fingerprint = HexId(fingerprint.Finish());
  return plan;
}

std::vector<std::string> PlanHelperModels(const Plan& plan) {
  std::vector<std::string> helpers;
  for (const auto& benchmark : plan.benchmarks) {
    for (std::string& helper : benchmark->HelperModels()) helpers.push_back(std::move(helper));
  }
  return helpers;
}

}  // namespace noveltygrid
