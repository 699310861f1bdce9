// UnitScheduler: which unit goes to which worker, and for how long.
//
// Holds every unit of the plan in one of three states -- pending, leased, done -- and hands pending
// units out as leases: a lease id, a fencing token that grows with every lease of the same unit, and a
// deadline that heartbeats extend. Leases come back to pending when their deadline passes, when their
// worker stops sending heartbeats for `worker_timeout`, or when the worker releases them. Steps a
// worker reports are kept per unit as its checkpoint and handed to the next lease of that unit.
//
// Fairness: each lease goes to the model with pending units and the fewest leased units (ties: config
// order), never above `per_model_cap` leased units of one model (0 = no cap); inside a model, the
// longest expected unit first, learned from the units completed so far (pending_order.h; with nothing
// learned, plan order). Commits are validated against the current holder and token: a stale token
// is refused, a second commit of a done unit is reported as a duplicate.
//
// A LeasePolicy (SchedulerOptions.policy) may refuse a unit: its model gets nothing more in that Lease
// call; Blocked() says when nothing can be leased any more.
//
// Thread-safe: one mutex guards all state. Time comes from the injected Clock; nothing here sleeps.
#ifndef NOVELTYGRID_COORDINATOR_LEASE_UNIT_SCHEDULER_H_
#define NOVELTYGRID_COORDINATOR_LEASE_UNIT_SCHEDULER_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/call_cost.h"
#include "common/clock.h"
#include "common/records.h"
#include "coordinator/lease/lease_policy.h"
#include "coordinator/lease/pending_order.h"
#include "noveltygrid/v1/coordinator.pb.h"

namespace noveltygrid {

struct SchedulerOptions {
  absl::Duration lease_ttl = absl::Seconds(30);       // a lease not extended for this long expires
  absl::Duration worker_timeout = absl::Seconds(15);  // no heartbeat for this long: the worker is gone
  int per_model_cap = 0;                              // max leased units per model; 0 = unlimited
  // Asked before each lease (e.g. the budget, budget_policy.h); not owned; null: every unit may go.
  LeasePolicy* policy = nullptr;
};

// A completed step as the scheduler keeps it for resumption: its answer number and the serialized
// v1::Step it was reported as. The bytes are moved out of the Report as they arrived (one allocation,
// never parsed here); a re-lease sends a copy of them back.
struct CheckpointStep {
  int answer_num = 0;
  std::string bytes;  // a serialized v1::Step
};

// The steps one Report lists for one lease, in order.
struct LeaseReport {
  std::string lease_id;
  uint64_t fencing_token = 0;
  std::vector<CheckpointStep> steps;
};

struct LeaseGrant {
  std::string lease_id;
  uint64_t fencing_token = 0;
  absl::Time deadline;
  const UnitSpec* unit = nullptr;          // the plan's (valid as long as the scheduler)
  std::vector<CheckpointStep> checkpoint;  // steps reported under earlier leases of this unit
};

struct HeldLease {
  std::string lease_id;
  uint64_t fencing_token = 0;
};

// A lease an earlier coordinator of this sweep granted (coordinator/state/lease_log.h).
struct RestoredLease {
  std::string unit_id;
  std::string lease_id;
  uint64_t fencing_token = 0;
  std::string worker_id;
};

struct WorkerInfo {
  int loops_in_flight = 0;
  int capacity = 0;
  bool draining = false;
  CallWaits calls;  // its model calls waiting, as of its last heartbeat
};

enum class CommitCheck {
  kAccepted,    // the caller holds the current lease: commit, then call MarkDone
  kDuplicate,   // the unit is already done: acknowledge, change nothing
  kStaleToken,  // the lease was taken back and given to someone else: refuse
  kUnknown,     // no such lease or unit: refuse
};

struct ModelCounts {
  std::string model;
  int64_t done = 0, leased = 0, pending = 0, failed = 0;
};

// Units of one (model, benchmark) pair by state, for metrics. `done` includes `failed`.
struct CellCounts {
  std::string model, benchmark;
  int64_t pending = 0, leased = 0, done = 0, failed = 0;
};

struct WorkerCounts {
  std::string worker_id;
  absl::Duration since_last_seen;
  int leases = 0;
  WorkerInfo info;
};

struct SchedulerStatus {
  int64_t total = 0, done = 0, leased = 0, pending = 0;
  std::vector<ModelCounts> models;    // config order
  std::vector<WorkerCounts> workers;  // alive workers, by id
  std::vector<CellCounts> cells;      // by model (as `models`), then benchmark name
  int64_t leases_expired = 0;         // taken back at their deadline or their worker's silence, so far
};

class UnitScheduler {
 public:
  // `units` in plan order; `models` fixes the fairness tie-break and the status order.
  UnitScheduler(std::vector<UnitSpec> units, std::vector<std::string> models, SchedulerOptions options,
                const Clock* clock);
  // The same over units the caller keeps (not owned; they outlive the scheduler): a large plan is not
  // copied.
  UnitScheduler(const std::vector<UnitSpec>* units, std::vector<std::string> models, SchedulerOptions options,
                const Clock* clock);

  UnitScheduler(const UnitScheduler&) = delete;
  UnitScheduler& operator=(const UnitScheduler&) = delete;

  // How often at most Lease and ExpireIfDue look for overdue leases (a look visits every lease held, and
  // a busy cluster leases thousands of times a second): a twentieth of the shorter of lease_ttl and
  // worker_timeout, so that a lease comes back at most 5% late, and at most a second (500 ms with the
  // command line's defaults, a 30 s ttl and a 10 s worker timeout).
  absl::Duration expiry_every() const { return expiry_every_; }

  // A lease id: the unit's slot in hex, a dash, `suffix` in 8 hex digits ("1e240-0badf00d"); at most
  // 15 characters (no allocation) below 16.7 M units.
  static std::string LeaseIdOf(size_t slot, uint32_t suffix);
  // The slot a lease id names, if it names one: not checked against anything.
  static std::optional<size_t> SlotNamedBy(std::string_view lease_id);

  // Up to `max_units` new leases for `worker_id` (also records the worker as alive). Expires overdue
  // leases first -- at most once per expiry_every(); ExpireOverdue() always does.
  std::vector<LeaseGrant> Lease(const std::string& worker_id, int max_units);

  // Records the worker as alive and extends the deadlines of the leases it still holds; returns the
  // lease ids it listed that it no longer holds.
  std::vector<std::string> Heartbeat(const std::string& worker_id, const std::vector<HeldLease>& leases,
                                     const WorkerInfo& info);

  // Appends each lease's reported steps to its unit's checkpoint (steps whose answer_num is already
  // there are ignored), all under one hold of the lock; the steps kept are moved out of *reports.
  // Returns the indices into *reports of the leases that are not their unit's current one.
  std::vector<size_t> Report(std::vector<LeaseReport>* reports);
  // The same for one lease: false when it is not the unit's current one.
  bool Report(const std::string& lease_id, uint64_t fencing_token, std::vector<CheckpointStep> steps);

  // Validates a commit of `unit_id` under the lease. On kAccepted the caller persists the result and
  // then calls MarkDone.
  CommitCheck CheckCommit(const std::string& lease_id, uint64_t fencing_token, const std::string& unit_id);

  // Marks a unit done (after its result is persisted, or at start-up for units already in the
  // journal); `failed` counts it in the status as failed. Drops its lease and checkpoint. `steps`
  // (answers or generations; -1: not known) teaches the lease order how long units of its item run;
  // a failed unit teaches nothing.
  void MarkDone(const std::string& unit_id, bool failed = false, int steps = -1);

  // At start-up, after the committed units are marked done: the leases a crashed coordinator had granted.
  // Each one of a pending unit is granted again as it was -- same lease id, fencing token and worker --
  // with a fresh deadline, and its worker counts as seen now. That worker's first heartbeat confirms them:
  // a restored lease it does not list (it never got the lease, or let it go) returns to pending then;
  // a worker that never comes back loses them after worker_timeout, as usual. Fencing tokens continue
  // from the restored ones. Returns the leases restored.
  std::vector<RestoredLease> Restore(const std::vector<RestoredLease>& leases);

  // Gives a lease back to pending (checkpoint kept). Ignored unless it is the current lease.
  void Release(const std::string& lease_id, uint64_t fencing_token);

  // The worker is exiting: its leases go back to pending at once and it is no longer listed.
  void Leave(const std::string& worker_id);

  // Takes back leases past their deadline and leases of workers silent for worker_timeout.
  // Returns how many leases came back.
  int ExpireOverdue();
  // The same, unless leases were looked at (here or by Lease) less than expiry_every() ago: 0 then.
  int ExpireIfDue();

  bool AllDone() const;
  // Nothing is leased and the lease policy refuses the next pending unit of every model: the sweep
  // cannot go on (e.g. its budget is spent). False without a policy.
  bool Blocked() const;
  SchedulerStatus Status() const;

  // The plan's copy of a unit (the coordinator trusts it over what a worker sends back); null when the
  // unit is not planned. It lives as long as the plan.
  const UnitSpec* UnitById(const std::string& unit_id) const;
  // Whether the unit is planned and done (committed, or failed for this run).
  bool IsDone(const std::string& unit_id) const;

 private:
  enum class UnitState { kPending, kLeased, kDone };

  // `kept` (not owned) when given, else `owned`.
  UnitScheduler(const std::vector<UnitSpec>* kept, std::vector<std::string> models, SchedulerOptions options,
                const Clock* clock, std::vector<UnitSpec> owned);

  struct UnitEntry {
    const UnitSpec* spec = nullptr;  // in the plan
    int model = 0;                   // index into models_
    int cell = 0;                    // index into cells_
    int item = 0;                    // its item in order_
    UnitState state = UnitState::kPending;
    uint64_t token = 0;     // of the latest lease; 0 before the first
    std::string lease_id;   // the current lease; empty unless leased
    std::string worker_id;  // its holder
    absl::Time deadline;
    std::vector<CheckpointStep> checkpoint;
  };

  struct ModelState {
    std::string name;
    int64_t leased = 0, done = 0, failed = 0;  // `done` includes `failed`
  };

  struct WorkerEntry {
    absl::Time last_seen;
    WorkerInfo info;
    absl::flat_hash_set<size_t> leases;  // slots of the units it holds (visited in no order)
    std::set<size_t> restored;           // of those, leases Restore() gave it that its heartbeat has not confirmed
  };

  // The slot of the unit whose current lease is (lease_id, token), if any.
  std::optional<size_t> CurrentSlot(const std::string& lease_id, uint64_t token) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The slot of the unit whose current lease has this id, whatever its token.
  std::optional<size_t> LeaseSlot(const std::string& lease_id) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The model the next lease goes to, or -1 when none may get one (`refused` ones are skipped).
  int PickModel(const std::vector<bool>& refused) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::string NewLeaseId(size_t slot) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Moves the unit's count in its cell from its current state to `to` (failed: counted as failed too).
  void SetState(UnitEntry& unit, UnitState to, bool failed = false) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  WorkerEntry& Touch(const std::string& worker_id, absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Forgets the unit's lease everywhere it is indexed; the caller sets the new state.
  void DropLease(size_t slot) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void ReturnToPending(size_t slot) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  int ExpireLocked(absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  int ExpireIfDueLocked(absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // Constant after construction.
  const SchedulerOptions options_;
  const Clock* const clock_;
  const uint64_t lease_salt_;  // see NewLeaseId
  const absl::Duration expiry_every_;
  const std::vector<UnitSpec> owned_units_;             // when constructed with units by value
  absl::flat_hash_map<std::string, size_t> unit_slot_;  // unit id -> index into units_

  mutable absl::Mutex mu_;
  std::vector<UnitEntry> units_ ABSL_GUARDED_BY(mu_);    // plan order
  std::vector<ModelState> models_ ABSL_GUARDED_BY(mu_);  // config order, then the others by name
  PendingOrder order_ ABSL_GUARDED_BY(mu_);              // each model's pending units
  // Current leases restored from an earlier coordinator whose ids do not name their slot -> slot.
  absl::flat_hash_map<std::string, size_t> foreign_leases_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, WorkerEntry> workers_ ABSL_GUARDED_BY(mu_);  // by id, for Status
  std::vector<CellCounts> cells_ ABSL_GUARDED_BY(mu_);               // by model index, then benchmark name
  int64_t leases_expired_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t lease_seq_ ABSL_GUARDED_BY(mu_) = 0;
  absl::Time next_lease_expiry_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();  // see Lease
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_LEASE_UNIT_SCHEDULER_H_
