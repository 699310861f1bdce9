// What a sweep's plan will cost: per benchmark and model, units total / committed / to run and the
// cost model's estimate (estimate.h) for the units to run, with the wall time at the configured
// concurrency and provider limits. `noveltygrid plan` prints it as a table (or JSON); `run` prints
// PlanLine first.
#ifndef NOVELTYGRID_COORDINATOR_PLAN_PLAN_ESTIMATE_H_
#define NOVELTYGRID_COORDINATOR_PLAN_PLAN_ESTIMATE_H_

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "common/config.h"
#include "common/json_util.h"
#include "coordinator/plan/estimate.h"
#include "coordinator/plan/planner.h"

namespace noveltygrid {

struct PlanRow {
  std::string benchmark;
  std::string model;
  int64_t units = 0;
  int64_t committed = 0;
  CostEstimate to_run;  // the units not committed
};

struct PlanEstimate {
  std::vector<PlanRow> rows;  // benchmark order, then model order
  int64_t units = 0;
  int64_t committed = 0;
  CostEstimate to_run;
  int concurrency = 1;
  // The units to run, `concurrency` loops at once, each provider held to its limits (max_in_flight,
  // requests_per_minute, tokens_per_minute): the slowest of those bounds.
  double wall_seconds = 0;
};

PlanEstimate EstimatePlan(const SweepConfig& config, const Plan& plan, const CostModel& model,
                          const std::set<std::string>& committed_ids);

// "plan: 1,200 units to run (300 committed), ~48k requests, ~31M tokens, ~$42.10, ~25 min at 32 loops"
std::string PlanLine(const PlanEstimate& estimate);
// One row per benchmark and model, then the total and the wall time.
std::string PlanTable(const PlanEstimate& estimate);
Json PlanJson(const PlanEstimate& estimate);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_PLAN_PLAN_ESTIMATE_H_
