#include "worker/model_registry.h"

#include "absl/strings/str_cat.h"
#include "worker/scorers/scorer_factory.h"

namespace noveltygrid {

namespace {

// Models are shared by id -- and, over HTTP, by every endpoint setting: a later sweep that reaches the
// same name differently (another URL, model, extra body) gets its own model object.
std::string Key(const std::string& id, const ModelEndpoint* endpoint) {
  return endpoint == nullptr ? id : absl::StrCat(id, "\n", Fingerprint(*endpoint));
}

// One model object per key in `models`, built by `make` on first use. Caller holds the registry's lock.
template <typename Model, typename Make>
absl::StatusOr<Model*> FindOrMake(std::map<std::string, std::unique_ptr<Model>>& models, const std::string& key,
                                  Make make) {
  auto it = models.find(key);
  if (it != models.end()) return it->second.get();
  absl::StatusOr<std::unique_ptr<Model>> model = make();
  if (!model.ok()) return model.status();
  Model* raw = model->get();
  models.emplace(key, std::move(*model));
  return raw;
}

// A model that logs its calls to `call_log` when there is one.
template <typename Model>
absl::StatusOr<std::unique_ptr<Model>> Logged(absl::StatusOr<std::unique_ptr<Model>> model, CallLog* call_log) {
  if (model.ok() && call_log != nullptr) *model = LogCalls(std::move(*model), call_log);
  return model;
}

}  // namespace

absl::StatusOr<PairClassifier*> ModelRegistry::Classifier(const std::string& id, const ModelEndpoint* endpoint) {
  absl::MutexLock lock(&mu_);
  return FindOrMake(classifiers_, Key(id, endpoint), [&] { return MakePairClassifier(id, context_, endpoint); });
}

absl::StatusOr<RewardModel*> ModelRegistry::Reward(const std::string& id, const ModelEndpoint* endpoint) {
  absl::MutexLock lock(&mu_);
  return FindOrMake(rewards_, Key(id, endpoint), [&] { return MakeRewardModel(id, context_, endpoint); });
}

absl::StatusOr<ChatModel*> ModelRegistry::Chat(const std::string& id, const ModelEndpoint* endpoint) {
  absl::MutexLock lock(&mu_);
  return FindOrMake(chat_, Key(id, endpoint), [&] { return Logged(MakeChatModel(id, context_, endpoint), call_log_); });
}

absl::StatusOr<Embedder*> ModelRegistry::Embedding(const std::string& id, const ModelEndpoint* endpoint) {
  absl::MutexLock lock(&mu_);
  return FindOrMake(embedders_, Key(id, endpoint),
                    [&] { return Logged(MakeEmbedder(id, context_, endpoint), call_log_); });
}

}  // namespace noveltygrid
