#include "coordinator/benchmarks/aidanbench/aidanbench.h"

#include "coordinator/benchmarks/aidanbench/aidan_results.h"
#include "proto/wire.h"

namespace noveltygrid {

AidanBenchmark::AidanBenchmark(const SweepConfig& config)
    : settings_(MakeAidanSettings(config)),
      settings_hash_(AidanSettingsHash(settings_)),
      temperatures_(config.aidanbench->temperatures),
      questions_(config.aidanbench->questions),
      preset_(FindAidanPreset(settings_.preset()).value_or(AidanPreset{})),  // the config checked the name
      expected_iterations_(config.aidanbench->expected_iterations) {}

void AidanBenchmark::PlanUnits(const std::vector<std::string>& models, std::vector<UnitSpec>& units,
                               StableHasher& fingerprint) const {
  fingerprint.Add(settings_hash_);
  for (const std::string& model : models) {
    for (double temperature : temperatures_) {
      for (const Question& q : questions_) {
        UnitSpec unit = NextUnit(units, kAidanBench, model, temperature, q.id, q.text);
        unit.id = HexId(StableHasher()
                            .Add(unit.benchmark)
                            .Add(model)
                            .Add(temperature)
                            .Add(q.id)
                            .Add(q.text)
                            .Add(settings_hash_)
                            .Finish());
        // After the id: metadata is reported, not computed with, so editing it reuses the work done.
        unit.domain = q.domain;
        unit.subdomain = q.subdomain;
        AppendUnit(std::move(unit), units, fingerprint);
      }
    }
  }
}

void AidanBenchmark::AttachSettings(v1::Lease& lease) const { *lease.mutable_aidan() = settings_; }

std::unique_ptr<BenchmarkReducer> AidanBenchmark::MakeReducer(const std::vector<std::string>& models,
                                                              const UnitSource* source) const {
  return std::make_unique<AidanReducer>(preset_, models, temperatures_, source);
}

}  // namespace noveltygrid
