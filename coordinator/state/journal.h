// The coordinator's committed units, stored by unit id. A unit id hashes everything that defines the
// unit (benchmark, model, temperature, item, settings, seed), so a committed unit stays valid whatever
// config plans it next: a sweep that grows (new models, temperatures, questions) runs only the units
// whose ids are not committed yet, and units a config no longer plans stay stored, out of its results.
//
// Two logs: ResultJournal, a file in the results folder (DIR/.noveltygrid/journal.jsonl), and
// StoreCommitLog (store_commit_log.h), the Store (Redis) shared by every sweep that points at it.
#ifndef NOVELTYGRID_COORDINATOR_STATE_JOURNAL_H_
#define NOVELTYGRID_COORDINATOR_STATE_JOURNAL_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "common/records.h"

namespace noveltygrid {

struct JournalEntry {
  UnitResult result;
  CallStats calls;
};

// Where the coordinator keeps committed units: this file journal, or Redis (store_commit_log.h).
class CommitLog {
 public:
  virtual ~CommitLog() = default;
  // Durable when it returns OK.
  virtual absl::Status Append(const UnitResult& result, const CallStats& calls) = 0;
};

// The units a plan asks for, by id: what a commit log returns on open is limited to them, and each
// entry's unit is replaced by the planned one (same id, so same content; the index is the plan's).
class PlannedUnits {
 public:
  explicit PlannedUnits(const std::vector<UnitSpec>& units);
  const UnitSpec* Find(const std::string& unit_id) const;
  const std::vector<std::string>& ids() const { return ids_; }
  // Adds `entry` to `committed` when its unit is planned and not added yet; false otherwise.
  bool Take(JournalEntry entry, std::vector<JournalEntry>& committed);

 private:
  std::map<std::string, const UnitSpec*> by_id_;
  std::vector<std::string> ids_;  // plan order
  std::map<std::string, bool> taken_;
};

// Thread-safe. The file holds one committed unit per line (its result and call statistics), appended
// and fdatasync'ed before the commit is acknowledged; a torn last line (a crash mid-write) is dropped
// on open. A first line naming a plan fingerprint (journals written before units were stored by id)
// is read past.
class ResultJournal : public CommitLog {
 public:
  // Opens (or creates) the journal of `out_dir`; the entries of `planned` units already there are
  // returned through `committed`, plan order not guaranteed.
  static absl::StatusOr<std::unique_ptr<ResultJournal>> Open(const std::string& out_dir, PlannedUnits& planned,
                                                             std::vector<JournalEntry>* committed);
  ~ResultJournal() override;

  absl::Status Append(const UnitResult& result, const CallStats& calls) override;

 private:
  ResultJournal(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}

  const std::string path_;
  absl::Mutex mu_;
  int fd_ ABSL_GUARDED_BY(mu_);
};

// Reads what ResultJournal::Open would return through `committed`, changing nothing (no folder or
// file is created; a missing journal holds nothing).
absl::Status ReadJournal(const std::string& out_dir, PlannedUnits& planned, std::vector<JournalEntry>* committed);

// The text a commit log stores for one unit, and back.
std::string CommittedUnitText(const UnitResult& result, const CallStats& calls);
absl::StatusOr<JournalEntry> CommittedUnitFromText(const std::string& text);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_STATE_JOURNAL_H_
