// What a benchmark's unit is expected to call before it runs: the part of the sweep's cost model
// (coordinator/plan/estimate.h) that each benchmark plug-in answers (Benchmark::ExpectedCalls) from
// what the model learned of the committed units. Keys are "ROLE:MODEL" call keys, the unit's own
// model written kGenerateSelf so that one model's rates can stand in for another's.
#ifndef NOVELTYGRID_COORDINATOR_BENCHMARKS_UNIT_COST_H_
#define NOVELTYGRID_COORDINATOR_BENCHMARKS_UNIT_COST_H_

#include <map>
#include <string>

namespace noveltygrid {

inline constexpr char kGenerateSelf[] = "generate:*self*";  // the unit's own model generating
inline constexpr char kAnyGroup[] = "*";                    // a group over every model (or every mode)
inline constexpr double kDefaultIterations = 10;            // AidanBench's loop-length prior of last resort

// Expected calls of one "ROLE:MODEL" key (fractional: means).
struct CallsEstimate {
  double requests = 0;
  double prompt_tokens = 0;
  double completion_tokens = 0;
  CallsEstimate& operator+=(const CallsEstimate& other) {
    requests += other.requests;
    prompt_tokens += other.prompt_tokens;
    completion_tokens += other.completion_tokens;
    return *this;
  }
  CallsEstimate& operator*=(double factor) {
    requests *= factor;
    prompt_tokens *= factor;
    completion_tokens *= factor;
    return *this;
  }
};

inline CallsEstimate Scaled(CallsEstimate calls, double factor) { return calls *= factor; }

// Sums over the committed units of one group (a model, a (model, mode), or every model).
struct LearnedCalls {
  double units = 0;
  double iterations = 0;  // sum of the units' steps (AidanBench: n)
  double pairs = 0;       // sum of n(n-1)/2
  std::map<std::string, CallsEstimate> calls;
};

// What the cost model has learned, by group.
class LearnedCosts {
 public:
  virtual ~LearnedCosts() = default;
  // The sums of `benchmark`'s committed units of `model` and `mode` (kAnyGroup: any); null when none.
  virtual const LearnedCalls* Find(const std::string& benchmark, const std::string& model,
                                   const std::string& mode) const = 0;
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_BENCHMARKS_UNIT_COST_H_
