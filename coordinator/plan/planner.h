// The planner: expands a sweep config into units of work with deterministic ids.
//
// A unit is one (benchmark, model, temperature, question) for AidanBench and one (benchmark, model,
// temperature, sampling mode, dataset, prompt) for NoveltyBench. Its id hashes everything that defines
// what the unit computes (those fields, the item's text -- and paraphrases, for the paraphrase mode --,
// the benchmark's protocol settings and the seed), so the same config always plans the same ids and a
// changed setting never reuses old work. Units are listed benchmark-major (AidanBench first), then model,
// temperature, [mode, dataset,] item, each in config order; `index` is that position and fixes the order
// of every results file.
#ifndef NOVELTYGRID_COORDINATOR_PLAN_PLANNER_H_
#define NOVELTYGRID_COORDINATOR_PLAN_PLANNER_H_

#include <string>
#include <vector>

#include "common/config.h"
#include "common/records.h"
#include "common/unit_settings.h"

namespace noveltygrid {

struct Plan {
  std::vector<UnitSpec> units;
  std::vector<std::string> models;         // config order
  std::vector<double> aidan_temperatures;  // config order; empty without AidanBench
  AidanSettings aidan;                     // what a worker needs to run an AidanBench unit
  // NoveltyBench (all empty / default without a noveltybench section):
  NoveltySettings novelty;                    // what a worker needs to run a NoveltyBench unit
  std::vector<double> novelty_temperatures;   // config order
  std::vector<std::string> novelty_modes;     // config order
  std::vector<std::string> novelty_datasets;  // dataset names, config order
  std::string fingerprint;                    // hash of every unit id and the settings
};

Plan PlanSweep(const SweepConfig& config);

// The helper models whose simulated ids make every model's numbers simulated (see SimulatedModelIds):
// the judge and embedder of AidanBench, the partition and quality models of NoveltyBench -- those of the
// benchmarks the plan holds.
std::vector<std::string> PlanHelperModels(const Plan& plan);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_PLAN_PLANNER_H_
