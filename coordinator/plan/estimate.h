// The cost model of a sweep: what a unit not yet run is expected to cost in requests, prompt and
// completion tokens, dollars (from `prices:`) and time, learned from committed units. `noveltygrid plan`,
// the line `run` prints first and the budget policy (coordinator/lease/budget_policy.h) all ask it.
//
// What a unit calls is its benchmark's to say (Benchmark::ExpectedCalls, in the benchmark's folder:
// AidanBench's quadratic prompt growth, NoveltyBench's k generations), from what this model learned of
// the committed units (LearnedCosts, coordinator/benchmarks/unit_cost.h); the model prices those calls.
//
// Time: each request takes kRemoteSecondsPerRequest plus completion tokens / kRemoteTokensPerSecond when
// its model is reached over HTTP, kInProcessSecondsPerRequest when it runs in process; a unit's calls
// are sequential. Thread-compatible: callers serialise Learn with Estimate.
#ifndef NOVELTYGRID_COORDINATOR_PLAN_ESTIMATE_H_
#define NOVELTYGRID_COORDINATOR_PLAN_ESTIMATE_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/config.h"
#include "common/records.h"
#include "coordinator/benchmarks/benchmark.h"
#include "coordinator/benchmarks/unit_cost.h"

namespace noveltygrid {

inline constexpr double kRemoteSecondsPerRequest = 1.0;
inline constexpr double kRemoteTokensPerSecond = 60;
inline constexpr double kInProcessSecondsPerRequest = 0.001;

// Expected cost of one unit, or of several summed.
struct CostEstimate {
  std::map<std::string, CallsEstimate> calls;  // by "ROLE:MODEL"
  double dollars = 0;
  std::map<std::string, double> dollars_by_model;  // priced models only, as run.cost_usd
  double seconds = 0;                              // the calls one after another
  CallsEstimate Total() const;
  CostEstimate& operator+=(const CostEstimate& other);
};

class CostModel : public LearnedCosts {
 public:
  explicit CostModel(const SweepConfig& config);

  // A committed unit and its calls; error results teach nothing.
  void Learn(const UnitResult& result, const CallStats& calls);
  CostEstimate Estimate(const UnitSpec& unit) const;

  // What `calls` cost in dollars and sequential seconds under this sweep's prices and endpoints.
  std::map<std::string, double> DollarsByModel(const std::map<std::string, CallsEstimate>& calls) const;
  double Seconds(const std::map<std::string, CallsEstimate>& calls) const;

  const LearnedCalls* Find(const std::string& benchmark, const std::string& model,
                           const std::string& mode) const override;

 private:
  CostEstimate Finish(const UnitSpec& unit, std::map<std::string, CallsEstimate> calls) const;

  const SweepConfig config_;  // a copy: prices, endpoints
  // The sweep's benchmarks: what a unit calls is its benchmark's to say (Benchmark::ExpectedCalls).
  const std::vector<std::shared_ptr<const Benchmark>> benchmarks_;
  std::map<std::string, LearnedCalls> learned_;  // by GroupKey(benchmark, model, mode), kAnyGroup for any
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_PLAN_ESTIMATE_H_
