#include "cli/worker_setup.h"

#include <utility>

#include "cli/malloc_tuning.h"

namespace noveltygrid::cli {

absl::StatusOr<std::unique_ptr<WorkerRuntime>> CreateWorkerRuntime(const ParsedArgs& args, long long threads,
                                                                   Store* store, const std::string& redis_url,
                                                                   const BuiltinModels* builtins,
                                                                   RequestObserver on_request) {
  ReturnFreedPagesPromptly();
  WorkerRuntimeOptions options;
  options.builtins = builtins;
  options.threads = static_cast<int>(threads);
  options.store = store;
  options.call_log = args.Get("call-log");
  options.redis_url = redis_url;
  options.on_request = std::move(on_request);
  return WorkerRuntime::Create(options);
}

}  // namespace noveltygrid::cli
