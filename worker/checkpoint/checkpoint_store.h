// CheckpointStore: a unit's completed steps, persisted in the Store after every iteration, so that a
// unit re-leased after its worker died resumes from the last completed iteration and repeats no model
// call of it. Steps are appended in order to the list ng:ckpt:UNIT_ID (serialised
// noveltygrid.v1.Step, embedding included); the coordinator deletes the list once the unit is
// committed. A store failure never fails the unit: the step is simply not persisted (StoreGuard warns
// once). Thread-safe.
#ifndef NOVELTYGRID_WORKER_CHECKPOINT_CHECKPOINT_STORE_H_
#define NOVELTYGRID_WORKER_CHECKPOINT_CHECKPOINT_STORE_H_

#include <string>

#include "common/storage/store.h"
#include "common/storage/store_guard.h"
#include "worker/unit_events.h"

namespace noveltygrid {

class CheckpointStore {
 public:
  explicit CheckpointStore(Store* store) : store_(store), guard_("loop checkpoints") {}

  // Appends step number `answer.answer_num`; a step already stored (a resumed unit re-reporting) is
  // not appended twice.
  void Append(const std::string& unit_id, const StepRecord& answer, const Embedding& embedding);

  // The stored steps 1..n without gaps (empty when none or the store is away).
  UnitCheckpoint Load(const std::string& unit_id);

 private:
  Store* const store_;  // not owned
  StoreGuard guard_;
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_WORKER_CHECKPOINT_CHECKPOINT_STORE_H_
