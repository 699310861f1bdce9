#include "worker/benchmarks/aidanbench/aidan_runner.h"

#include <map>
#include <memory>
#include <string>
#include <utility>

#include "common/hashing.h"
#include "common/settings_proto.h"
#include "common/unit_settings.h"
#include "proto/wire.h"
#include "worker/activity/unit_activity.h"

namespace noveltygrid {

absl::Status AidanRunner::Start(const v1::Lease& lease, UnitCheckpoint checkpoint, StepObserver on_step,
                                UnitDoneCallback done, LeaseCheck /*still_leased: asked through on_step*/) {
  const AidanSettings& settings = lease.aidan();
  absl::StatusOr<AidanPreset> preset = FindAidanPreset(settings.preset());
  if (!preset.ok()) return preset.status();
  AidanModels models;
  models.cache = context_.embedding_cache;
  const std::map<std::string, ModelEndpoint> endpoints = EndpointsByName(settings.endpoints());
  auto endpoint = [&endpoints](const std::string& name) { return FindEndpoint(endpoints, name); };
  const std::string& generator = lease.unit().model();
  absl::Status status;
  if (auto m = context_.models->Chat(generator, endpoint(generator)); m.ok()) {
    models.generator = *m;
  } else {
    status = m.status();
  }
  if (auto m = context_.models->Chat(settings.judge(), endpoint(settings.judge())); m.ok()) {
    models.judge = *m;
  } else if (status.ok()) {
    status = m.status();
  }
  if (auto m = context_.models->Embedding(settings.embedder(), endpoint(settings.embedder())); m.ok()) {
    models.embedder = *m;
  } else if (status.ok()) {
    status = m.status();
  }
  if (!status.ok()) return status;
  // Which call the unit waits on, for the worker's stall check; kept until the unit is done.
  std::shared_ptr<TrackedModels> tracked;
  if (context_.activity != nullptr) {
    tracked = std::make_shared<TrackedModels>(context_.activity, lease.lease_id());
    models.generator = tracked->Chat(models.generator, "generate", endpoint(generator));
    models.judge = tracked->Chat(models.judge, "judge", endpoint(settings.judge()));
    models.embedder = tracked->Embedding(models.embedder, "embed", endpoint(settings.embedder()));
  }
  std::shared_ptr<const PromptTemplates> templates = Templates(settings.templates());
  AidanEngineOptions options;
  options.preset = *std::move(preset);
  options.templates = templates.get();
  options.max_iterations = settings.max_iterations();
  options.max_unit_seconds = settings.max_unit_seconds();
  options.clock = context_.clock;
  options.max_tokens = settings.max_tokens();
  options.judge_retries = settings.judge_retries();
  options.llm_novelty = settings.llm_novelty();
  options.seed = RepeatSeed(settings.seed(), lease.unit().repeat());
  // The loop points into the templates; keep them alive until it is done.
  RunAidanLoop(
      options, models, FromProto(lease.unit()), std::move(checkpoint), std::move(on_step),
      [keep = std::move(templates), tracked = std::move(tracked), done = std::move(done)](
          UnitResult result, CallStats calls) mutable { std::move(done)(std::move(result), std::move(calls)); });
  return absl::OkStatus();
}

std::shared_ptr<const PromptTemplates> AidanRunner::Templates(const v1::PromptTemplates& proto) {
  std::string key = proto.SerializeAsString();
  absl::MutexLock lock(&mu_);
  if (templates_ == nullptr || key != templates_key_) {
    templates_ = std::make_shared<const PromptTemplates>(FromProto(proto));
    templates_key_ = std::move(key);
  }
  return templates_;
}

absl::Status AidanRunner::CheckModels(const SweepConfig& config) {
  if (!config.aidanbench.has_value()) return absl::OkStatus();
  const AidanSettings settings = MakeAidanSettings(config);
  const std::map<std::string, ModelEndpoint> endpoints = EndpointsByName(settings.endpoints());
  auto endpoint = [&endpoints](const std::string& name) { return FindEndpoint(endpoints, name); };
  if (auto judge = context_.models->Chat(settings.judge(), endpoint(settings.judge())); !judge.ok()) {
    return judge.status();
  }
  return context_.models->Embedding(settings.embedder(), endpoint(settings.embedder())).status();
}

}  // namespace noveltygrid
