// BudgetPolicy: the sweep's budget (`budget_usd:`) and per-model budgets (`budgets: {MODEL: USD}`) as a
// lease policy. A unit is leased only while, for the sweep and for every budgeted model, the dollars
// spent (committed units' calls, priced by `prices:` as summary.json's run.cost_usd is) plus the
// estimates of the units in flight plus the unit's own estimate (coordinator/plan/estimate.h) stay
// within the budget. A model's dollars are those of calls to that model (run.cost_usd[MODEL]). Units
// in flight finish; the coordinator stops when nothing is leased and the policy refuses every pending
// unit (UnitScheduler::Blocked). The estimates learn from every commit. Thread-safe.
#ifndef NOVELTYGRID_COORDINATOR_LEASE_BUDGET_POLICY_H_
#define NOVELTYGRID_COORDINATOR_LEASE_BUDGET_POLICY_H_

#include <map>
#include <string>

#include "absl/synchronization/mutex.h"
#include "common/config.h"
#include "coordinator/lease/lease_policy.h"
#include "coordinator/plan/estimate.h"

namespace noveltygrid {

class BudgetPolicy : public LeasePolicy {
 public:
  // Budgets and prices from `config` (budget_usd 0 and no budgets: everything is allowed).
  explicit BudgetPolicy(const SweepConfig& config);
  static bool Wanted(const SweepConfig& config) { return config.budget_usd > 0 || !config.model_budgets_usd.empty(); }

  // A committed unit (also those committed before the coordinator started): its dollars are spent,
  // and the cost model learns from it.
  void Committed(const UnitResult& result, const CallStats& calls);

  bool Allows(const UnitSpec& unit) override;
  void Leased(const UnitSpec& unit) override;
  void Ended(const UnitSpec& unit) override;

  double spent() const;
  std::map<std::string, double> spent_by_model() const;
  // "spent $12.40 of the $10.00 budget_usd (sim:a $8.10 of $8.00)" -- what was spent against which budget.
  std::string Describe() const;

 private:
  std::map<std::string, double> EstimateLocked(const UnitSpec& unit) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const double budget_;
  const std::map<std::string, double> model_budgets_;
  const std::map<std::string, ModelPrice> prices_;

  mutable absl::Mutex mu_;
  CostModel model_ ABSL_GUARDED_BY(mu_);
  double spent_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<std::string, double> spent_by_model_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::map<std::string, double>> in_flight_ ABSL_GUARDED_BY(mu_);  // unit id -> by model
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_LEASE_BUDGET_POLICY_H_
