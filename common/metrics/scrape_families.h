// ScrapeFamilies: Prometheus metric families built when /metrics is read, from whatever the process
// knows at that moment (unit counts, calls so far, calls waiting) -- so that the code that keeps the
// state never calls into a metrics library. Each source is read once per scrape (separate sources are
// read one after the other, so two of them may be a commit apart).
//
//   ScrapeFamilies families;
//   families.Gauge("noveltygrid_units_pending", "Units waiting for a worker.")
//       .Add({{"model", "sim:explorer"}, {"benchmark", "aidanbench"}}, 12);
//   return families.Take();
//
// CallbackCollectable registers such a function with a MetricsServer (or any prometheus::Registry user).
#ifndef NOVELTYGRID_COMMON_METRICS_SCRAPE_FAMILIES_H_
#define NOVELTYGRID_COMMON_METRICS_SCRAPE_FAMILIES_H_

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "common/provider_config.h"
#include "common/records.h"
#include "prometheus/collectable.h"
#include "prometheus/metric_family.h"

namespace noveltygrid {

using MetricLabels = std::vector<std::pair<std::string, std::string>>;

class ScrapeFamilies {
 public:
  // A handle that stays valid while more families are added (it holds an index, not a pointer).
  class Family {
   public:
    Family(ScrapeFamilies* owner, size_t index) : owner_(owner), index_(index) {}
    Family& Add(const MetricLabels& labels, double value);

   private:
    ScrapeFamilies* owner_;
    size_t index_;
  };

  // A family of gauges (values that go up and down) or counters (only up, "_total" names).
  Family Gauge(std::string name, std::string help);
  Family Counter(std::string name, std::string help);

  std::vector<prometheus::MetricFamily> Take() { return std::move(families_); }

 private:
  Family Add(std::string name, std::string help, prometheus::MetricType type);
  std::vector<prometheus::MetricFamily> families_;
};

// The families of `calls` ("ROLE:MODEL" keys, common/records.h) under PREFIX: PREFIX_requests_total,
// _cache_hits_total, _retries_total, _errors_total and _tokens_total{kind="prompt"|"completion"}, each
// labelled provider, role and model; with `prices` also PREFIX_cost_usd_total for the priced models.
// `provider_of` names each model's provider; a model it lacks is served in process ("in-process").
void AddCallFamilies(ScrapeFamilies& families, const std::string& prefix, const std::string& what,
                     const CallStats& calls, const std::map<std::string, std::string>& provider_of,
                     const std::map<std::string, ModelPrice>* prices);

// noveltygrid_redis_errors_total: this process's failed Redis attempts (RedisErrorCount).
void AddRedisErrors(ScrapeFamilies& families);

// The provider of each model of `endpoints` (ModelEndpoint::provider.name), by model name.
std::map<std::string, std::string> ProvidersOf(const std::map<std::string, ModelEndpoint>& endpoints);

class CallbackCollectable : public prometheus::Collectable {
 public:
  explicit CallbackCollectable(std::function<std::vector<prometheus::MetricFamily>()> collect)
      : collect_(std::move(collect)) {}
  std::vector<prometheus::MetricFamily> Collect() const override { return collect_(); }

 private:
  const std::function<std::vector<prometheus::MetricFamily>()> collect_;
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COMMON_METRICS_SCRAPE_FAMILIES_H_
