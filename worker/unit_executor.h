// UnitExecutor: runs one leased unit with the right engine and the worker's models.
//
// This is where a unit is executed, whoever handed it out (the in-process run or a coordinator over
// gRPC). Thread-safe; Run() returns at once and calls `done` exactly once on an executor thread.
#ifndef NOVELTYGRID_WORKER_UNIT_EXECUTOR_H_
#define NOVELTYGRID_WORKER_UNIT_EXECUTOR_H_

#include <memory>

#include "absl/functional/any_invocable.h"
#include "common/records.h"
#include "worker/engines/aidanbench_engine.h"
#include "common/unit_settings.h"
#include "worker/cache/embedding_cache.h"
#include "worker/model_registry.h"

namespace noveltygrid {

class UnitExecutor {
 public:
  // `cache` (optional) is shared by every unit this executor runs.
  explicit UnitExecutor(ModelRegistry* models, EmbeddingCache* cache = nullptr) : models_(models), cache_(cache) {}

  // Runs an AidanBench unit from `checkpoint` (empty for a fresh unit). A model that cannot be built
  // ends the unit with stop_reason "error" and the reason in `error`.
  void RunAidan(std::shared_ptr<const AidanSettings> settings, UnitSpec unit, AidanCheckpoint checkpoint,
                AidanAnswerObserver on_answer, AidanDoneCallback done);

 private:
  ModelRegistry* const models_;  // not owned
  EmbeddingCache* const cache_;   // not owned; may be null
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_WORKER_UNIT_EXECUTOR_H_
