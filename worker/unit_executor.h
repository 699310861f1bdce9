// UnitExecutor: runs one leased unit with the right engine and the worker's models.
//
// This is where a unit is executed, whoever handed it out (the in-process run or a coordinator over
// gRPC). Thread-safe; Start(), RunAidan() and RunNovelty() return at once and, once they returned OK,
// call `done` exactly once.
#ifndef NOVELTYGRID_WORKER_UNIT_EXECUTOR_H_
#define NOVELTYGRID_WORKER_UNIT_EXECUTOR_H_

#include <memory>

#include "absl/functional/any_invocable.h"
#include "common/records.h"
#include "common/unit_settings.h"
#include "worker/cache/embedding_cache.h"
#include "worker/cache/equivalence_cache.h"
#include "worker/engines/aidanbench_engine.h"
#include "worker/engines/noveltybench_engine.h"
#include "worker/model_registry.h"
#include "worker/unit_runner.h"

namespace noveltygrid {

class UnitExecutor : public UnitRunner {
 public:
  // The caches (optional) are shared by every unit this executor runs.
  explicit UnitExecutor(ModelRegistry* models, EmbeddingCache* cache = nullptr,
                        EquivalenceCache* equivalence_cache = nullptr)
      : models_(models), cache_(cache), equivalence_cache_(equivalence_cache) {}

  // Runs the leased unit with its benchmark's engine and the settings that came with the lease.
  absl::Status Start(const v1::Lease& lease, UnitCheckpoint checkpoint, StepObserver on_step, UnitDoneCallback done,
                     LeaseCheck still_leased) override;

  // Runs an AidanBench unit from `checkpoint` (empty for a fresh unit). When a model cannot be built
  // on this worker the unit does not start: the error is returned and `done` is never called (the
  // worker hands the lease back; another worker may be able to run it).
  absl::Status RunAidan(std::shared_ptr<const AidanSettings> settings, UnitSpec unit, UnitCheckpoint checkpoint,
                        StepObserver on_answer, UnitDoneCallback done);

  // The models a NoveltyBench unit of `generator` uses (the generator itself skipped when empty), built
  // on first use; the first error when one cannot be built here.
  absl::StatusOr<NoveltyModels> NoveltyModelsFor(const NoveltySettings& settings, const std::string& generator);

  // Runs a NoveltyBench unit from the generations in `checkpoint.answers`; the same contract as
  // RunAidan. Each generation reaches `on_sample` as a step (answer_num, answer; no embedding);
  // `still_leased` (optional) is asked before partitioning and before scoring quality.
  absl::Status RunNovelty(std::shared_ptr<const NoveltySettings> settings, UnitSpec unit, UnitCheckpoint checkpoint,
                          StepObserver on_sample, UnitDoneCallback done, LeaseCheck still_leased = {});

 private:
  ModelRegistry* const models_;                // not owned
  EmbeddingCache* const cache_;                // not owned; may be null
  EquivalenceCache* const equivalence_cache_;  // not owned; may be null
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_WORKER_UNIT_EXECUTOR_H_
