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
  for (const auto& benchmark : plan.benchmarks) benchmark->PlanUnits(plan.models, plan.units, fingerprint);
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
