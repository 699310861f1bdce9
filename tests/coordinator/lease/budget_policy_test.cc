// The budget as the scheduler's lease policy, on a fake clock: leases stop when spent + in flight +
// the next unit's estimate would pass the budget, an expired lease gives its estimate back, per-model
// budgets stop one model only, and Blocked() says when nothing fits any more.
#include "coordinator/lease/budget_policy.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/clock.h"
#include "coordinator/lease/unit_scheduler.h"
#include "gtest/gtest.h"

namespace noveltygrid {
namespace {

// AidanBench units of models a and b; priced so that a unit's default estimate (no committed units:
// kDefaultIterations generate calls) is known: only completion tokens cost, $1 per 1,500 tokens.
SweepConfig Config(double budget) {
  SweepConfig config;
  config.models = {{"a"}, {"b"}};
  config.aidanbench = AidanBenchConfig{};
  config.aidanbench->expected_iterations[""] = 10;  // 10 answers of 150 tokens: 1,500 tokens = $1
  config.prices["a"] = ModelPrice{0, 1e6 / 1500};
  config.prices["b"] = ModelPrice{0, 1e6 / 1500};
  config.budget_usd = budget;
  return config;
}

std::vector<UnitSpec> Units(int per_model) {
  std::vector<UnitSpec> units;
  for (const char* model : {"a", "b"}) {
    for (int i = 0; i < per_model; ++i) {
      UnitSpec u;
      u.id = absl::StrCat(model, i);
      u.index = static_cast<int>(units.size());
      u.benchmark = kAidanBench;
      u.model = model;
      units.push_back(u);
    }
  }
  return units;
}

// A committed unit of `dollars` (completion tokens at $1 per 1,500) and 10 answers.
void Commit(BudgetPolicy& policy, UnitScheduler& scheduler, const UnitSpec& unit, double dollars) {
  UnitResult result;
  result.unit = unit;
  result.answers.resize(10);
  result.stop_reason = kStopIncoherent;
  CallStats calls;
  calls["generate:" + unit.model] = CallCounters{10, 0, 0, 0, 0, static_cast<int64_t>(dollars * 1500)};
  policy.Committed(result, calls);
  scheduler.MarkDone(unit.id);
}

struct Fixture {
  explicit Fixture(const SweepConfig& config, int per_model = 4) : policy(config) {
    SchedulerOptions options;
    options.policy = &policy;
    options.lease_ttl = absl::Seconds(30);
    scheduler = std::make_unique<UnitScheduler>(Units(per_model), std::vector<std::string>{"a", "b"}, options, &clock);
  }
  FakeClock clock;
  BudgetPolicy policy;
  std::unique_ptr<UnitScheduler> scheduler;
};

TEST(BudgetPolicyTest, LeasesStopWhenSpentPlusInFlightPlusTheNextUnitWouldPassTheBudget) {
  Fixture f(Config(3.5));
  const std::vector<LeaseGrant> grants = f.scheduler->Lease("w", 10);
  ASSERT_EQ(grants.size(), 3u);          // $1 each: a fourth would make $4 > $3.50
  EXPECT_FALSE(f.scheduler->Blocked());  // units are in flight
  Commit(f.policy, *f.scheduler, *grants[0].unit, 1.0);
  EXPECT_TRUE(f.scheduler->Lease("w", 10).empty());  // $1 spent + $2 in flight + $1 next
  EXPECT_FALSE(f.scheduler->Blocked());
  Commit(f.policy, *f.scheduler, *grants[1].unit, 1.0);
  Commit(f.policy, *f.scheduler, *grants[2].unit, 1.0);
  EXPECT_TRUE(f.scheduler->Lease("w", 10).empty());
  EXPECT_TRUE(f.scheduler->Blocked());  // nothing in flight, the next unit does not fit
  EXPECT_DOUBLE_EQ(f.policy.spent(), 3.0);
  EXPECT_DOUBLE_EQ(f.policy.spent_by_model().at("a"), 2.0);
}

TEST(BudgetPolicyTest, AnExpiredLeaseGivesItsEstimateBackAndBlockedEndsTheSweep) {
  Fixture f(Config(2.5));
  ASSERT_EQ(f.scheduler->Lease("w", 10).size(), 2u);
  EXPECT_TRUE(f.scheduler->Lease("w2", 10).empty());
  f.clock.Advance(absl::Seconds(31));  // the first worker's leases expire
  const std::vector<LeaseGrant> again = f.scheduler->Lease("w2", 10);
  ASSERT_EQ(again.size(), 2u);
  Commit(f.policy, *f.scheduler, *again[0].unit, 1.2);
  Commit(f.policy, *f.scheduler, *again[1].unit, 1.2);
  EXPECT_TRUE(f.scheduler->Lease("w2", 10).empty());
  EXPECT_TRUE(f.scheduler->Blocked());  // nothing in flight, nothing fits: $2.40 of $2.50 spent
  EXPECT_NE(f.policy.Describe().find("spent $2.40 of the $2.50 budget_usd"), std::string::npos) << f.policy.Describe();
}

TEST(BudgetPolicyTest, APerModelBudgetStopsThatModelOnly) {
  SweepConfig config = Config(0);
  config.model_budgets_usd["a"] = 1;
  Fixture f(config, 3);
  const std::vector<LeaseGrant> grants = f.scheduler->Lease("w", 10);
  int a = 0, b = 0;
  for (const LeaseGrant& g : grants) (g.unit->model == "a" ? a : b)++;
  EXPECT_EQ(a, 1);
  EXPECT_EQ(b, 3);
  EXPECT_FALSE(f.scheduler->Blocked());
}

TEST(BudgetPolicyTest, WithoutABudgetEverythingIsLeased) {
  Fixture f(Config(0));
  EXPECT_FALSE(BudgetPolicy::Wanted(Config(0)));
  EXPECT_EQ(f.scheduler->Lease("w", 100).size(), 8u);
}

}  // namespace
}  // namespace noveltygrid
