// ResultJournal: the coordinator's durable record of committed units, kept in the results folder
// (DIR/.noveltygrid/journal.jsonl), so that a crashed or stopped sweep resumes where it was and never
// pays for a finished unit twice.
//
// The first line names the plan's fingerprint; each further line is one committed unit (its result and
// its call statistics), appended and fdatasync'ed before the commit is acknowledged. A torn last line
// (a crash mid-write) is dropped on open. Thread-safe.
#ifndef NOVELTYGRID_COORDINATOR_STATE_JOURNAL_H_
#define NOVELTYGRID_COORDINATOR_STATE_JOURNAL_H_

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

class ResultJournal : public CommitLog {
 public:
  // Opens (or creates) the journal of `out_dir`. Entries already there are returned through
  // `committed`. A journal written for a different plan is refused with FailedPrecondition.
  static absl::StatusOr<std::unique_ptr<ResultJournal>> Open(const std::string& out_dir, const std::string& fingerprint,
                                                             std::vector<JournalEntry>* committed);
  ~ResultJournal() override;

  absl::Status Append(const UnitResult& result, const CallStats& calls) override;

 private:
  ResultJournal(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}

  const std::string path_;
  absl::Mutex mu_;
  int fd_ ABSL_GUARDED_BY(mu_);
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_STATE_JOURNAL_H_
