#include "coordinator/lease/budget_policy.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/call_cost.h"

namespace noveltygrid {

BudgetPolicy::BudgetPolicy(const SweepConfig& config)
    : budget_(config.budget_usd), model_budgets_(config.model_budgets_usd), prices_(config.prices), model_(config) {}

void BudgetPolicy::Committed(const UnitResult& result, const CallStats& calls) {
  const CallCosts cost = PriceCalls(calls, prices_);
  absl::MutexLock lock(&mu_);
  model_.Learn(result, calls);
  spent_ += cost.total;
  for (const auto& [model, dollars] : cost.by_model) spent_by_model_[model] += dollars;
}

std::map<std::string, double> BudgetPolicy::EstimateLocked(const UnitSpec& unit) {
  return model_.Estimate(unit).dollars_by_model;
}

bool BudgetPolicy::Allows(const UnitSpec& unit) {
  absl::MutexLock lock(&mu_);
  const std::map<std::string, double> next = EstimateLocked(unit);
  double total = spent_;
  std::map<std::string, double> by_model = spent_by_model_;
  const auto add = [&](const std::map<std::string, double>& dollars) {
    for (const auto& [model, d] : dollars) {
      total += d;
      by_model[model] += d;
    }
  };
  for (const auto& [id, dollars] : in_flight_) add(dollars);
  add(next);
  if (budget_ > 0 && total > budget_) return false;
  for (const auto& [model, budget] : model_budgets_) {
    if (by_model[model] > budget) return false;
  }
  return true;
}

void BudgetPolicy::Leased(const UnitSpec& unit) {
  absl::MutexLock lock(&mu_);
  in_flight_[unit.id] = EstimateLocked(unit);
}

void BudgetPolicy::Ended(const UnitSpec& unit) {
  absl::MutexLock lock(&mu_);
  in_flight_.erase(unit.id);
}

double BudgetPolicy::spent() const {
  absl::MutexLock lock(&mu_);
  return spent_;
}

std::map<std::string, double> BudgetPolicy::spent_by_model() const {
  absl::MutexLock lock(&mu_);
  return spent_by_model_;
}

std::string BudgetPolicy::Describe() const {
  absl::MutexLock lock(&mu_);
  std::string out = absl::StrFormat("spent $%.2f", spent_);
  if (budget_ > 0) absl::StrAppend(&out, absl::StrFormat(" of the $%.2f budget_usd", budget_));
  std::string models;
  for (const auto& [model, budget] : model_budgets_) {
    auto it = spent_by_model_.find(model);
    absl::StrAppend(
        &models, models.empty() ? "" : ", ",
        absl::StrFormat("%s $%.2f of $%.2f", model, it == spent_by_model_.end() ? 0.0 : it->second, budget));
  }
  if (!models.empty()) absl::StrAppend(&out, " (", models, ")");
  return out;
}

}  // namespace noveltygrid
