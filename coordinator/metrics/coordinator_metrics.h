// What the coordinator serves on `--metrics-listen` (README "Metrics"), read at scrape time from the
// scheduler and the commits:
//   noveltygrid_sweep_info{sweep}                                                     (gauge, 1)
//   noveltygrid_units_{pending,leased,committed,failed}{model,benchmark}              (gauges; committed
//     counts every unit whose result is in, failed the committed ones that ended in an error)
//   noveltygrid_leases_expired_total                  leases taken back at their deadline or their worker's silence
//   noveltygrid_commits_accepted_total, noveltygrid_commits_duplicate_total,
//   noveltygrid_commits_refused_total{reason="stale_token"|"unknown_unit"},
//   noveltygrid_commit_errors_total                   results that could not be persisted (retried)
//   noveltygrid_workers, noveltygrid_cluster_loops_in_flight, noveltygrid_cluster_capacity   (gauges, from heartbeats)
//   noveltygrid_committed_{requests,cache_hits,retries,errors,tokens,cost_usd}_total{provider,role,model}:
//     the calls of the committed units, those committed before this coordinator started included --
//     summary.json's "calls" and cost; cost only with prices:
//   noveltygrid_redis_errors_total
// and, timed as calls are answered rather than read at scrape time, noveltygrid_rpc_duration_seconds{method},
// noveltygrid_commit_group_seconds and noveltygrid_commit_store_seconds (rpc_timing.h).
#ifndef NOVELTYGRID_COORDINATOR_METRICS_COORDINATOR_METRICS_H_
#define NOVELTYGRID_COORDINATOR_METRICS_COORDINATOR_METRICS_H_

#include <map>
#include <string>
#include <vector>

#include "common/provider_config.h"
#include "coordinator/lease/unit_scheduler.h"
#include "coordinator/service/coordinator_core.h"
#include "prometheus/metric_family.h"

namespace noveltygrid {

struct CoordinatorMetricsContext {
  std::string sweep;
  std::map<std::string, std::string> providers;  // by model name (ProvidersOf)
  std::map<std::string, ModelPrice> prices;      // the config's prices: (may be empty)
};

// The families of one scrape.
std::vector<prometheus::MetricFamily> CoordinatorFamilies(const CoordinatorMetricsContext& context,
                                                          const SchedulerStatus& status, const CommitCounts& commits);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_METRICS_COORDINATOR_METRICS_H_
