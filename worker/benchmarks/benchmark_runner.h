// BenchmarkRunner: the worker's half of a benchmark plug-in (the coordinator's half is
// coordinator/benchmarks/benchmark.h) -- runs one leased unit of that benchmark with the worker's
// models, from a checkpoint, streaming every finished step. Implementations live in aidanbench/ and
// noveltybench/ beside this file; registry.h makes them. The UnitExecutor hands each lease to the
// runner named by its unit's benchmark and knows nothing else about benchmarks.
//
// Thread-safety: Start() and CheckModels() may be called from any thread.
#ifndef NOVELTYGRID_WORKER_BENCHMARKS_BENCHMARK_RUNNER_H_
#define NOVELTYGRID_WORKER_BENCHMARKS_BENCHMARK_RUNNER_H_

#include <string>

#include "absl/status/status.h"
#include "common/clock.h"
#include "common/config.h"
#include "worker/cache/embedding_cache.h"
#include "worker/cache/equivalence_cache.h"
#include "worker/model_registry.h"
#include "worker/unit_runner.h"

namespace noveltygrid {

class UnitActivity;

// What runners build their units' models from, and the caches they share (not owned; the caches may
// be null).
struct RunnerContext {
  ModelRegistry* models = nullptr;
  EmbeddingCache* embedding_cache = nullptr;
  EquivalenceCache* equivalence_cache = nullptr;
  const Clock* clock = SystemClockInstance();  // per-unit time caps
  UnitActivity* activity = nullptr;            // optional: every unit's model calls are noted there
};

// Start() (worker/unit_runner.h) runs a unit of this benchmark with the settings its lease carries.
class BenchmarkRunner : public UnitRunner {
 public:
  virtual std::string name() const = 0;
  // Builds now every helper model the sweep's units of this benchmark call, so that an id no worker can
  // serve fails before any work. OK when the config has no section for this benchmark.
  virtual absl::Status CheckModels(const SweepConfig& config) = 0;
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_WORKER_BENCHMARKS_BENCHMARK_RUNNER_H_
