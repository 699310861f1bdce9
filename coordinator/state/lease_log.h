// LeaseLog: the leases a coordinator granted, kept where its committed units are (the results folder's
// .noveltygrid/leases.log, or the Store), so that a coordinator restarted after a crash knows which
// units are running on which worker and under which lease and fencing token. It gives those leases back
// to their workers (UnitScheduler::Restore) instead of handing the units to someone else: the workers,
// which keep running while the coordinator is away, commit under the leases they hold, and a restart
// costs no model calls.
//
// A record is written before the lease is handed out; records are not removed when a lease ends (the
// next lease of the unit replaces its record, the unit's commit makes it moot), so a log holds at most
// one record per unit that was ever leased. Reset (the coordinator's start-up) compacts it to the leases
// restored, and the finished sweep clears it. Fencing after a restart rests on lease ids (salted per
// coordinator run) as much as on tokens: a unit whose record was lost starts again at token 1, but
// under a lease id no earlier holder has.
//
// Not fsync'ed: a record survives the coordinator's process dying (the case this is for), not the
// machine losing power. A lost record only costs calls -- the unit is leased again, and its first
// holder's commit is refused by the lease check -- never a result.
#ifndef NOVELTYGRID_COORDINATOR_STATE_LEASE_LOG_H_
#define NOVELTYGRID_COORDINATOR_STATE_LEASE_LOG_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "common/storage/store.h"

namespace noveltygrid {

struct LeaseRecord {
  std::string unit_id;
  std::string lease_id;
  uint64_t fencing_token = 0;
  std::string worker_id;

  friend bool operator==(const LeaseRecord&, const LeaseRecord&) = default;
};

class LeaseLog {
 public:
  virtual ~LeaseLog() = default;
  // Keeps `leases` (a later record of a unit replaces an earlier one).
  virtual absl::Status Record(const std::vector<LeaseRecord>& leases) = 0;
  // The latest record of each unit, by unit id.
  virtual absl::StatusOr<std::vector<LeaseRecord>> Load() = 0;
  // Replaces everything with `leases` (compaction at start-up; empty: the sweep is done).
  virtual absl::Status Reset(const std::vector<LeaseRecord>& leases) = 0;
};

// The file DIR/.noveltygrid/leases.log: one text line per record, appended; a torn last line (a crash
// mid-write) is ignored. Open() takes an exclusive lock on the folder (DIR/.noveltygrid/coordinator.lock,
// released with the log or the process): a second coordinator on the same folder fails with
// FailedPrecondition instead of replacing the running one's log. Thread-safe.
class FileLeaseLog : public LeaseLog {
 public:
  static absl::StatusOr<std::unique_ptr<FileLeaseLog>> Open(const std::string& out_dir);
  ~FileLeaseLog() override;

  absl::Status Record(const std::vector<LeaseRecord>& leases) override;
  absl::StatusOr<std::vector<LeaseRecord>> Load() override;
  absl::Status Reset(const std::vector<LeaseRecord>& leases) override;

 private:
  FileLeaseLog(std::string path, int fd, int lock_fd) : path_(std::move(path)), lock_fd_(lock_fd), fd_(fd) {}

  const std::string path_;
  const int lock_fd_;  // DIR/.noveltygrid/coordinator.lock, flock'ed while the log is open
  absl::Mutex mu_;
  int fd_ ABSL_GUARDED_BY(mu_);  // O_APPEND
};

// The hash ng:sweep:NAME:leases (unit id -> record) in the Store. Thread-safe.
class StoreLeaseLog : public LeaseLog {
 public:
  StoreLeaseLog(Store* store, const std::string& sweep);  // `store` not owned

  absl::Status Record(const std::vector<LeaseRecord>& leases) override;
  absl::StatusOr<std::vector<LeaseRecord>> Load() override;
  absl::Status Reset(const std::vector<LeaseRecord>& leases) override;

 private:
  Store* const store_;
  const std::string key_;
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_STATE_LEASE_LOG_H_
