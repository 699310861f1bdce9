#include "coordinator/benchmarks/noveltybench/noveltybench.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "coordinator/benchmarks/noveltybench/novelty_sweep_results.h"
#include "coordinator/report/results_files.h"
#include "proto/wire.h"

namespace noveltygrid {

namespace {

std::string NoveltyUnitId(const UnitSpec& unit, uint64_t settings_hash) {
  StableHasher hasher;
  hasher.Add(unit.benchmark)
      .Add(unit.model)
      .Add(unit.temperature)
      .Add(unit.mode)
      .Add(unit.dataset)
      .Add(unit.item_id)
      .Add(unit.item_text)
      .Add(static_cast<uint64_t>(unit.paraphrases.size()));
  for (const std::string& paraphrase : unit.paraphrases) hasher.Add(paraphrase);
  return HexId(hasher.Add(settings_hash).Finish());
}

}  // namespace

std::vector<std::string> NoveltyHelperModels(const NoveltySettings& settings) {
  std::vector<std::string> helpers;
  if (!settings.partition_model().empty()) helpers.push_back(settings.partition_model());
  helpers.push_back(settings.quality_model());
  return helpers;
}

NoveltyBenchmark::NoveltyBenchmark(const SweepConfig& config)
    : settings_(MakeNoveltySettings(config)),
      settings_hash_(NoveltySettingsHash(settings_)),
      temperatures_(config.noveltybench->temperatures),
      modes_(config.noveltybench->modes),
      datasets_(config.noveltybench->datasets) {}

std::vector<std::string> NoveltyBenchmark::dataset_names() const {
  std::vector<std::string> names;
  for (const NoveltyDataset& d : datasets_) names.push_back(d.name);
  return names;
}

void NoveltyBenchmark::PlanUnits(const std::vector<std::string>& models, std::vector<UnitSpec>& units,
                                 StableHasher& fingerprint) const {
  fingerprint.Add(kNoveltyBench).Add(settings_hash_);
  for (const std::string& model : models) {
    for (double temperature : temperatures_) {
      for (const std::string& mode : modes_) {
        for (const NoveltyDataset& dataset : datasets_) {
          for (const BenchPrompt& p : dataset.prompts) {
            UnitSpec unit = NextUnit(units, kNoveltyBench, model, temperature, p.id, p.text);
            unit.mode = mode;
            unit.dataset = dataset.name;
            // Only the paraphrase mode reads them, and only the first k (the config checked there are).
            if (mode == kModeParaphrase) {
              const size_t n = std::min(p.paraphrases.size(), static_cast<size_t>(settings_.k()));
              unit.paraphrases.assign(p.paraphrases.begin(), p.paraphrases.begin() + n);
            }
            unit.id = NoveltyUnitId(unit, settings_hash_);
            unit.category = p.category;  // after the id: reported, not computed with
            AppendUnit(std::move(unit), units, fingerprint);
          }
        }
      }
    }
  }
}

std::vector<std::string> NoveltyBenchmark::HelperModels() const { return NoveltyHelperModels(settings_); }

void NoveltyBenchmark::AttachSettings(v1::Lease& lease) const { *lease.mutable_novelty() = settings_; }

absl::Status NoveltyBenchmark::CheckResult(const UnitResult& result) const {
  if (result.stop_reason == kStopError) return absl::OkStatus();
  absl::Status usable = ScoreNoveltyResult(result, settings_.patience()).status();
  if (usable.ok() && static_cast<int>(result.answers.size()) != settings_.k()) {
    usable = absl::InvalidArgumentError(absl::StrCat(result.answers.size(), " generations for k = ", settings_.k()));
  }
  return usable;
}

std::unique_ptr<BenchmarkReducer> NoveltyBenchmark::MakeReducer(const std::vector<std::string>& models,
                                                                const UnitSource* source) const {
  return std::make_unique<NoveltyReducer>(settings_, models, temperatures_, modes_, dataset_names(), source);
}

std::unique_ptr<BenchmarkResults> NoveltyReducer::Results() const {
  return std::make_unique<NoveltyBenchResults>(Snapshot());
}

std::string NoveltyBenchResults::RowsFileName() const { return kSamplesFileName; }

absl::Status NoveltyBenchResults::WriteRows(const RowsSink& sink) const {
  return WriteNoveltySweepSamples(snapshot_, sink);
}

Json NoveltyBenchResults::Section() const { return NoveltySweepSectionJson(snapshot_); }

Json NoveltyBenchResults::Leaderboard() const { return NoveltySweepLeaderboardJson(snapshot_); }

std::string NoveltyBenchResults::LeaderboardText(bool simulated) const {
  return FormatNoveltySweepLeaderboard(snapshot_, simulated);
}

std::vector<std::string> NoveltyBenchResults::HelperModels() const { return NoveltyHelperModels(snapshot_.settings); }

}  // namespace noveltygrid
