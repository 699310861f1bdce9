#include "worker/metrics/worker_metrics.h"

#include <utility>

#include "common/metrics/scrape_families.h"

namespace noveltygrid {
namespace {

// Seconds: from a fast local server's milliseconds to a reasoning model's minutes.
const std::vector<double>& LatencyBuckets() {
  static const std::vector<double> buckets = {0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,   2.5,
                                              5,    10,    20,   30,  60,   120, 300, 600};
  return buckets;
}

}  // namespace

WorkerMetrics::WorkerMetrics()
    : latency_(prometheus::BuildHistogram()
                   .Name("noveltygrid_request_duration_seconds")
                   .Help("Time from sending an HTTP request to a provider to its reply or failure, per attempt.")
                   .Register(*registry_)),
      scraped_(std::make_shared<CallbackCollectable>([this] { return Collect(); })) {}

void WorkerMetrics::SetSources(Sources sources) {
  absl::MutexLock lock(&mu_);
  sources_ = std::move(sources);
}

void WorkerMetrics::Leased(const v1::Lease& lease) {
  absl::MutexLock lock(&mu_);
  for (const auto* endpoints : {&lease.aidan().endpoints(), &lease.novelty().endpoints()}) {
    for (const v1::ModelEndpoint& endpoint : *endpoints) providers_[endpoint.name()] = endpoint.provider();
  }
}

void WorkerMetrics::Called(const CallStats& delta) {
  absl::MutexLock lock(&mu_);
  MergeCallStats(delta, calls_);
}

void WorkerMetrics::ObserveRequest(const std::string& provider, absl::Duration latency, bool ok) {
  prometheus::Histogram* histogram;
  {
    absl::MutexLock lock(&latency_mu_);
    prometheus::Histogram*& made = latency_of_.try_emplace(provider).first->second[ok ? 0 : 1];
    if (made == nullptr)
      made = &latency_.Add({{"provider", provider}, {"outcome", ok ? "ok" : "failed"}}, LatencyBuckets());
    histogram = made;
  }
  histogram->Observe(absl::ToDoubleSeconds(latency));
}

std::vector<prometheus::MetricFamily> WorkerMetrics::Collect() const {
  Sources sources;
  CallStats calls;
  std::map<std::string, std::string> providers;
  {
    absl::MutexLock lock(&mu_);
    sources = sources_;
    calls = calls_;
    providers = providers_;
  }
  // The sources are read without mu_: they take their own locks.
  ScrapeFamilies families;
  if (sources.loop) {
    const LeaseLoop::Stats stats = sources.loop();
    families.Gauge("noveltygrid_loops_in_flight", "Units running on this worker.")
        .Add({}, static_cast<double>(stats.running));
    families.Gauge("noveltygrid_loops_capacity", "Units this worker runs at once (--concurrency).")
        .Add({}, sources.capacity);
    families.Gauge("noveltygrid_draining", "1 while this worker drains (SIGTERM): it leases nothing more.")
        .Add({}, stats.draining ? 1 : 0);
    families.Counter("noveltygrid_worker_units_started_total", "Units this worker started.")
        .Add({}, static_cast<double>(stats.units_started));
    families.Counter("noveltygrid_worker_units_committed_total", "Results of this worker the coordinator took.")
        .Add({}, static_cast<double>(stats.units_committed));
    families.Counter("noveltygrid_worker_units_released_total", "Units this worker handed back unfinished.")
        .Add({}, static_cast<double>(stats.units_released));
  }
  if (sources.waits) {
    const CallWaits waits = sources.waits();
    families
        .Gauge("noveltygrid_calls_waiting", "This worker's provider calls that have not ended, by what they wait for.")
        .Add({{"state", "in_flight"}}, static_cast<double>(waits.in_flight))
        .Add({{"state", "retrying"}}, static_cast<double>(waits.retrying))
        .Add({{"state", "limited"}}, static_cast<double>(waits.limited));
  }
  AddCallFamilies(families, "noveltygrid_model", "made by this worker's units", calls, providers, nullptr);
  AddRedisErrors(families);
  std::vector<prometheus::MetricFamily> out = families.Take();
  for (prometheus::MetricFamily& family : registry_->Collect()) out.push_back(std::move(family));
  return out;
}

std::vector<std::shared_ptr<prometheus::Collectable>> WorkerMetrics::Collectables() const { return {scraped_}; }

}  // namespace noveltygrid
