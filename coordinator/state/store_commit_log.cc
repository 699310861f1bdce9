#include "coordinator/state/store_commit_log.h"

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "common/storage/keys.h"

namespace noveltygrid {

namespace {

// Moves the units of a sweep committed by an earlier version (one hash per sweep name) into the shared
// hash, then drops the old keys. (The same id is the same unit, whichever copy is kept.)
absl::Status MoveLegacySweep(Store* store, const std::string& sweep) {
  const std::string legacy = keys::LegacySweepResults(sweep);
  ASSIGN_OR_RETURN(auto rows, store->HashGetAll(legacy));
  for (const auto& [unit_id, text] : rows) {
    RETURN_IF_ERROR(store->HashSet(keys::Units(), unit_id, text));
  }
  RETURN_IF_ERROR(store->Delete(keys::LegacySweepFingerprint(sweep)));
  return store->Delete(legacy);
}

}  // namespace

absl::StatusOr<std::unique_ptr<StoreCommitLog>> StoreCommitLog::Open(Store* store, const std::string& sweep,
                                                                     PlannedUnits& planned,
                                                                     std::vector<JournalEntry>* committed) {
  if (absl::Status moved = MoveLegacySweep(store, sweep); !moved.ok()) {
    return absl::UnavailableError(
        absl::StrCat("cannot keep the sweep state in ", store->Describe(), ": ", moved.message()));
  }
  RETURN_IF_ERROR(Read(store, planned, committed));
  return std::unique_ptr<StoreCommitLog>(new StoreCommitLog(store));
}

absl::Status StoreCommitLog::Read(Store* store, PlannedUnits& planned, std::vector<JournalEntry>* committed) {
  ASSIGN_OR_RETURN(std::vector<std::optional<std::string>> texts, store->HashMultiGet(keys::Units(), planned.ids()));
  for (size_t i = 0; i < texts.size(); ++i) {
    if (!texts[i].has_value()) continue;
    absl::StatusOr<JournalEntry> entry = CommittedUnitFromText(*texts[i]);
    if (!entry.ok()) {
      return absl::DataLossError(absl::StrCat(keys::Units(), "[", planned.ids()[i], "]: ", entry.status().message()));
    }
    planned.Take(std::move(*entry), *committed);
  }
  return absl::OkStatus();
}

absl::Status StoreCommitLog::Append(const UnitResult& result, const CallStats& calls) {
  return store_->HashSet(keys::Units(), result.unit.id, CommittedUnitText(result, calls));
}

}  // namespace noveltygrid
