#include "worker/benchmarks/registry.h"

#include "worker/benchmarks/aidanbench/aidan_runner.h"
#include "worker/benchmarks/noveltybench/novelty_runner.h"

namespace noveltygrid {

std::map<std::string, std::unique_ptr<BenchmarkRunner>> MakeBenchmarkRunners(const RunnerContext& context) {
  std::map<std::string, std::unique_ptr<BenchmarkRunner>> runners;
  auto add = [&runners](std::unique_ptr<BenchmarkRunner> runner) {
    const std::string name = runner->name();
    runners.emplace(name, std::move(runner));
  };
  add(std::make_unique<AidanRunner>(context));
  add(std::make_unique<NoveltyRunner>(context));
  return runners;
}

}  // namespace noveltygrid
