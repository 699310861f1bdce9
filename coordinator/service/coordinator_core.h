// CoordinatorCore: what the noveltygrid.v1.Coordinator service does, without a transport. Each method
// takes the caller's token and a request, fills the response and returns absl::Status with the codes
// the gRPC service answers with. CoordinatorService (coordinator_service.h) is the thin gRPC callback
// adapter over it; InProcessCoordinatorClient (in_process_client.h) calls it directly.
//
// Thread-safe. Lease, Heartbeat, Report, Release and Status only touch the scheduler's in-memory state
// and return at once. Complete, CompleteMany and CommitCalls (several of them at once) persist results
// through the CommitBatchSink (journal fsync or Redis, reducer) before they return OK, so they may
// block. Commits on several threads overlap only in their sink calls: the checks and the marking done
// are serialised under the commit lock, and a unit one commit is persisting is waited for by any other
// that carries it, which keeps "check token -> persist -> mark done" atomic for each unit. Every call is
// refused with UNAUTHENTICATED unless it carries the shared token.
#ifndef NOVELTYGRID_COORDINATOR_SERVICE_COORDINATOR_CORE_H_
#define NOVELTYGRID_COORDINATOR_SERVICE_COORDINATOR_CORE_H_

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "common/provider_config.h"
#include "common/records.h"
#include "coordinator/lease/unit_scheduler.h"
#include "coordinator/plan/planner.h"
#include "coordinator/state/committed_unit.h"
#include "coordinator/state/lease_log.h"
#include "noveltygrid/v1/coordinator.pb.h"
#include "proto/limits.h"

namespace noveltygrid {

// Where committed results go (journal + reducer): the units one group of commit calls accepted, in
// order, in one call, so that they are persisted together (one fdatasync or Redis round trip, not one
// per unit). OK: every unit is durable; an error: none of them counts as committed (they stay leased
// and the worker sends them again). Called by several commits at once (never with the same unit), so
// it must be thread-safe.
using CommitBatchSink = std::function<absl::Status(std::vector<JournalEntry> units)>;

struct CoordinatorServiceOptions {
  std::string token;
  std::string sweep_name;
  absl::Duration heartbeat_interval = absl::Seconds(2);
  absl::Duration idle_retry = absl::Milliseconds(500);  // how long a worker waits when nothing is free
  // After a commit is persisted AND the unit is marked done: once per group of calls (CommitCalls) that
  // marked any unit done.
  std::function<void()> on_marked_done;
  // When the loop of a lease that is no longer current has ended -- its worker says so (ReleaseRequest.
  // unit_id), or its commit of the done unit comes back as a duplicate -- and the unit is done: that loop may have
  // rewritten the checkpoint the unit's commit deleted, so it is deleted again.
  std::function<void(const std::string& unit_id)> on_lost_loop_ended;
  // Optional (not owned): every lease is recorded there before it is handed out, so that a restarted
  // coordinator gives running units back to their workers (lease_log.h).
  LeaseLog* lease_log = nullptr;
  // For Status's answers, tokens and dollars: the config's prices, and what the units committed
  // before this coordinator started (resumed) held.
  std::map<std::string, ModelPrice> prices;
  int64_t resumed_answers = 0;
  CallStats resumed_calls;
};

// What the commits so far came to (metrics).
struct CommitCounts {
  int64_t accepted = 0;       // results persisted by this coordinator
  int64_t duplicates = 0;     // of units already committed (acknowledged, nothing changed)
  int64_t stale_tokens = 0;   // refused: not the unit's current lease (taken back and given again: fencing)
  int64_t unknown_units = 0;  // refused: no such unit in the plan
  int64_t unpersisted = 0;    // could not be persisted (the worker retries)
  int64_t waited = 0;         // checked only once another commit's write of the same unit had ended
                              // (not served as a metric: a worker's retry racing its first commit)
  CallStats calls;            // of the committed units, those committed before this coordinator started included
};
// (CoordinatorCore keeps the counters in commits_ and the calls in calls_, which Status reads too;
// Commits() puts them together.)

// One Complete or CompleteMany call, for CoordinatorCore::CommitCalls: its token, its units and where
// their answers go. Points into `request` and `response`, which must outlive it.
class CommitCall {
 public:
  CommitCall(std::string_view token, const v1::CompleteRequest& request, v1::CompleteResponse* response);
  CommitCall(std::string_view token, const v1::CompleteManyRequest& request, v1::CompleteManyResponse* response);

  // After CommitCalls: what Complete or CompleteMany returns for the call.
  const absl::Status& status() const { return status_; }

 private:
  friend class CoordinatorCore;

  // Once the call is authorized: where each unit's answer goes (a CompleteMany's outcomes are added
  // now, so that a refused call's response stays empty).
  void Open();
  // Answers unit `i` with what committing it came to: CompleteMany's outcome carries it, Complete
  // returns it.
  void Settle(size_t i, const absl::Status& committed);

  std::string token_;
  std::vector<const v1::CompleteRequest*> units_;
  std::vector<v1::CompleteResponse*> responses_;  // one per unit once Open
  v1::CompleteManyResponse* many_ = nullptr;      // null for a Complete
  absl::Status status_;
};

// A lease reply stops taking grants once it is over this size (CoordinatorCore::Lease), well under
// the message limit.
inline constexpr size_t kLeaseReplyBudgetBytes = kMaxMessageBytes / 4;

class CoordinatorCore {
 public:
  // `scheduler` is not owned.
  // `plan` (not owned) supplies each unit's benchmark settings for its leases.
  CoordinatorCore(CoordinatorServiceOptions options, const Plan* plan, UnitScheduler* scheduler, CommitBatchSink sink);

  // OK when `token` is the shared token (compared in constant time), else UNAUTHENTICATED.
  absl::Status Authorize(std::string_view token) const;

  // Grants up to request.max_units units. Resumed checkpoints (embeddings included) can be large: once
  // the reply holds more than kLeaseReplyBudgetBytes, the grants after it are given back at once, for
  // this or another worker to lease again; the first grant always goes out, however large.
  absl::Status Lease(std::string_view token, const v1::LeaseRequest& request, v1::LeaseResponse* response);
  absl::Status Heartbeat(std::string_view token, const v1::HeartbeatRequest& request, v1::HeartbeatResponse* response);
  absl::Status Report(std::string_view token, const v1::ReportRequest& request, v1::ReportResponse* response);
  // The same for a Report read as v1::ReceivedReport (its steps still serialized, as the gRPC service
  // reads it): the steps' bytes are moved out of *request into the checkpoints, neither parsed nor
  // copied. A step that would not parse ends its lease's steps, as a gap does.
  absl::Status Report(std::string_view token, v1::ReceivedReport* request, v1::ReportResponse* response);
  // OK: the result is durable and the unit done (accepted), or a duplicate (accepted, duplicate), or
  // refused for a stale fencing token (not accepted). NOT_FOUND for an unknown lease; UNAVAILABLE when
  // the result cannot be persisted (the worker retries).
  absl::Status Complete(std::string_view token, const v1::CompleteRequest& request, v1::CompleteResponse* response);
  // Each unit as Complete, in order; its outcome carries what Complete would have returned. The units
  // accepted are persisted in one sink call; if that fails, each of them is UNAVAILABLE and stays
  // leased. Returns once every accepted unit is durable and marked done.
  absl::Status CompleteMany(std::string_view token, const v1::CompleteManyRequest& request,
                            v1::CompleteManyResponse* response);
  // Group commit: `calls` as if each were made alone, one after the other (Complete and CompleteMany
  // are this with one call), but the units they accept are persisted in one sink call, so queued calls
  // cost one journal write or Redis round trip, not one each. A call with a wrong token is refused
  // alone (UNAUTHENTICATED) and its units are not looked at. A unit repeated in a later call is a
  // duplicate there. When a sink call fails, each unit it carried is UNAVAILABLE and stays leased, and
  // the units after it are not tried (UNAVAILABLE too). Wakes on_marked_done once for the group.
  // Groups committed on two threads overlap in their sink calls (the committers' pipeline,
  // coordinator_service.h): a unit in both is committed by one and a duplicate in the other, or, when
  // the first one's write fails, tried again by the other.
  void CommitCalls(const std::vector<CommitCall*>& calls);
  absl::Status Release(std::string_view token, const v1::ReleaseRequest& request, v1::ReleaseResponse* response);
  absl::Status Status(std::string_view token, const v1::StatusRequest& request, v1::StatusResponse* response);

  CommitCounts Commits() const;

  // Workers that have been told the sweep is complete.
  std::set<std::string> WorkersToldComplete() const;

 private:
  // Writes the leases of `response` to the lease log (when there is one).
  void RecordLeases(const std::string& worker_id, const v1::LeaseResponse& response);
  void Count(int64_t CommitCounts::*counter);
  // The loop of a lease of `unit_id` that is no longer current has ended: on_lost_loop_ended when the
  // unit is done.
  void LostLoopEnded(const std::string& unit_id);
  // Commits `units` in order: the status and *responses[i] answer units[i] as Complete does. Each is
  // checked (CheckLocked); those accepted are persisted together (PersistLocked) and then marked done
  // in order (FinishLocked). The caller calls options_.on_marked_done once for all it committed (one
  // wake-up of the sweep's waiter per group, not per unit).
  std::vector<absl::Status> CommitLocked(const std::vector<const v1::CompleteRequest*>& units,
                                         const std::vector<v1::CompleteResponse*>& responses)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(commit_mu_);
  // Fencing, duplicates, unknown units: answers `response` and returns the status of a unit that is
  // not to be persisted; nullopt when the caller holds the unit's lease (persist it).
  std::optional<absl::Status> CheckLocked(const v1::CompleteRequest& request, v1::CompleteResponse* response)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(commit_mu_);
  // The units `batch` indexes (accepted by CheckLocked) in one sink call, made with the commit lock
  // released (persisting_ holds them meanwhile), then FinishLocked; UNAVAILABLE when they cannot be
  // persisted.
  absl::Status PersistLocked(const std::vector<const v1::CompleteRequest*>& units, const std::vector<size_t>& batch,
                             const std::vector<v1::CompleteResponse*>& responses)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(commit_mu_);
  // Counts the persisted units of `batch` (with `calls`, theirs) and marks each done, in order.
  void FinishLocked(const std::vector<const v1::CompleteRequest*>& units, const std::vector<size_t>& batch,
                    const CallStats& calls, const std::vector<v1::CompleteResponse*>& responses)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(commit_mu_);
  // Whether a commit that answered `committed` and `response` marked its unit done now.
  static bool MarkedDone(const absl::Status& committed, const v1::CompleteResponse& response);
  void NotifyMarkedDone() const;

  // Constant after construction.
  const CoordinatorServiceOptions options_;
  const Plan* const plan_;  // each unit's benchmark settings for its leases
  UnitScheduler* const scheduler_;
  const CommitBatchSink sink_;

  absl::Mutex commit_mu_;  // held through a commit but for its sink calls
  // The units of the sink calls in progress (PersistLocked): a commit that carries one of them waits
  // until it is marked done or has failed.
  absl::flat_hash_set<std::string> persisting_ ABSL_GUARDED_BY(commit_mu_);
  mutable absl::Mutex mu_;
  std::set<std::string> told_complete_ ABSL_GUARDED_BY(mu_);
  int64_t lease_log_errors_ ABSL_GUARDED_BY(mu_) = 0;
  // Committed units (resumed ones included), for Status.
  const absl::Time started_ = absl::Now();
  int64_t answers_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t answers_this_run_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t units_this_run_ ABSL_GUARDED_BY(mu_) = 0;
  CommitCounts commits_ ABSL_GUARDED_BY(mu_);  // its `calls` are calls_ (filled in by Commits())
  CallStats calls_ ABSL_GUARDED_BY(mu_);
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_SERVICE_COORDINATOR_CORE_H_
