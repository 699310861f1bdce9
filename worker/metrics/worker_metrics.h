// WorkerMetrics: what a worker serves on `--metrics-listen` (README "Metrics"):
//   noveltygrid_loops_in_flight, noveltygrid_loops_capacity, noveltygrid_draining      (gauges)
//   noveltygrid_worker_units_{started,committed,released}_total                      (counters)
//   noveltygrid_calls_waiting{state="in_flight"|"retrying"|"limited"}                 (gauge)
//   noveltygrid_model_{requests,cache_hits,retries,errors,tokens}_total{provider,role,model}: the calls
//     of this worker's units as they count them for summary.json (told after every step and when a unit
//     ends); cache_hits with role="embed" are the embedding cache's hits
//   noveltygrid_request_duration_seconds{provider,outcome="ok"|"failed"}: every HTTP request to a provider
//     (histogram)
//   noveltygrid_redis_errors_total
// Calls are labelled with the provider the lease's endpoints name for their model ("in-process" for
// models served in the worker, such as the simulated family).
//
// The collectables hold `this`: the WorkerMetrics must outlive the MetricsServer serving them.
// Thread-safe. Fed by the LeaseLoop (UnitObserver) and the provider channels (ObserveRequest); the
// gauges are read from their sources at scrape time.
#ifndef NOVELTYGRID_WORKER_METRICS_WORKER_METRICS_H_
#define NOVELTYGRID_WORKER_METRICS_WORKER_METRICS_H_

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/call_cost.h"
#include "common/records.h"
#include "prometheus/collectable.h"
#include "prometheus/family.h"
#include "prometheus/histogram.h"
#include "prometheus/metric_family.h"
#include "prometheus/registry.h"
#include "worker/lease_loop.h"

namespace noveltygrid {

class WorkerMetrics : public UnitObserver {
 public:
  WorkerMetrics();

  // Where the gauges are read at scrape time (each optional; set before serving).
  struct Sources {
    std::function<LeaseLoop::Stats()> loop;
    int capacity = 0;
    std::function<CallWaits()> waits;
  };
  void SetSources(Sources sources);

  void Leased(const v1::Lease& lease) override;
  void Called(const CallStats& delta) override;
  // One HTTP request to `provider` ended after `latency` (RequestObserver).
  void ObserveRequest(const std::string& provider, absl::Duration latency, bool ok);

  // Every family, as a scrape sees them (also what tests read without HTTP).
  std::vector<prometheus::MetricFamily> Collect() const;
  // For MetricsServer::Start.
  std::vector<std::shared_ptr<prometheus::Collectable>> Collectables() const;

 private:
  std::shared_ptr<prometheus::Registry> registry_ = std::make_shared<prometheus::Registry>();
  prometheus::Family<prometheus::Histogram>& latency_;
  std::shared_ptr<prometheus::Collectable> scraped_;

  // Each provider's histograms (outcome ok, failed) once made: Family::Add builds and hashes a label map
  // at every call, which cost ~3 k instructions per request (bench/http_bench.sh under callgrind).
  absl::Mutex latency_mu_;
  absl::flat_hash_map<std::string, std::array<prometheus::Histogram*, 2>> latency_of_ ABSL_GUARDED_BY(latency_mu_);

  mutable absl::Mutex mu_;
  Sources sources_ ABSL_GUARDED_BY(mu_);
  CallStats calls_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::string> providers_ ABSL_GUARDED_BY(mu_);  // by model name
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_WORKER_METRICS_WORKER_METRICS_H_
