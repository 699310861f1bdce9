// What calls cost and where they wait: the dollars of a sweep's token counts at the config's
// `prices:` (summary.json's "cost_usd" and the progress line use the same function), and the model
// calls of a worker that are waiting -- on a reply, on a retry, on a provider limit.
#ifndef NOVELTYGRID_COMMON_CALL_COST_H_
#define NOVELTYGRID_COMMON_CALL_COST_H_

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "common/provider_config.h"
#include "common/records.h"

namespace noveltygrid {

// Dollars of `calls` at `prices` (USD per million tokens, by model): per "ROLE:MODEL" key and per
// model (in the order the keys first name them) for the priced ones only, and their total. Keys
// without a ':' or a price cost nothing.
struct CallCosts {
  std::map<std::string, double> by_key;
  std::vector<std::pair<std::string, double>> by_model;
  double total = 0;
};
CallCosts PriceCalls(const CallStats& calls, const std::map<std::string, ModelPrice>& prices);
// The model a "ROLE:MODEL" key names ("" when none), and the dollars of so many tokens of that key
// (nullopt when its model has no price).
std::string CallKeyModel(const std::string& key);
std::optional<double> CallCostUsd(const std::string& key, double prompt_tokens, double completion_tokens,
                                  const std::map<std::string, ModelPrice>& prices);

// The model calls of a worker that have not ended, by what they wait for. A call counts once:
//   in_flight  requests sent, waiting for their reply (a retry's new attempt included)
//   retrying   calls whose earlier attempt failed (a 429, a 5xx, a timeout...): waiting out their
//              backoff or sent again
//   limited    waiting for a provider limit (max_in_flight, requests or tokens per minute)
//   oldest     how long the oldest request in flight has waited for its reply (0: none)
struct CallWaits {
  int64_t in_flight = 0;
  int64_t retrying = 0;
  int64_t limited = 0;
  absl::Duration oldest = absl::ZeroDuration();
  // Running units with no step or new call for longer than the worker's stall threshold (LeaseLoop),
  // and what one of them waits on (a worker's longest-stalled; summed over workers: the first's): "unit ID: no step for
  // 6m12s, waiting on generate by MODEL (6m10s)".
  int64_t stalled = 0;
  std::string stalled_unit{};

  CallWaits& operator+=(const CallWaits& other) {
    in_flight += other.in_flight;
    retrying += other.retrying;
    limited += other.limited;
    oldest = std::max(oldest, other.oldest);
    stalled += other.stalled;
    if (stalled_unit.empty()) stalled_unit = other.stalled_unit;
    return *this;
  }
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COMMON_CALL_COST_H_
