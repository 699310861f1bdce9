// ModelRegistry: the worker's models by id, built on first use and shared by every loop.
//
// Thread-safe. Models live as long as the registry; pointers it hands out stay valid until then.
#ifndef NOVELTYGRID_WORKER_MODEL_REGISTRY_H_
#define NOVELTYGRID_WORKER_MODEL_REGISTRY_H_

#include <map>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "worker/models/call_log.h"
#include "worker/models/model.h"
#include "worker/models/model_factory.h"
#include "worker/scorers/scorers.h"

namespace noveltygrid {

class ModelRegistry {
 public:
  // `call_log` (optional, not owned): every model built here logs its calls there.
  explicit ModelRegistry(ModelContext context, CallLog* call_log = nullptr) : context_(context), call_log_(call_log) {}

  // `endpoint` (optional): how to reach the model over HTTP. One model per (id, endpoint settings).
  absl::StatusOr<ChatModel*> Chat(const std::string& id, const ModelEndpoint* endpoint = nullptr);
  absl::StatusOr<Embedder*> Embedding(const std::string& id, const ModelEndpoint* endpoint = nullptr);
  // NoveltyBench scorers: in process when the context's builtins register the id ("sim:classifier" /
  // "sim:reward" with the simulated family), or over HTTP with an endpoint.
  absl::StatusOr<PairClassifier*> Classifier(const std::string& id, const ModelEndpoint* endpoint = nullptr);
  absl::StatusOr<RewardModel*> Reward(const std::string& id, const ModelEndpoint* endpoint = nullptr);

 private:
  const ModelContext context_;
  CallLog* const call_log_;
  absl::Mutex mu_;
  std::map<std::string, std::unique_ptr<ChatModel>> chat_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::unique_ptr<Embedder>> embedders_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::unique_ptr<PairClassifier>> classifiers_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::unique_ptr<RewardModel>> rewards_ ABSL_GUARDED_BY(mu_);
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_WORKER_MODEL_REGISTRY_H_
