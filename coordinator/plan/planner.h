// The planner: expands a sweep config into units of work with deterministic ids.
//
// A unit is one (benchmark, model, temperature, question). Its id hashes everything that defines
// what the unit computes (benchmark, model, temperature, item id and text, the protocol settings and
// the seed), so the same config always plans the same ids and a changed setting never reuses old work.
// Units are listed benchmark-major, then model, temperature and item in config order; `index` is that
// position and fixes the order of every results file.
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
  std::vector<double> aidan_temperatures;  // config order
  AidanSettings aidan;                     // what a worker needs to run an AidanBench unit
  std::string fingerprint;                 // hash of every unit id and the settings
};

Plan PlanSweep(const SweepConfig& config);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_PLAN_PLANNER_H_
