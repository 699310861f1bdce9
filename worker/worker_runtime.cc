#include "worker/worker_runtime.h"

namespace noveltygrid {

absl::StatusOr<std::unique_ptr<WorkerRuntime>> WorkerRuntime::Create(const WorkerRuntimeOptions& options) {
  std::unique_ptr<WorkerRuntime> r(new WorkerRuntime());
  if (!options.call_log.empty()) {
    absl::StatusOr<std::unique_ptr<CallLog>> log = CallLog::Open(options.call_log);
    if (!log.ok()) return log.status();
    r->call_log_ = std::move(*log);
  }
  if (options.store != nullptr) {
    r->cache_ = std::make_unique<EmbeddingCache>(options.store);
    r->checkpoints_ = std::make_unique<CheckpointStore>(options.store);
  }
  r->pool_ = std::make_unique<ThreadPool>(std::max(1, options.threads));
  r->models_ = std::make_unique<ModelRegistry>(ModelContext{r->pool_.get()}, r->call_log_.get());
  r->executor_ = std::make_unique<UnitExecutor>(r->models_.get(), r->cache_.get());
  return r;
}

absl::Status WorkerRuntime::CheckModels(const std::vector<std::string>& chat_models, const std::string& embedder) {
  for (const std::string& id : chat_models) {
    if (absl::StatusOr<ChatModel*> model = models_->Chat(id); !model.ok()) return model.status();
  }
  absl::StatusOr<Embedder*> model = models_->Embedding(embedder);
  return model.status();
}

}  // namespace noveltygrid
