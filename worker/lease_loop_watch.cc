// LeaseLoop's watch over its own health, from the heartbeat thread: how long the coordinator has been
// unreachable (the reconnect window) and which running units make no progress (stalls); and what it
// tells its UnitObserver (metrics) of the units' calls.
#include <algorithm>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/provider_config.h"
#include "worker/lease_loop.h"

namespace noveltygrid {

void LeaseLoop::NoteHeartbeat(bool answered) {
  if (answered) {
    unreachable_since_.reset();
    return;
  }
  const absl::Time now = clock_->Now();
  if (!unreachable_since_.has_value()) unreachable_since_ = now;
  if (now - *unreachable_since_ < options_.reconnect_window) return;
  int abandoned = 0;
  for (auto& [lease_id, a] : active_) {
    if (!a.running || a.lost) continue;
    a.lost = true;  // the loop stops at its next step; its lease expires on the coordinator
    ++abandoned;
  }
  if (abandoned > 0) {
    Log(absl::StrCat("coordinator ", options_.coordinator, " unreachable for ",
                     absl::FormatDuration(now - *unreachable_since_), ": abandoning ", abandoned,
                     " running unit(s) (reconnect window ", absl::FormatDuration(options_.reconnect_window), ")"));
  }
}

void LeaseLoop::CheckStalls(CallWaits& waits) {
  const absl::Time now = clock_->Now();
  absl::Duration longest;
  std::string longest_lease;
  for (auto& [lease_id, a] : active_) {
    if (!a.running || a.lost) continue;
    const std::optional<WaitingCall> call =
        options_.waiting_on ? options_.waiting_on(lease_id) : std::optional<WaitingCall>();
    // Quiet since its latest step or its latest call started (phases without steps make calls).
    const absl::Duration quiet = now - std::max(a.last_step, call.has_value() ? call->since : a.last_step);
    const absl::Duration timeout = call.has_value() ? call->timeout : ProviderConfig().timeout;
    if (quiet <= timeout * options_.stall_multiple) continue;
    std::string what = absl::StrCat("unit ", a.unit_id, ": no step or new call for ", absl::FormatDuration(quiet));
    if (!call.has_value()) {
      absl::StrAppend(&what, ", no model call started");
    } else if (call->in_flight > 0) {
      absl::StrAppend(&what, ", waiting on ", call->call, " for ", absl::FormatDuration(now - call->since));
    } else {
      absl::StrAppend(&what, ", no call in flight (the latest, ", call->call, ", started ",
                      absl::FormatDuration(now - call->since), " ago)");
    }
    ++waits.stalled;
    // Ties to the lowest lease id: the table is hashed, its order no rule.
    if (quiet > longest || (quiet == longest && lease_id < longest_lease)) {
      longest = quiet;
      longest_lease = lease_id;
      waits.stalled_unit = what;
    }
    if (!a.stall_logged) {
      a.stall_logged = true;
      Log(absl::StrCat(what, " (stall threshold ", options_.stall_multiple, " x the provider timeout ",
                       absl::FormatDuration(timeout), ")"));
    }
  }
}

void LeaseLoop::ObserveCalls(const std::string& lease_id, const CallStats& calls, bool ended) {
  if (options_.observer == nullptr) return;
  CallStats delta;
  {
    absl::MutexLock lock(&mu_);
    auto it = active_.find(lease_id);
    if (it == active_.end()) {
      if (ended) delta = calls;  // a unit not (or no longer) tracked: told once, at its end
    } else {
      delta = AdvanceCallStats(calls, it->second.calls_seen);
    }
  }
  if (!delta.empty()) options_.observer->Called(delta);
}

}  // namespace noveltygrid
