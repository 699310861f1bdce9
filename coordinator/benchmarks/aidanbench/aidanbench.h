// AidanBench as a coordinator plug-in (coordinator/benchmarks/benchmark.h). A unit is one (model,
// temperature, question); its id hashes those, the question's text and the protocol settings
// (AidanSettingsHash), so the same config plans the same ids and a changed setting never reuses old
// work. Units are listed model-major, then temperature, then question, each in config order.
#ifndef NOVELTYGRID_COORDINATOR_BENCHMARKS_AIDANBENCH_AIDANBENCH_H_
#define NOVELTYGRID_COORDINATOR_BENCHMARKS_AIDANBENCH_AIDANBENCH_H_

#include <memory>
#include <string>
#include <vector>

#include "common/config.h"
#include "common/unit_settings.h"
#include "coordinator/benchmarks/benchmark.h"

namespace noveltygrid {

class AidanBenchmark : public Benchmark {
 public:
  // `config.aidanbench` must be set.
  explicit AidanBenchmark(const SweepConfig& config);

  const AidanSettings& settings() const { return settings_; }
  const std::vector<double>& temperatures() const { return temperatures_; }

  std::string name() const override { return kAidanBench; }
  void PlanUnits(const std::vector<std::string>& models, std::vector<UnitSpec>& units,
                 StableHasher& fingerprint) const override;
  std::vector<std::string> HelperModels() const override { return {settings_.judge(), settings_.embedder()}; }
  void AttachSettings(v1::Lease& lease) const override;
  absl::Status CheckResult(const UnitResult&) const override { return absl::OkStatus(); }
  std::unique_ptr<BenchmarkReducer> MakeReducer(const std::vector<std::string>& models,
                                                const UnitSource* source) const override;
  std::map<std::string, CallsEstimate> ExpectedCalls(const UnitSpec& unit, const LearnedCosts& learned) const override;

 private:
  const AidanSettings settings_;  // what every lease carries
  const uint64_t settings_hash_;
  const std::vector<double> temperatures_;
  const std::vector<Question> questions_;
  const AidanPreset preset_;                                 // settings_.preset()
  const std::map<std::string, double> expected_iterations_;  // the cost estimate's loop-length prior
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_BENCHMARKS_AIDANBENCH_AIDANBENCH_H_
