// NoveltyBench as a coordinator plug-in (coordinator/benchmarks/benchmark.h). A unit is one (model,
// temperature, sampling mode, dataset, prompt); its id hashes those, the prompt's text (and, in the
// paraphrase mode, its first k paraphrases) and the protocol settings (NoveltySettingsHash). Units are
// listed model-major, then temperature, mode, dataset and prompt, each in config order.
#ifndef NOVELTYGRID_COORDINATOR_BENCHMARKS_NOVELTYBENCH_NOVELTYBENCH_H_
#define NOVELTYGRID_COORDINATOR_BENCHMARKS_NOVELTYBENCH_NOVELTYBENCH_H_

#include <memory>
#include <string>
#include <vector>

#include "common/config.h"
#include "common/unit_settings.h"
#include "coordinator/benchmarks/benchmark.h"
#include "coordinator/benchmarks/noveltybench/novelty_reducer.h"

namespace noveltygrid {

class NoveltyBenchmark : public Benchmark {
 public:
  // `config.noveltybench` must be set.
  explicit NoveltyBenchmark(const SweepConfig& config);

  const NoveltySettings& settings() const { return settings_; }
  const std::vector<double>& temperatures() const { return temperatures_; }
  const std::vector<std::string>& modes() const { return modes_; }
  std::vector<std::string> dataset_names() const;

  std::string name() const override { return kNoveltyBench; }
  void PlanUnits(const std::vector<std::string>& models, std::vector<UnitSpec>& units,
                 StableHasher& fingerprint) const override;
  std::vector<std::string> HelperModels() const override;
  void AttachSettings(v1::Lease& lease) const override;
  // A "complete" result must score (ScoreNoveltyResult) and hold k generations.
  absl::Status CheckResult(const UnitResult& result) const override;
  std::unique_ptr<BenchmarkReducer> MakeReducer(const std::vector<std::string>& models,
                                                const UnitSource* source) const override;
  std::map<std::string, CallsEstimate> ExpectedCalls(const UnitSpec& unit, const LearnedCosts& learned) const override;

 private:
  const NoveltySettings settings_;  // what every lease carries
  const uint64_t settings_hash_;
  const std::vector<double> temperatures_;
  const std::vector<std::string> modes_;
  const std::vector<NoveltyDataset> datasets_;
};

// The NoveltyBench part of a results folder (novelty_sweep_results.h) behind BenchmarkResults.
class NoveltyBenchResults : public BenchmarkResults {
 public:
  explicit NoveltyBenchResults(NoveltySnapshot snapshot) : snapshot_(std::move(snapshot)) {}

  const NoveltySnapshot& snapshot() const { return snapshot_; }

  std::string name() const override { return kNoveltyBench; }
  std::string RowsFileName() const override;
  absl::Status WriteRows(const RowsSink& sink) const override;
  Json Section() const override;
  Json Leaderboard() const override;
  std::string LeaderboardScore() const override { return "mean_utility"; }
  absl::Status AddHtmlSections(const ReportContext& context, HtmlPage& page) const override;
  std::string LeaderboardText(bool simulated) const override;
  std::vector<std::string> Models() const override { return snapshot_.models; }
  std::vector<std::string> HelperModels() const override;
  const CallStats& calls() const override { return snapshot_.calls; }
  const Json& run() const override { return snapshot_.run; }

 private:
  NoveltySnapshot snapshot_;
};

// The helper models of NoveltyBench settings: the partition model (none for unigram), the quality model.
std::vector<std::string> NoveltyHelperModels(const NoveltySettings& settings);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_BENCHMARKS_NOVELTYBENCH_NOVELTYBENCH_H_
