#include "coordinator/state/store_commit_log.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/hashing.h"
#include "common/status_macros.h"
#include "common/storage/keys.h"

namespace noveltygrid {

namespace {

// Moves the units of a sweep committed by an earlier version (one hash per sweep name) into the shared
// hash, then drops the old keys. A unit already in the shared hash keeps its result there (the first
// stored is the one every coordinator reports).
absl::Status MoveLegacySweep(Store* store, const std::string& sweep) {
  const std::string legacy = keys::LegacySweepResults(sweep);
  ASSIGN_OR_RETURN(auto rows, store->HashGetAll(legacy));
  for (const auto& [unit_id, text] : rows) {
    RETURN_IF_ERROR(store->HashSetIfAbsent(keys::Units(), unit_id, text).status());
  }
  RETURN_IF_ERROR(store->Delete(keys::LegacySweepFingerprint(sweep)));
  return store->Delete(legacy);
}

// Units read per round trip on load.
constexpr size_t kLoadBatch = 256;

}  // namespace

absl::StatusOr<std::unique_ptr<StoreCommitLog>> StoreCommitLog::Create(Store* store, const std::string& sweep) {
  if (absl::Status moved = MoveLegacySweep(store, sweep); !moved.ok()) {
    return absl::UnavailableError(
        absl::StrCat("cannot keep the sweep state in ", store->Describe(), ": ", moved.message()));
  }
  return std::unique_ptr<StoreCommitLog>(new StoreCommitLog(store));
}

absl::StatusOr<std::unique_ptr<StoreCommitLog>> StoreCommitLog::Open(Store* store, const std::string& sweep,
                                                                     PlannedUnits& planned,
                                                                     std::vector<JournalEntry>* committed) {
  ASSIGN_OR_RETURN(std::unique_ptr<StoreCommitLog> log, Create(store, sweep));
  RETURN_IF_ERROR(log->Load(planned, CollectInto(committed)));
  return log;
}

absl::Status StoreCommitLog::Load(PlannedUnits& planned, const CommittedVisitor& visit) {
  return Read(store_, planned, visit);
}

namespace {

// Calls `fn` with the stored entry of each of `ids` (absent ones: with nullopt).
absl::Status FetchEntries(Store* store, const std::vector<std::string>& ids,
                          const std::function<absl::Status(const std::string& id, std::optional<JournalEntry>)>& fn) {
  ASSIGN_OR_RETURN(std::vector<std::optional<std::string>> texts, store->HashMultiGet(keys::Units(), ids));
  for (size_t i = 0; i < texts.size(); ++i) {
    std::optional<JournalEntry> entry;
    if (texts[i].has_value()) {
      absl::StatusOr<JournalEntry> parsed = CommittedUnitFromBytes(*texts[i]);
      if (!parsed.ok()) {
        return absl::DataLossError(absl::StrCat(keys::Units(), "[", ids[i], "]: ", parsed.status().message()));
      }
      entry = *std::move(parsed);
    }
    RETURN_IF_ERROR(fn(ids[i], std::move(entry)));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status StoreCommitLog::Read(Store* store, PlannedUnits& planned, const CommittedVisitor& visit) {
  const std::vector<std::string>& all = planned.ids();
  for (size_t begin = 0; begin < all.size(); begin += kLoadBatch) {
    const std::vector<std::string> ids(all.begin() + begin, all.begin() + std::min(all.size(), begin + kLoadBatch));
    RETURN_IF_ERROR(FetchEntries(store, ids, [&](const std::string&, std::optional<JournalEntry> entry) {
      if (entry.has_value() && planned.Take(*entry)) visit(*std::move(entry));
      return absl::OkStatus();
    }));
  }
  return absl::OkStatus();
}

absl::Status StoreCommitLog::ForEachUnit(const std::vector<std::string>& ids,
                                         const std::function<absl::Status(UnitResult)>& fn) const {
  return FetchEntries(store_, ids, [&](const std::string& id, std::optional<JournalEntry> entry) {
    if (!entry.has_value()) return absl::NotFoundError(absl::StrCat("unit ", id, " is not in ", keys::Units()));
    return fn(std::move(entry->result));
  });
}

absl::StatusOr<std::vector<bool>> StoreCommitLog::AppendMany(const std::vector<JournalEntry>& units) {
  std::vector<std::pair<std::string, std::string>> fields;
  fields.reserve(units.size());
  for (const JournalEntry& unit : units) {
    fields.emplace_back(unit.result.unit.id, CommittedUnitBytes(unit));
  }
  return store_->HashSetIfAbsentMany(keys::Units(), fields);
}

absl::StatusOr<uint64_t> StoreCommitLog::ContentDigest(const std::vector<std::string>& ids) const {
  StableHasher hasher;
  for (size_t begin = 0; begin < ids.size(); begin += kLoadBatch) {
    const std::vector<std::string> batch(ids.begin() + begin, ids.begin() + std::min(ids.size(), begin + kLoadBatch));
    ASSIGN_OR_RETURN(std::vector<std::optional<std::string>> values, store_->HashMultiGet(keys::Units(), batch));
    for (size_t i = 0; i < values.size(); ++i) {
      if (!values[i].has_value()) {
        return absl::NotFoundError(absl::StrCat("unit ", batch[i], " is not in ", keys::Units()));
      }
      hasher.Add(batch[i]).Add(*values[i]);
    }
  }
  return hasher.Finish();
}

}  // namespace noveltygrid
