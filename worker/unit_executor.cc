#include "worker/unit_executor.h"

#include <memory>
#include <utility>

#include "proto/wire.h"

namespace noveltygrid {

absl::Status UnitExecutor::Start(const v1::Lease& lease, UnitCheckpoint checkpoint, StepObserver on_step,
                                 UnitDoneCallback done, LeaseCheck still_leased) {
  const bool novelty = lease.unit().benchmark() == kNoveltyBench;
  // Only the settings of the unit's benchmark travel with the lease.
  absl::StatusOr<AidanSettings> settings = novelty ? AidanSettings{} : FromProto(lease.aidan());
  if (!settings.ok()) return settings.status();
  return novelty
             ? RunNovelty(std::make_shared<const NoveltySettings>(FromProto(lease.novelty())), FromProto(lease.unit()),
                          std::move(checkpoint), std::move(on_step), std::move(done), std::move(still_leased))
             : RunAidan(std::make_shared<const AidanSettings>(std::move(*settings)), FromProto(lease.unit()),
                        std::move(checkpoint), std::move(on_step), std::move(done));
}

absl::Status UnitExecutor::RunAidan(std::shared_ptr<const AidanSettings> shared_settings, UnitSpec unit,
                                    UnitCheckpoint checkpoint, StepObserver on_answer, UnitDoneCallback done) {
  const AidanSettings& settings = *shared_settings;
  AidanModels models;
  models.cache = cache_;
  absl::Status status;
  auto endpoint = [&settings](const std::string& name) { return FindEndpoint(settings.endpoints, name); };
  if (auto m = models_->Chat(unit.model, endpoint(unit.model)); m.ok())
    models.generator = *m;
  else
    status = m.status();
  if (auto m = models_->Chat(settings.judge, endpoint(settings.judge)); m.ok())
    models.judge = *m;
  else if (status.ok())
    status = m.status();
  if (auto m = models_->Embedding(settings.embedder, endpoint(settings.embedder)); m.ok())
    models.embedder = *m;
  else if (status.ok())
    status = m.status();
  if (!status.ok()) return status;
  AidanEngineOptions options;
  options.preset = settings.preset;
  options.templates = &settings.templates;
  options.max_iterations = settings.max_iterations;
  options.max_tokens = settings.max_tokens;
  options.judge_retries = settings.judge_retries;
  options.llm_novelty = settings.llm_novelty;
  options.seed = settings.seed;
  // The loop points into the settings (templates); keep them alive until it is done.
  RunAidanLoop(options, models, std::move(unit), std::move(checkpoint), std::move(on_answer),
               [keep = std::move(shared_settings), done = std::move(done)](UnitResult result, CallStats calls) mutable {
                 std::move(done)(std::move(result), std::move(calls));
               });
  return absl::OkStatus();
}

absl::StatusOr<NoveltyModels> UnitExecutor::NoveltyModelsFor(const NoveltySettings& settings,
                                                             const std::string& generator) {
  auto endpoint = [&settings](const std::string& name) { return FindEndpoint(settings.endpoints, name); };
  NoveltyModels models;
  models.cache = equivalence_cache_;
  absl::Status status;
  auto take = [&status](auto made, auto*& into) {
    if (made.ok()) {
      into = *made;
    } else if (status.ok()) {
      status = made.status();
    }
  };
  if (!generator.empty()) take(models_->Chat(generator, endpoint(generator)), models.generator);
  const std::string& pm = settings.partition_model;
  if (settings.partitioner == kPartitionerClassifier) take(models_->Classifier(pm, endpoint(pm)), models.classifier);
  if (settings.partitioner == kPartitionerEmbedding) take(models_->Embedding(pm, endpoint(pm)), models.embedder);
  if (settings.partitioner == kPartitionerLlm) take(models_->Chat(pm, endpoint(pm)), models.equivalence_judge);
  const std::string& qm = settings.quality_model;
  if (settings.quality == kQualityReward) take(models_->Reward(qm, endpoint(qm)), models.reward);
  if (settings.quality == kQualityLlm) take(models_->Chat(qm, endpoint(qm)), models.quality_judge);
  if (!status.ok()) return status;
  return models;
}

absl::Status UnitExecutor::RunNovelty(std::shared_ptr<const NoveltySettings> shared_settings, UnitSpec unit,
                                      UnitCheckpoint checkpoint, StepObserver on_sample, UnitDoneCallback done,
                                      LeaseCheck still_leased) {
  absl::StatusOr<NoveltyModels> models = NoveltyModelsFor(*shared_settings, unit.model);
  if (!models.ok()) return models.status();
  // Steps reach the lease loop in the AidanBench form: the generation, no embedding.
  auto observer = [on_sample = std::move(on_sample)](const StepRecord& sample, const CallStats& calls) {
    static const Embedding kNone;
    return on_sample(StepEvent{sample, kNone, calls});
  };
  // The unit points into the settings (prompt wording); keep them alive until it is done.
  const NoveltySettings* raw = shared_settings.get();
  RunNoveltyUnit(
      *raw, *models, std::move(unit), std::move(checkpoint.answers), std::move(observer),
      [keep = std::move(shared_settings), done = std::move(done)](UnitResult result, CallStats calls) mutable {
        std::move(done)(std::move(result), std::move(calls));
      },
      std::move(still_leased));
  return absl::OkStatus();
}

}  // namespace noveltygrid
