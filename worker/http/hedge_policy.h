// HedgePolicy: how long a provider request may go without a reply before the channel sends a
// duplicate of it (a "hedge"; the first successful reply wins), from the provider config's
// `hedge_after_ms` (a fixed wait) and `hedge_after: pNN` (adaptive: the observed latency percentile).
// When neither has replied after one more wait (Delay again, from when the duplicate was sent), the
// channel sends another, up to kMaxDuplicates per attempt: a duplicate that hangs too (2% of 2% with
// serve-sim's timeout fault) then costs one more wait, not the provider's whole timeout.
//
//   hedge_after_ms: 400            hedge every request still unanswered after 400 ms
//   hedge_after: p95               hedge after 1.5 x the p95 of the latencies of this provider's last 1,000
//                                  successful requests to the same URL (chat and embeddings differ);
//                                  no hedging until 50 have been seen
//   both                           the adaptive wait, never shorter than hedge_after_ms, which also
//                                  serves until the samples are there
//
// Why 1.5 x: a provider whose latency barely varies has its p95 at its median, and hedging there would
// duplicate half its requests; the margin keeps the duplicates to the real tail (a hung request).
//
// Thread-safe: Observe and Delay from any thread.
#ifndef NOVELTYGRID_WORKER_HTTP_HEDGE_POLICY_H_
#define NOVELTYGRID_WORKER_HTTP_HEDGE_POLICY_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/provider_config.h"

namespace noveltygrid {

class HedgePolicy {
 public:
  static constexpr int kWindow = 1000;    // latencies remembered per URL
  static constexpr int kMinSamples = 50;  // before the adaptive wait applies
  static constexpr int kRecompute = 25;   // new samples between two percentile computations
  static constexpr double kMargin = 1.5;  // the adaptive wait is this x the percentile
  // The adaptive wait never goes below this: a provider answering in a millisecond or two would
  // otherwise see nearly every request duplicated.
  static constexpr absl::Duration kMinAdaptiveWait = absl::Milliseconds(10);
  static constexpr int kMaxDuplicates = 2;  // duplicates per attempt (the original request aside)

  explicit HedgePolicy(const ProviderConfig& config);

  // Whether requests may be hedged at all (the config asked for it).
  bool enabled() const { return floor_ > absl::ZeroDuration() || percentile_ > 0; }
  // The wait before hedging a request to `url` sent now; nullopt: do not hedge it.
  std::optional<absl::Duration> Delay(const std::string& url);
  // A successful request to `url` took `latency`. Cheap unless the policy is adaptive.
  void Observe(const std::string& url, absl::Duration latency);

 private:
  struct Window {
    std::vector<int64_t> micros;  // ring of the last kWindow latencies
    size_t next = 0;
    int fresh = 0;                       // samples since `wait` was computed
    std::optional<absl::Duration> wait;  // kMargin x the percentile, once kMinSamples are in
  };

  // Constant after construction.
  const absl::Duration floor_;  // hedge_after_ms; zero: none
  const double percentile_;     // hedge_after: pNN; 0: not adaptive

  absl::Mutex mu_;
  std::map<std::string, Window> windows_ ABSL_GUARDED_BY(mu_);
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_WORKER_HTTP_HEDGE_POLICY_H_
