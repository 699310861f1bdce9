// The worker's benchmark registry: one BenchmarkRunner per benchmark, by the name units carry
// (UnitSpec.benchmark). The coordinator's half is coordinator/benchmarks/registry.h.
#ifndef NOVELTYGRID_WORKER_BENCHMARKS_REGISTRY_H_
#define NOVELTYGRID_WORKER_BENCHMARKS_REGISTRY_H_

#include <map>
#include <memory>
#include <string>

#include "worker/benchmarks/benchmark_runner.h"

namespace noveltygrid {

// Every benchmark's runner, by name, over `context`.
std::map<std::string, std::unique_ptr<BenchmarkRunner>> MakeBenchmarkRunners(const RunnerContext& context);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_WORKER_BENCHMARKS_REGISTRY_H_
