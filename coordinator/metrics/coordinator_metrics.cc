#include "coordinator/metrics/coordinator_metrics.h"

#include "common/metrics/scrape_families.h"

namespace noveltygrid {

std::vector<prometheus::MetricFamily> CoordinatorFamilies(const CoordinatorMetricsContext& context,
                                                          const SchedulerStatus& status, const CommitCounts& commits) {
  ScrapeFamilies families;
  families.Gauge("noveltygrid_sweep_info", "The sweep this coordinator serves (its config's name).")
      .Add({{"sweep", context.sweep}}, 1);
  auto pending = families.Gauge("noveltygrid_units_pending", "Units waiting for a worker.");
  auto leased = families.Gauge("noveltygrid_units_leased", "Units leased to a worker now.");
  auto committed = families.Gauge("noveltygrid_units_committed", "Units whose result is committed (failed ones too).");
  auto failed = families.Gauge("noveltygrid_units_failed", "Committed units that ended in an error.");
  for (const CellCounts& cell : status.cells) {
    const MetricLabels labels{{"model", cell.model}, {"benchmark", cell.benchmark}};
    pending.Add(labels, static_cast<double>(cell.pending));
    leased.Add(labels, static_cast<double>(cell.leased));
    committed.Add(labels, static_cast<double>(cell.done));
    failed.Add(labels, static_cast<double>(cell.failed));
  }
  families
      .Counter("noveltygrid_leases_expired_total",
               "Leases taken back because their deadline passed or their worker fell silent.")
      .Add({}, static_cast<double>(status.leases_expired));
  families.Counter("noveltygrid_commits_accepted_total", "Results persisted by this coordinator.")
      .Add({}, static_cast<double>(commits.accepted));
  families.Counter("noveltygrid_commits_duplicate_total", "Commits of units already committed (acknowledged).")
      .Add({}, static_cast<double>(commits.duplicates));
  families
      .Counter("noveltygrid_commits_refused_total",
               "Commits refused: stale_token, not the unit's current lease (it was taken back and given "
               "again: fencing); unknown_unit, no such unit in the plan.")
      .Add({{"reason", "stale_token"}}, static_cast<double>(commits.stale_tokens))
      .Add({{"reason", "unknown_unit"}}, static_cast<double>(commits.unknown_units));
  families.Counter("noveltygrid_commit_errors_total", "Results that could not be persisted (the worker retries).")
      .Add({}, static_cast<double>(commits.unpersisted));
  int64_t loops = 0, capacity = 0;
  for (const WorkerCounts& worker : status.workers) {
    loops += worker.info.loops_in_flight;
    capacity += worker.info.capacity;
  }
  families.Gauge("noveltygrid_workers", "Workers heard from within the worker timeout.")
      .Add({}, static_cast<double>(status.workers.size()));
  families.Gauge("noveltygrid_cluster_loops_in_flight", "Units running on all workers, as their heartbeats say.")
      .Add({}, static_cast<double>(loops));
  families.Gauge("noveltygrid_cluster_capacity", "Units all workers run at once (their --concurrency).")
      .Add({}, static_cast<double>(capacity));
  AddCallFamilies(families, "noveltygrid_committed", "of committed units", commits.calls, context.providers,
                  context.prices.empty() ? nullptr : &context.prices);
  AddRedisErrors(families);
  return families.Take();
}

}  // namespace noveltygrid
