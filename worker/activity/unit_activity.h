// UnitActivity: which model call each running unit waits on, so that a unit that makes no progress can
// be named with its call (LeaseLoop's stall check, WorkerOptions::waiting_on) rather than stall a sweep
// silently. Runners wrap a unit's models in TrackedModels, which notes every call on the board as it
// starts and ends; the board forgets the unit when its TrackedModels go (the unit ended).
//
// Units are named by their lease id (`unit_id` below): a unit whose lost run is still winding down and
// its new run on the same worker are two entries.
//
// Thread-safe. Calls are noted, not timed out: ending a call stays the provider channel's job (its
// timeout and retries).
#ifndef NOVELTYGRID_WORKER_ACTIVITY_UNIT_ACTIVITY_H_
#define NOVELTYGRID_WORKER_ACTIVITY_UNIT_ACTIVITY_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "common/clock.h"
#include "common/provider_config.h"
#include "worker/models/model.h"
#include "worker/unit_events.h"

namespace noveltygrid {

class UnitActivity {
 public:
  explicit UnitActivity(const Clock* clock = SystemClockInstance()) : clock_(clock) {}

  // A call of `unit_id` started: `call` says what it is ("generate by sim:explorer"); `timeout` is its
  // provider's per-request timeout.
  void Started(const std::string& unit_id, const std::string& call, absl::Duration timeout);
  // One of the unit's calls ended.
  void Ended(const std::string& unit_id);
  void Forget(const std::string& unit_id);
  // The unit's latest call and how many of its calls have not ended; nullopt when it made none.
  std::optional<WaitingCall> Waiting(const std::string& unit_id) const;

 private:
  const Clock* const clock_;
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, WaitingCall> units_ ABSL_GUARDED_BY(mu_);
};

// The per-request timeout of a model's calls: its provider's, or the default for in-process models.
absl::Duration CallTimeout(const ModelEndpoint* endpoint);

// One unit's models, each call noted on the board as "ROLE by MODEL". Owns the wrappers: keep it alive
// until the unit is done (the runners hold it in their done callback). Forgets the unit when destroyed.
class TrackedModels {
 public:
  TrackedModels(UnitActivity* board, std::string unit_id) : board_(board), unit_id_(std::move(unit_id)) {}
  ~TrackedModels();
  TrackedModels(const TrackedModels&) = delete;
  TrackedModels& operator=(const TrackedModels&) = delete;

  // `inner` (not owned; may be null, then null is returned) wrapped.
  ChatModel* Chat(ChatModel* inner, const std::string& role, const ModelEndpoint* endpoint);
  Embedder* Embedding(Embedder* inner, const std::string& role, const ModelEndpoint* endpoint);

 private:
  UnitActivity* const board_;
  const std::string unit_id_;
  std::vector<std::unique_ptr<ChatModel>> chats_;
  std::vector<std::unique_ptr<Embedder>> embedders_;
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_WORKER_ACTIVITY_UNIT_ACTIVITY_H_
