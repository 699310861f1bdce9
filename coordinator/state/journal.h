// The coordinator's committed units, stored by unit id. A unit id hashes everything that defines the
// unit (benchmark, model, temperature, item, settings, seed), so a committed unit stays valid whatever
// config plans it next: a sweep that grows (new models, temperatures, questions) runs only the units
// whose ids are not committed yet, and units a config no longer plans stay stored, out of its results.
//
// Two logs: ResultJournal, a file in the results folder (DIR/.noveltygrid/journal.bin), and
// StoreCommitLog (store_commit_log.h), the Store (Redis) shared by every sweep that points at it. Both
// are UnitSources (coordinator/benchmarks/unit_source.h): the coordinator keeps aggregates and an index
// in memory, and its results files fetch the committed answers back from the log, so its memory does
// not grow with the sweep's answers.
#ifndef NOVELTYGRID_COORDINATOR_STATE_JOURNAL_H_
#define NOVELTYGRID_COORDINATOR_STATE_JOURNAL_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "common/records.h"
#include "coordinator/benchmarks/unit_source.h"
#include "coordinator/state/committed_unit.h"

namespace noveltygrid {

// DIR/.noveltygrid: where a results folder keeps the coordinator's state (journal, lease log).
std::string StateDir(const std::string& out_dir);

// Receives the committed units a log finds on load, one at a time.
using CommittedVisitor = std::function<void(JournalEntry entry)>;
// A visitor that appends to `committed` (small logs: tests, tools).
CommittedVisitor CollectInto(std::vector<JournalEntry>* committed);

// The units a plan asks for, by id: what a commit log returns on load is limited to them, and each
// entry's unit is replaced by the planned one (same id, so same content; the index is the plan's).
class PlannedUnits {
 public:
  explicit PlannedUnits(const std::vector<UnitSpec>& units);
  const UnitSpec* Find(const std::string& unit_id) const;
  const std::vector<std::string>& ids() const { return ids_; }
  // True when `entry`'s unit is planned and not taken yet: its unit is then replaced by the plan's.
  bool Take(JournalEntry& entry);

 private:
  std::unordered_map<std::string, const UnitSpec*> by_id_;
  std::vector<std::string> ids_;  // plan order
  std::unordered_map<std::string, bool> taken_;
};

// Where the coordinator keeps committed units: this file journal, or Redis (store_commit_log.h). A
// source of the committed units' whole results, by id.
class CommitLog : public UnitSource {
 public:
  // Calls `visit` with the committed units of `planned` (the first stored of each), plan order not
  // guaranteed; once, before the first Append. `visit` must not call back into the log.
  virtual absl::Status Load(PlannedUnits& planned, const CommittedVisitor& visit) = 0;
  // Stores committed units together, all durable when it returns (one fdatasync, one Redis round trip:
  // the coordinator commits a worker's round at once). One bool per unit: the first result stored of a
  // unit is the one kept, so false when the unit already has one, or comes earlier in `units` (this
  // one is not stored; ForEachUnit returns that one). After an error some units may be stored (a retry
  // then reports false for them).
  virtual absl::StatusOr<std::vector<bool>> AppendMany(const std::vector<JournalEntry>& units) = 0;
  // One unit: AppendMany of one.
  absl::StatusOr<bool> Append(const UnitResult& result, const CallStats& calls);
  // A digest of what is stored for `ids`, in that order: it changes when any of them is stored anew
  // (a log deleted and run again, another store). NotFound when one of them is not stored.
  virtual absl::StatusOr<uint64_t> ContentDigest(const std::vector<std::string>& ids) const = 0;
};

// Thread-safe. The file holds one record per committed unit, appended and fdatasync'ed before the commit
// is acknowledged: a 4-byte length, a 4-byte CRC-32 of the bytes that follow and a 4-byte CRC-32 of
// those 8 (all little-endian), then the unit as committed_unit.h stores it. A torn last record (a crash mid-write) is
// dropped by Load; a damaged record before it, or a read error, is an error (nothing is cut). The file is read a record
// at a time; what stays in memory is an index of where each unit's record is. The JSON-lines journal of earlier
// versions (journal.jsonl) is moved into it on Load and then removed.
class ResultJournal : public CommitLog {
 public:
  // Opens (or creates) the journal of `out_dir`; Load before appending.
  static absl::StatusOr<std::unique_ptr<ResultJournal>> Create(const std::string& out_dir);
  // Create and Load.
  static absl::StatusOr<std::unique_ptr<ResultJournal>> Open(const std::string& out_dir, PlannedUnits& planned,
                                                             const CommittedVisitor& visit);
  static absl::StatusOr<std::unique_ptr<ResultJournal>> Open(const std::string& out_dir, PlannedUnits& planned,
                                                             std::vector<JournalEntry>* committed) {
    return Open(out_dir, planned, CollectInto(committed));
  }
  ~ResultJournal() override;

  // Reads the journal (dropping a torn last line) and indexes every unit in it, planned or not.
  absl::Status Load(PlannedUnits& planned, const CommittedVisitor& visit) override;
  // Writes the new units' records in one write and syncs once (group commit).
  absl::StatusOr<std::vector<bool>> AppendMany(const std::vector<JournalEntry>& units) override;
  absl::Status ForEachUnit(const std::vector<std::string>& ids,
                           const std::function<absl::Status(UnitResult)>& fn) const override;
  // From the records' CRC-32s (kept in the index: nothing is read).
  absl::StatusOr<uint64_t> ContentDigest(const std::vector<std::string>& ids) const override;

 private:
  struct Line {
    int64_t offset = 0;  // of the stored bytes (after the record's header)
    int64_t size = 0;
    uint32_t crc = 0;  // CRC-32 of the stored bytes
  };
  absl::Status MoveLegacyJournal(PlannedUnits& planned, const CommittedVisitor& visit)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  ResultJournal(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}

  const std::string path_;
  const int fd_;                              // read and appended at explicit offsets (pread/pwrite)
  mutable absl::Mutex mu_;                    // appends, and the index
  int64_t size_ ABSL_GUARDED_BY(mu_) = 0;     // bytes of whole lines
  bool loaded_ ABSL_GUARDED_BY(mu_) = false;  // Append refuses until Load has read the file
  std::unordered_map<std::string, Line> lines_ ABSL_GUARDED_BY(mu_);  // by unit id: the first record
};

// Calls `visit` with what ResultJournal::Load would find, changing nothing (no folder or file is
// created; a missing journal holds nothing).
absl::Status ReadJournal(const std::string& out_dir, PlannedUnits& planned, const CommittedVisitor& visit);

// The ids of every record in the journal of `out_dir`, in file order (a unit stored twice: twice).
// Tests and tools.
absl::StatusOr<std::vector<std::string>> JournalUnitIds(const std::string& out_dir);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_STATE_JOURNAL_H_
