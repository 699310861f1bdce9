// StoreCommitLog: committed units in the Store (Redis), in one hash by unit id (keys::Units()) that
// every sweep pointed at the same Redis shares, so a coordinator restarted anywhere -- another pod,
// another machine -- resumes, and a sweep that grows, or another sweep planning some of the same
// units, pays only for the units not committed yet. Keys: see common/storage/keys.h. Thread-safe.
#ifndef NOVELTYGRID_COORDINATOR_STATE_STORE_COMMIT_LOG_H_
#define NOVELTYGRID_COORDINATOR_STATE_STORE_COMMIT_LOG_H_

#include <memory>
#include <string>
#include <vector>

#include "common/storage/store.h"
#include "coordinator/state/journal.h"

namespace noveltygrid {

class StoreCommitLog : public CommitLog {
 public:
  // The log of sweep `sweep`: a results hash left by a version that kept each sweep's units under its
  // name (ng:sweep:NAME:results) is moved into the shared hash first.
  static absl::StatusOr<std::unique_ptr<StoreCommitLog>> Create(Store* store, const std::string& sweep);
  // Create and Load, collecting into `committed`.
  static absl::StatusOr<std::unique_ptr<StoreCommitLog>> Open(Store* store, const std::string& sweep,
                                                              PlannedUnits& planned,
                                                              std::vector<JournalEntry>* committed);

  // Calls `visit` with the committed entries of `planned` units, read only: nothing is written or moved
  // (units of a legacy per-sweep hash are not seen until a coordinator has moved them). Reads in batches.
  static absl::Status Read(Store* store, PlannedUnits& planned, const CommittedVisitor& visit);

  absl::Status Load(PlannedUnits& planned, const CommittedVisitor& visit) override;
  // HSETNX, pipelined (Store::HashSetIfAbsentMany): the first result of a unit committed by any sweep
  // sharing the store is kept.
  absl::StatusOr<std::vector<bool>> AppendMany(const std::vector<JournalEntry>& units) override;
  absl::Status ForEachUnit(const std::vector<std::string>& ids,
                           const std::function<absl::Status(UnitResult)>& fn) const override;
  // Hashes the stored values, read again in batches (Redis keeps no index of them here).
  absl::StatusOr<uint64_t> ContentDigest(const std::vector<std::string>& ids) const override;

 private:
  explicit StoreCommitLog(Store* store) : store_(store) {}

  Store* const store_;  // not owned
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_STATE_STORE_COMMIT_LOG_H_
