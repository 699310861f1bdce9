// Benchmark: one benchmark as the coordinator sees it -- the plug-in through which a sweep plans that
// benchmark's units, checks and reduces their committed results, and writes and reads its part of the
// results folder. The worker's half of the same plug-in (executing a unit, resuming it from a
// checkpoint) is worker/benchmarks/. Implementations live in aidanbench/ and noveltybench/ beside this
// file; registry.h maps a sweep config's section to one. Nowhere else does code ask which benchmark a
// unit belongs to: UnitSpec.benchmark is the name() of the Benchmark that planned it.
//
// Thread-safety: a Benchmark is immutable once made (the planner, the service's threads and the
// reducers share it); a BenchmarkReducer may be called from any thread; BenchmarkResults are values.
#ifndef NOVELTYGRID_COORDINATOR_BENCHMARKS_BENCHMARK_H_
#define NOVELTYGRID_COORDINATOR_BENCHMARKS_BENCHMARK_H_

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "common/hashing.h"
#include "common/records.h"
#include "coordinator/benchmarks/benchmark_results.h"
#include "coordinator/benchmarks/unit_cost.h"
#include "coordinator/benchmarks/unit_source.h"
#include "noveltygrid/v1/coordinator.pb.h"

namespace noveltygrid {

// One benchmark of a sweep, made from its config section by the registry.
class Benchmark {
 public:
  virtual ~Benchmark() = default;

  virtual std::string name() const = 0;
  // Appends the benchmark's units for `models` (config order) to `units` -- index = position in
  // `units`, benchmark = name(), id = a hash of everything that defines the unit -- and adds what
  // identifies the plan (settings, unit ids) to `fingerprint`.
  virtual void PlanUnits(const std::vector<std::string>& models, std::vector<UnitSpec>& units,
                         StableHasher& fingerprint) const = 0;
  // The models its units call besides the generator (judge, embedder, classifier, ...).
  virtual std::vector<std::string> HelperModels() const = 0;
  // Puts on `lease` the settings a worker needs to run one of this benchmark's units.
  virtual void AttachSettings(v1::Lease& lease) const = 0;
  // Why a result a worker reports as finished cannot be used (it then counts as failed and is not
  // journaled); OK when it can.
  virtual absl::Status CheckResult(const UnitResult& result) const = 0;
  // What `unit` is expected to call, by "ROLE:MODEL" (its own model as kGenerateSelf), from what was
  // learned of the committed units (unit_cost.h); the cost model (coordinator/plan/estimate.h) prices it.
  virtual std::map<std::string, CallsEstimate> ExpectedCalls(const UnitSpec& unit,
                                                             const LearnedCosts& learned) const = 0;
  // A reducer whose output lists `models` in this order; given a `source` (not owned; null: results
  // kept whole) it keeps only what its numbers need and fetches the rest from it (unit_source.h).
  virtual std::unique_ptr<BenchmarkReducer> MakeReducer(const std::vector<std::string>& models,
                                                        const UnitSource* source) const = 0;
};

// For PlanUnits: the next unit of the plan `units` (index = its position there) of `benchmark` on
// `model` at `temperature`, asking `item_id` (`item_text`). The caller sets the rest and its id, then
// appends it with AppendUnit.
inline UnitSpec NextUnit(const std::vector<UnitSpec>& units, std::string benchmark, std::string model,
                         double temperature, std::string item_id, std::string item_text) {
  UnitSpec unit;
  unit.index = static_cast<int>(units.size());
  unit.benchmark = std::move(benchmark);
  unit.model = std::move(model);
  unit.temperature = temperature;
  unit.item_id = std::move(item_id);
  unit.item_text = std::move(item_text);
  return unit;
}

// Appends `unit` (its id set) to the plan `units` and its id to `fingerprint`.
inline void AppendUnit(UnitSpec unit, std::vector<UnitSpec>& units, StableHasher& fingerprint) {
  fingerprint.Add(unit.id);
  units.push_back(std::move(unit));
}

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_BENCHMARKS_BENCHMARK_H_
