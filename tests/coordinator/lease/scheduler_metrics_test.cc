// What the coordinator's metrics read from the scheduler (SchedulerStatus::cells, leases_expired) and
// how CoordinatorFamilies turns it into Prometheus families.
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "coordinator/lease/unit_scheduler.h"
#include "coordinator/metrics/coordinator_metrics.h"
#include "gtest/gtest.h"

namespace noveltygrid {
namespace {

// Two models x two benchmarks, `per_cell` units each.
std::vector<UnitSpec> Units(int per_cell) {
  std::vector<UnitSpec> units;
  for (const std::string model : {"a", "b"}) {
    for (const std::string benchmark : {kAidanBench, kNoveltyBench}) {
      for (int i = 0; i < per_cell; ++i) {
        UnitSpec unit;
        unit.index = static_cast<int>(units.size());
        unit.id = absl::StrCat(model, "/", benchmark, "#", i);
        unit.benchmark = benchmark;
        unit.model = model;
        units.push_back(unit);
      }
    }
  }
  return units;
}

const CellCounts& Cell(const SchedulerStatus& status, const std::string& model, const std::string& benchmark) {
  for (const CellCounts& cell : status.cells) {
    if (cell.model == model && cell.benchmark == benchmark) return cell;
  }
  static const CellCounts none;
  ADD_FAILURE() << "no cell " << model << "/" << benchmark;
  return none;
}

// Every cell's counts add up to the per-model ones and to the totals, whatever happened.
void ExpectCellsAddUp(const SchedulerStatus& status) {
  int64_t pending = 0, leased = 0, done = 0;
  std::map<std::string, int64_t> model_done, model_failed;
  for (const CellCounts& cell : status.cells) {
    pending += cell.pending;
    leased += cell.leased;
    done += cell.done;
    model_done[cell.model] += cell.done;
    model_failed[cell.model] += cell.failed;
  }
  EXPECT_EQ(pending, status.pending);
  EXPECT_EQ(leased, status.leased);
  EXPECT_EQ(done, status.done);
  for (const ModelCounts& model : status.models) {
    EXPECT_EQ(model_done[model.model], model.done) << model.model;
    EXPECT_EQ(model_failed[model.model], model.failed) << model.model;
  }
}

TEST(SchedulerMetricsTest, CellsFollowEveryUnitThroughLeasesExpiriesAndCommits) {
  FakeClock clock;
  UnitScheduler scheduler(Units(3), {"b", "a"}, SchedulerOptions{.lease_ttl = absl::Seconds(10)}, &clock);
  SchedulerStatus status = scheduler.Status();
  ASSERT_EQ(status.cells.size(), 4u);
  // Config order of the models, then benchmark names.
  EXPECT_EQ(status.cells[0].model, "b");
  EXPECT_EQ(status.cells[0].benchmark, kAidanBench);
  EXPECT_EQ(status.cells[3].model, "a");
  EXPECT_EQ(status.cells[3].benchmark, kNoveltyBench);
  EXPECT_EQ(Cell(status, "a", kNoveltyBench).pending, 3);

  std::vector<LeaseGrant> grants = scheduler.Lease("w1", 5);
  ASSERT_EQ(grants.size(), 5u);
  status = scheduler.Status();
  ExpectCellsAddUp(status);
  EXPECT_EQ(status.leased, 5);

  // One commit, one failed commit, then the rest of the leases expire.
  ASSERT_EQ(scheduler.CheckCommit(grants[0].lease_id, grants[0].fencing_token, grants[0].unit->id),
            CommitCheck::kAccepted);
  scheduler.MarkDone(grants[0].unit->id);
  scheduler.MarkDone(grants[1].unit->id, /*failed=*/true);
  clock.Advance(absl::Seconds(11));
  EXPECT_EQ(scheduler.ExpireOverdue(), 3);
  status = scheduler.Status();
  ExpectCellsAddUp(status);
  EXPECT_EQ(status.leases_expired, 3);
  EXPECT_EQ(status.leased, 0);
  EXPECT_EQ(status.done, 2);
  const CellCounts& first = Cell(status, grants[1].unit->model, grants[1].unit->benchmark);
  EXPECT_EQ(first.failed, 1);

  // Handed back one by one (Release), or all at once by a worker leaving (Leave); restored leases.
  std::vector<LeaseGrant> more = scheduler.Lease("w2", 3);
  ASSERT_EQ(more.size(), 3u);
  scheduler.Release(more[0].lease_id, more[0].fencing_token);
  ExpectCellsAddUp(scheduler.Status());
  scheduler.Leave("w2");
  status = scheduler.Status();
  ExpectCellsAddUp(status);
  EXPECT_EQ(status.leased, 0);
  const std::vector<RestoredLease> restored = scheduler.Restore(
      {RestoredLease{.unit_id = more[1].unit->id, .lease_id = "old", .fencing_token = 99, .worker_id = "w3"}});
  ASSERT_EQ(restored.size(), 1u);
  status = scheduler.Status();
  ExpectCellsAddUp(status);
  EXPECT_EQ(Cell(status, more[1].unit->model, more[1].unit->benchmark).leased, 1);
  // w3's first heartbeat does not list it: back to pending.
  scheduler.Heartbeat("w3", {}, WorkerInfo{});
  status = scheduler.Status();
  ExpectCellsAddUp(status);
  EXPECT_EQ(status.leased, 0);

  // A pending unit marked done (as at start-up, from the journal) leaves its cell's pending count.
  const int64_t before = Cell(status, "a", kAidanBench).pending;
  scheduler.MarkDone("a/aidanbench#2");
  status = scheduler.Status();
  EXPECT_EQ(Cell(status, "a", kAidanBench).pending, before - 1);
  ExpectCellsAddUp(status);
}

// The value of the sample of `name` with exactly `labels`, or -1.
double Value(const std::vector<prometheus::MetricFamily>& families, const std::string& name,
             const std::vector<std::pair<std::string, std::string>>& labels) {
  for (const prometheus::MetricFamily& family : families) {
    if (family.name != name) continue;
    for (const prometheus::ClientMetric& metric : family.metric) {
      std::vector<std::pair<std::string, std::string>> have;
      for (const auto& label : metric.label) have.emplace_back(label.name, label.value);
      if (have != labels) continue;
      return family.type == prometheus::MetricType::Counter ? metric.counter.value : metric.gauge.value;
    }
  }
  return -1;
}

TEST(SchedulerMetricsTest, FamiliesCarryUnitsCommitsCallsAndDollars) {
  SchedulerStatus status;
  status.cells.push_back(CellCounts{
      .model = "openai:gpt-4o", .benchmark = "aidanbench", .pending = 4, .leased = 2, .done = 7, .failed = 1});
  status.leases_expired = 3;
  CommitCounts commits;
  commits.accepted = 6;
  commits.stale_tokens = 2;
  commits.calls["generate:openai:gpt-4o"] =
      CallCounters{.requests = 10, .retries = 1, .prompt_tokens = 1'000'000, .completion_tokens = 500'000};
  commits.calls["embed:lexical"] = CallCounters{.requests = 9, .cache_hits = 4};
  const CoordinatorMetricsContext context{
      .sweep = "s", .providers = {{"openai:gpt-4o", "openai"}}, .prices = {{"openai:gpt-4o", ModelPrice{2.5, 10}}}};
  const std::vector<prometheus::MetricFamily> families = CoordinatorFamilies(context, status, commits);

  const std::vector<std::pair<std::string, std::string>> cell = {{"model", "openai:gpt-4o"},
                                                                 {"benchmark", "aidanbench"}};
  EXPECT_EQ(Value(families, "noveltygrid_units_pending", cell), 4);
  EXPECT_EQ(Value(families, "noveltygrid_units_leased", cell), 2);
  EXPECT_EQ(Value(families, "noveltygrid_units_committed", cell), 7);
  EXPECT_EQ(Value(families, "noveltygrid_units_failed", cell), 1);
  EXPECT_EQ(Value(families, "noveltygrid_leases_expired_total", {}), 3);
  EXPECT_EQ(Value(families, "noveltygrid_commits_accepted_total", {}), 6);
  EXPECT_EQ(Value(families, "noveltygrid_commits_refused_total", {{"reason", "stale_token"}}), 2);
  EXPECT_EQ(Value(families, "noveltygrid_sweep_info", {{"sweep", "s"}}), 1);
  const std::vector<std::pair<std::string, std::string>> gpt = {
      {"provider", "openai"}, {"role", "generate"}, {"model", "openai:gpt-4o"}};
  EXPECT_EQ(Value(families, "noveltygrid_committed_requests_total", gpt), 10);
  EXPECT_EQ(Value(families, "noveltygrid_committed_retries_total", gpt), 1);
  // 1M prompt tokens at $2.50 and 0.5M completion tokens at $10 per million.
  EXPECT_DOUBLE_EQ(Value(families, "noveltygrid_committed_cost_usd_total", gpt), 7.5);
  auto with_kind = gpt;
  with_kind.emplace_back("kind", "completion");
  EXPECT_EQ(Value(families, "noveltygrid_committed_tokens_total", with_kind), 500'000);
  // A model no endpoint names is served in process; an unpriced one has no cost sample.
  const std::vector<std::pair<std::string, std::string>> lexical = {
      {"provider", "in-process"}, {"role", "embed"}, {"model", "lexical"}};
  EXPECT_EQ(Value(families, "noveltygrid_committed_cache_hits_total", lexical), 4);
  EXPECT_EQ(Value(families, "noveltygrid_committed_cost_usd_total", lexical), -1);
}

// The production overlay's autoscaler (KEDA) asks Prometheus for metrics by name: every
// noveltygrid_* name in its query is one the coordinator serves.
TEST(SchedulerMetricsTest, TheAutoscalerAsksForMetricsTheCoordinatorServes) {
  SchedulerStatus status;
  status.cells.push_back(CellCounts{.model = "m", .benchmark = "aidanbench"});
  std::set<std::string> served;
  for (const prometheus::MetricFamily& family : CoordinatorFamilies({}, status, {})) served.insert(family.name);
  std::ifstream in(NOVELTYGRID_SOURCE_DIR "/deploy/k8s/overlays/production/autoscaling.yaml");
  ASSERT_TRUE(in.good());
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::regex name("noveltygrid_[a-z_]+");
  std::set<std::string> asked;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), name); it != std::sregex_iterator(); ++it) {
    asked.insert(it->str());
  }
  EXPECT_TRUE(asked.count("noveltygrid_units_pending") == 1 && asked.count("noveltygrid_units_leased") == 1)
      << "the query counts pending and leased units";
  for (const std::string& metric : asked) EXPECT_TRUE(served.count(metric) == 1) << metric << " is not served";
}

}  // namespace
}  // namespace noveltygrid
