// WorkerRuntime: everything a worker process runs units with, assembled in one place -- the thread
// pool, the models, the optional call log, and (with a store) the embedding and equivalence caches and the loop
// checkpoints. Used by `noveltygrid worker` and by the in-process worker of `noveltygrid run`.
#ifndef NOVELTYGRID_WORKER_WORKER_RUNTIME_H_
#define NOVELTYGRID_WORKER_WORKER_RUNTIME_H_

#include <map>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "common/config.h"
#include "common/executor.h"
#include "common/storage/store.h"
#include "common/unit_settings.h"
#include "proto/coordinator_client.h"
#include "worker/activity/unit_activity.h"
#include "worker/cache/embedding_cache.h"
#include "worker/cache/equivalence_cache.h"
#include "worker/checkpoint/checkpoint_store.h"
#include "worker/lease_loop.h"
#include "worker/model_registry.h"
#include "worker/models/builtin_models.h"
#include "worker/models/call_log.h"
#include "worker/models/provider_hub.h"
#include "worker/unit_executor.h"

namespace noveltygrid {

struct WorkerRuntimeOptions {
  int threads = 2;
  Store* store = nullptr;  // optional, not owned: enables the embedding cache and checkpoints
  std::string call_log;    // optional path: one line per model call
  std::string redis_url;   // optional: provider limits are shared with the other workers through it
  SecretLookup env;        // optional: where API keys are looked up (default: the process environment)
  // Optional, not owned, must outlive the runtime: the in-process model families (cli/ registers the
  // simulated one, worker/sim/sim_models.h).
  const BuiltinModels* builtins = nullptr;
  RequestObserver on_request;  // optional: told of every provider request (metrics)
};

class WorkerRuntime {
 public:
  static absl::StatusOr<std::unique_ptr<WorkerRuntime>> Create(const WorkerRuntimeOptions& options);
  ~WorkerRuntime();

  UnitExecutor* executor() { return executor_.get(); }

  // Builds every model a sweep names now -- the generators, then each benchmark's helper models (judge
  // and embedder; partition and quality models) -- so that an id no worker can serve (or a provider key
  // that is not set) fails before any work.
  absl::Status CheckSweepModels(const SweepConfig& config);
  CheckpointStore* checkpoints() { return checkpoints_.get(); }  // null without a store
  // Connects a lease loop's hooks to this runtime: a provider refusing this worker's credentials
  // (ProviderHub::CredentialError) and ending the calls of handed-back units (ProviderHub::AbortCalls).
  // ... and the heartbeats' figures of the calls waiting (ProviderHub::Waits) and the call each unit
  // waits on (UnitActivity).
  void Wire(WorkerOptions& options);
  // This worker's model calls that have not ended, by what they wait for (none for in-process models).
  CallWaits Waits() { return providers_->Waits(); }

 private:
  WorkerRuntime() = default;

  // Declared so that destruction runs the other way: the pool joins its threads before the models
  // and stores its tasks use go away.
  std::unique_ptr<CallLog> call_log_;
  std::unique_ptr<UnitActivity> activity_;
  std::unique_ptr<EmbeddingCache> cache_;
  std::unique_ptr<EquivalenceCache> equivalence_cache_;
  std::unique_ptr<CheckpointStore> checkpoints_;
  std::unique_ptr<ProviderHub> providers_;
  std::unique_ptr<ModelRegistry> models_;
  std::unique_ptr<UnitExecutor> executor_;
  std::unique_ptr<ThreadPool> pool_;
};

// The coordinator `options` names (coordinator, token, tls, max_backoff), over gRPC: the client a
// LeaseLoop of `noveltygrid worker` and `noveltygrid run` talks through. Fails only on unreadable TLS files.
absl::StatusOr<std::unique_ptr<CoordinatorClient>> ConnectCoordinator(const WorkerOptions& options);

// CheckSweepModels for a process that calls no model (the coordinator): an id no worker can build
// (a mistyped sim: name, an id without an endpoint) fails at its start rather than on every worker.
// API keys are not looked up: they live on the workers.
absl::Status CheckSweepModelsWithoutKeys(SweepConfig config, const BuiltinModels* builtins);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_WORKER_WORKER_RUNTIME_H_
