// The cost model of a sweep: what a unit not yet run is expected to cost in requests, prompt and
// completion tokens, dollars (from `prices:`) and time, learned from committed units. `noveltygrid plan`,
// the line `run` prints first and the budget policy (coordinator/lease/budget_policy.h) all ask it.
//
// AidanBench: a unit of n iterations sends n generate calls whose prompts carry every earlier answer,
// so its generate prompt tokens are n*a + c*n(n-1)/2 (a: the question and instructions, c: tokens per
// answer) and every other call (judge, embedder) grows with n. The loop-length prior (the mean of n
// and of n(n-1)/2) is, in order: `aidanbench.expected_iterations` for the model (or for every model),
// else the committed units of the same model, else those of the sweep's other models, else
// kDefaultIterations; capped by max_iterations. Token rates (a, c, per-iteration calls of each helper)
// are learned the same way: the model's committed units, else the other models', else defaults.
//
// NoveltyBench: a unit's calls (k generations, partition and quality calls) per (model, mode) from
// committed units, else the model's, else the other models' (same mode first), else defaults from the
// settings (one request with n = k or k requests, max_tokens capped at 200 per generation).
//
// Time: each request takes kRemoteSecondsPerRequest plus completion tokens / kRemoteTokensPerSecond when
// its model is reached over HTTP, kInProcessSecondsPerRequest when it runs in process; a unit's calls
// are sequential. Thread-compatible: callers serialise Learn with Estimate.
#ifndef NOVELTYGRID_COORDINATOR_PLAN_ESTIMATE_H_
#define NOVELTYGRID_COORDINATOR_PLAN_ESTIMATE_H_

#include <map>
#include <string>

#include "common/config.h"
#include "common/records.h"

namespace noveltygrid {

inline constexpr double kDefaultIterations = 10;
inline constexpr double kRemoteSecondsPerRequest = 1.0;
inline constexpr double kRemoteTokensPerSecond = 60;
inline constexpr double kInProcessSecondsPerRequest = 0.001;

// Expected calls of one "ROLE:MODEL" key (fractional: means).
struct CallsEstimate {
  double requests = 0;
  double prompt_tokens = 0;
  double completion_tokens = 0;
  CallsEstimate& operator+=(const CallsEstimate& other);
  CallsEstimate& operator*=(double factor);
};

// Expected cost of one unit, or of several summed.
struct CostEstimate {
  std::map<std::string, CallsEstimate> calls;  // by "ROLE:MODEL"
  double dollars = 0;
  std::map<std::string, double> dollars_by_model;  // priced models only, as run.cost_usd
  double seconds = 0;                              // the calls one after another
  CallsEstimate Total() const;
  CostEstimate& operator+=(const CostEstimate& other);
};

class CostModel {
 public:
  explicit CostModel(const SweepConfig& config);

  // A committed unit and its calls; error results teach nothing.
  void Learn(const UnitResult& result, const CallStats& calls);
  CostEstimate Estimate(const UnitSpec& unit) const;

  // What `calls` cost in dollars and sequential seconds under this sweep's prices and endpoints.
  std::map<std::string, double> DollarsByModel(const std::map<std::string, CallsEstimate>& calls) const;
  double Seconds(const std::map<std::string, CallsEstimate>& calls) const;

 private:
  // Sums over committed units of one group (a model, a (model, mode), or every model). Keys name the
  // unit's own model "generate:" + kSelf so that other models' rates apply.
  struct Learned {
    double units = 0;
    double iterations = 0;  // AidanBench: sum of n
    double pairs = 0;       // AidanBench: sum of n(n-1)/2
    std::map<std::string, CallsEstimate> calls;
    void Add(const UnitResult& result, const CallStats& calls);
  };
  const Learned* Find(const std::string& benchmark, const std::string& model, const std::string& mode) const;
  CostEstimate Aidan(const UnitSpec& unit) const;
  CostEstimate Novelty(const UnitSpec& unit) const;
  CostEstimate Finish(const UnitSpec& unit, std::map<std::string, CallsEstimate> calls) const;

  const SweepConfig config_;                // a copy: prices, endpoints, the benchmarks' settings
  std::map<std::string, Learned> learned_;  // by GroupKey(benchmark, model, mode), "*" for any
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_PLAN_ESTIMATE_H_
