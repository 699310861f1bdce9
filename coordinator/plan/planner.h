// The planner: expands a sweep config into units of work with deterministic ids.
//
// Each benchmark the config holds (coordinator/benchmarks/registry.h) appends its units: what a unit is,
// and what its id hashes, is the benchmark's business (coordinator/benchmarks/*/). Ids hash everything
// that defines what the unit computes -- its fields, the item's text, the benchmark's protocol settings
// and the seed -- so the same config always plans the same ids and a changed setting never reuses old
// work. Units are listed benchmark-major (registry order: AidanBench first), then as the benchmark
// lists them; `index` is that position and fixes the order of every results file.
#ifndef NOVELTYGRID_COORDINATOR_PLAN_PLANNER_H_
#define NOVELTYGRID_COORDINATOR_PLAN_PLANNER_H_

#include <memory>
#include <string>
#include <vector>

#include "common/config.h"
#include "common/records.h"
#include "coordinator/benchmarks/benchmark.h"

namespace noveltygrid {

struct Plan {
  std::vector<UnitSpec> units;
  std::vector<std::string> models;                           // config order
  std::vector<std::shared_ptr<const Benchmark>> benchmarks;  // the sweep's, registry order
  std::string fingerprint;                                   // hash of every unit id and the settings

  // The benchmark that planned units named `name` (UnitSpec.benchmark); nullptr when none did.
  const Benchmark* Find(const std::string& name) const;
};

Plan PlanSweep(const SweepConfig& config);

// The helper models whose simulated ids make every model's numbers simulated (see SimulatedModelIds):
// those of the benchmarks the plan holds (AidanBench's judge and embedder, NoveltyBench's partition and
// quality models).
std::vector<std::string> PlanHelperModels(const Plan& plan);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_PLAN_PLANNER_H_
