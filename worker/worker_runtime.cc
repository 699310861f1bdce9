#include "worker/worker_runtime.h"

#include "proto/grpc_coordinator_client.h"

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
    r->equivalence_cache_ = std::make_unique<EquivalenceCache>(options.store);
    r->checkpoints_ = std::make_unique<CheckpointStore>(options.store);
  }
  r->pool_ = std::make_unique<ThreadPool>(std::max(1, options.threads));
  r->providers_ = std::make_unique<ProviderHub>(ProviderHubOptions{.executor = r->pool_.get(),
                                                                   .redis_url = options.redis_url,
                                                                   .env = options.env,
                                                                   .on_request = options.on_request});
  r->models_ = std::make_unique<ModelRegistry>(ModelContext{r->pool_.get(), r->providers_.get(), options.builtins},
                                               r->call_log_.get());
  r->activity_ = std::make_unique<UnitActivity>();
  r->executor_ = std::make_unique<UnitExecutor>(RunnerContext{.models = r->models_.get(),
                                                              .embedding_cache = r->cache_.get(),
                                                              .equivalence_cache = r->equivalence_cache_.get(),
                                                              .activity = r->activity_.get()});
  return r;
}

WorkerRuntime::~WorkerRuntime() {
  // Replies still in flight are dropped, the pool finishes what it holds, then models go before the
  // provider channels they point into.
  providers_->Close();
  pool_.reset();
  executor_.reset();
  models_.reset();
  providers_.reset();
}

void WorkerRuntime::Wire(WorkerOptions& options) {
  ProviderHub* hub = providers_.get();
  options.credential_error = [hub] { return hub->CredentialError(); };
  options.abort_calls = [hub] { hub->AbortCalls(); };
  options.call_waits = [hub] { return hub->Waits(); };
  options.waiting_on = [activity = activity_.get()](const std::string& lease_id) {
    return activity->Waiting(lease_id);
  };
}

absl::Status WorkerRuntime::CheckSweepModels(const SweepConfig& config) {
  for (const ModelSpec& model : config.models) {
    const ModelEndpoint* endpoint = FindEndpoint(config.endpoints, model.name);
    if (absl::StatusOr<ChatModel*> built = models_->Chat(model.name, endpoint); !built.ok()) return built.status();
  }
  return executor_->CheckBenchmarkModels(config);
}

absl::StatusOr<std::unique_ptr<CoordinatorClient>> ConnectCoordinator(const WorkerOptions& options) {
  absl::StatusOr<std::unique_ptr<GrpcCoordinatorClient>> client =
      GrpcCoordinatorClient::Create({options.coordinator, options.token, options.tls, options.max_backoff});
  if (!client.ok()) return client.status();
  return std::unique_ptr<CoordinatorClient>(std::move(*client));
}

absl::Status CheckSweepModelsWithoutKeys(SweepConfig config, const BuiltinModels* builtins) {
  // Key files live on the workers; key variables are checked by name only (a stand-in value).
  for (auto& [name, endpoint] : config.endpoints) endpoint.provider.api_key_file.clear();
  WorkerRuntimeOptions options;
  options.threads = 1;
  options.builtins = builtins;
  options.env = [](const std::string&) -> std::optional<std::string> { return "not-a-key"; };
  absl::StatusOr<std::unique_ptr<WorkerRuntime>> runtime = WorkerRuntime::Create(options);
  if (!runtime.ok()) return runtime.status();
  return (*runtime)->CheckSweepModels(config);
}

}  // namespace noveltygrid
