// CheckpointStore: a unit's completed steps, persisted in the Store after every iteration, so that a
// unit re-leased after its worker died resumes from the last completed iteration and repeats no model
// call of it. Steps are appended in order to the list ng:ckpt:UNIT_ID (serialised
// noveltygrid.v1.Step, embedding included); the coordinator deletes the list once the unit is
// committed. A store failure never fails the unit: the step is simply not persisted (StoreGuard warns
// once). Thread-safe.
#ifndef NOVELTYGRID_WORKER_CHECKPOINT_CHECKPOINT_STORE_H_
#define NOVELTYGRID_WORKER_CHECKPOINT_CHECKPOINT_STORE_H_

#include <string>
#include <vector>

#include "absl/types/span.h"
#include "common/storage/store.h"
#include "common/storage/store_guard.h"
#include "worker/unit_events.h"

namespace noveltygrid {

class CheckpointStore {
 public:
  explicit CheckpointStore(Store* store) : store_(store), guard_("loop checkpoints") {}

  // Brings the stored list up to `steps` (steps 1..n of the unit, in order; `embeddings` parallel, or
  // empty for steps without one), appending the steps it lacks in one command, so that a list which
  // missed some (the store was away) catches up with the next step. `*own` is how many of the list's
  // entries, from the first, this loop knows to be its own history (0 for a loop that did not resume
  // from the list; the length of the list it resumed from otherwise); CatchUp keeps it. Steps are
  // appended only to a list of exactly those entries, or to an empty one (lost, or never written): never
  // after entries of another history (an earlier run of the unit, or a loop of a lease it lost), which
  // a resume would read as one. Steps from the first out of order on, and all of them when the
  // embeddings are of another count, are not written. True when the list now holds exactly this loop's
  // steps 1..n -- so a resuming worker can take them from it, and a report may leave their embeddings
  // to it; false when it may not (the store is away, the list holds another history's entries, another
  // writer appended in between, or the steps are out of order or miscounted).
  bool CatchUp(const std::string& unit_id, absl::Span<const StepRecord> steps, absl::Span<const Embedding> embeddings,
               size_t* own);

  // The stored steps 1..n without gaps (empty when none or the store is away).
  UnitCheckpoint Load(const std::string& unit_id);

 private:
  // Steps from..n as serialised noveltygrid.v1.Step.
  static std::vector<std::string> Serialized(absl::Span<const StepRecord> steps, absl::Span<const Embedding> embeddings,
                                             size_t from);

  Store* const store_;  // not owned
  StoreGuard guard_;
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_WORKER_CHECKPOINT_CHECKPOINT_STORE_H_
