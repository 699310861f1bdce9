#include "worker/benchmarks/noveltybench/novelty_runner.h"

#include <memory>
#include <utility>

#include "common/hashing.h"
#include "common/noveltybench/partitioners.h"
#include "proto/wire.h"
#include "worker/activity/unit_activity.h"

namespace noveltygrid {

absl::StatusOr<NoveltyModels> NoveltyRunner::ModelsFor(const NoveltySettings& settings, const std::string& generator) {
  const std::map<std::string, ModelEndpoint> endpoints = EndpointsByName(settings.endpoints());
  auto endpoint = [&endpoints](const std::string& name) { return FindEndpoint(endpoints, name); };
  ModelRegistry* registry = context_.models;
  NoveltyModels models;
  models.cache = context_.equivalence_cache;
  absl::Status status;
  auto take = [&status](auto made, auto*& into) {
    if (made.ok()) {
      into = *made;
    } else if (status.ok()) {
      status = made.status();
    }
  };
  if (!generator.empty()) take(registry->Chat(generator, endpoint(generator)), models.generator);
  const std::string& pm = settings.partition_model();
  if (settings.partitioner() == kPartitionerClassifier) take(registry->Classifier(pm, endpoint(pm)), models.classifier);
  if (settings.partitioner() == kPartitionerEmbedding) take(registry->Embedding(pm, endpoint(pm)), models.embedder);
  if (noveltybench::PartitionerUsesJudge(settings.partitioner()))
    take(registry->Chat(pm, endpoint(pm)), models.equivalence_judge);
  const std::string& qm = settings.quality_model();
  if (settings.quality() == kQualityReward) take(registry->Reward(qm, endpoint(qm)), models.reward);
  if (settings.quality() == kQualityLlm) take(registry->Chat(qm, endpoint(qm)), models.quality_judge);
  if (!status.ok()) return status;
  return models;
}

absl::Status NoveltyRunner::Start(const v1::Lease& lease, UnitCheckpoint checkpoint, StepObserver on_step,
                                  UnitDoneCallback done, LeaseCheck still_leased) {
  auto unit_settings = std::make_shared<NoveltySettings>(lease.novelty());
  unit_settings->set_seed(RepeatSeed(unit_settings->seed(), lease.unit().repeat()));
  std::shared_ptr<const NoveltySettings> settings = std::move(unit_settings);
  absl::StatusOr<NoveltyModels> models = ModelsFor(*settings, lease.unit().model());
  if (!models.ok()) return models.status();
  // Which call the unit waits on, for the worker's stall check (the pair classifier and the reward
  // model are not tracked: their calls show as the latest chat or embedding call); kept until done.
  std::shared_ptr<TrackedModels> tracked;
  if (context_.activity != nullptr) {
    tracked = std::make_shared<TrackedModels>(context_.activity, lease.lease_id());
    const std::map<std::string, ModelEndpoint> endpoints = EndpointsByName(settings->endpoints());
    const ModelEndpoint* partition = FindEndpoint(endpoints, settings->partition_model());
    const ModelEndpoint* quality = FindEndpoint(endpoints, settings->quality_model());
    models->generator = tracked->Chat(models->generator, "generate", FindEndpoint(endpoints, lease.unit().model()));
    models->embedder = tracked->Embedding(models->embedder, "partition", partition);
    models->equivalence_judge = tracked->Chat(models->equivalence_judge, "partition", partition);
    models->quality_judge = tracked->Chat(models->quality_judge, "quality", quality);
  }
  // Generations are steps without an embedding.
  auto observer = [on_step = std::move(on_step)](absl::Span<const StepRecord> samples, const CallStats& calls) {
    return on_step(StepEvent{samples, {}, calls});
  };
  // The unit points into the settings (prompt wording); keep them alive until it is done.
  const NoveltySettings* raw = settings.get();
  RunNoveltyUnit(
      *raw, *models, FromProto(lease.unit()), std::move(checkpoint.answers), std::move(observer),
      [keep = std::move(settings), tracked = std::move(tracked), done = std::move(done)](
          UnitResult result, CallStats calls) mutable { std::move(done)(std::move(result), std::move(calls)); },
      std::move(still_leased));
  return absl::OkStatus();
}

absl::Status NoveltyRunner::CheckModels(const SweepConfig& config) {
  if (!config.noveltybench.has_value()) return absl::OkStatus();
  return ModelsFor(MakeNoveltySettings(config), /*generator=*/"").status();
}

}  // namespace noveltygrid
