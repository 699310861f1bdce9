// The worker stack of the commands that run units in this process (`run`, `worker`), from their
// shared flags.
#ifndef NOVELTYGRID_CLI_WORKER_SETUP_H_
#define NOVELTYGRID_CLI_WORKER_SETUP_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "cli/args.h"
#include "common/storage/store.h"
#include "worker/worker_runtime.h"

namespace noveltygrid::cli {

// A WorkerRuntime of `threads` threads on `store` (optional, not owned; it must outlive the runtime)
// and `redis_url`, building the in-process models of `builtins` (not owned; it must outlive the
// runtime), logging model calls to --call-log when given; `on_request` (optional) times provider requests.
absl::StatusOr<std::unique_ptr<WorkerRuntime>> CreateWorkerRuntime(const ParsedArgs& args, long long threads,
                                                                   Store* store, const std::string& redis_url,
                                                                   const BuiltinModels* builtins,
                                                                   RequestObserver on_request = nullptr);

}  // namespace noveltygrid::cli

#endif  // NOVELTYGRID_CLI_WORKER_SETUP_H_
