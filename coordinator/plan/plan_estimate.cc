#include "coordinator/plan/plan_estimate.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/call_cost.h"
#include "coordinator/report/text_table.h"

namespace noveltygrid {

namespace {

// 1234567 -> "1,234,567".
std::string Thousands(int64_t n) {
  std::string digits = absl::StrCat(n < 0 ? -n : n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

// 48213 -> "48k", 31.2e6 -> "31M".
std::string Short(double x) {
  if (x >= 1e9) return absl::StrFormat("%.3gG", x / 1e9);
  if (x >= 1e6) return absl::StrFormat("%.3gM", x / 1e6);
  if (x >= 1e3) return absl::StrFormat("%.3gk", x / 1e3);
  return absl::StrFormat("%.0f", x);
}

std::string Duration(double seconds) {
  if (seconds < 90) return absl::StrFormat("%.0f s", seconds);
  if (seconds < 5400) return absl::StrFormat("%.0f min", seconds / 60);
  return absl::StrFormat("%.1f h", seconds / 3600);
}

Json CallsJson(const CallsEstimate& c) {
  return Json{{"requests", std::llround(c.requests)},
              {"prompt_tokens", std::llround(c.prompt_tokens)},
              {"completion_tokens", std::llround(c.completion_tokens)}};
}

Json CostJson(const CostEstimate& e) {
  Json j = CallsJson(e.Total());
  j["cost_usd"] = e.dollars;
  return j;
}

// The wall time of `to_run`: its sequential seconds over the loops in flight, and each provider's
// limits over the calls of its models.
double WallSeconds(const SweepConfig& config, const CostModel& model, const CostEstimate& to_run) {
  double wall = to_run.seconds / std::max(1, config.concurrency);
  struct ProviderLoad {
    ProviderLimits limits;
    double requests = 0, tokens = 0, seconds = 0;
  };
  std::map<std::string, ProviderLoad> providers;
  for (const auto& [key, calls] : to_run.calls) {
    const ModelEndpoint* endpoint = FindEndpoint(config.endpoints, CallKeyModel(key));
    if (endpoint == nullptr) continue;
    ProviderLoad& load = providers[endpoint->provider.name];
    load.limits = endpoint->provider.limits;
    load.requests += calls.requests;
    load.tokens += calls.prompt_tokens + calls.completion_tokens;
    load.seconds += model.Seconds({{key, calls}});
  }
  for (const auto& [name, load] : providers) {
    if (load.limits.max_in_flight > 0) wall = std::max(wall, load.seconds / load.limits.max_in_flight);
    if (load.limits.requests_per_minute > 0) {
      wall = std::max(wall, 60 * load.requests / load.limits.requests_per_minute);
    }
    if (load.limits.tokens_per_minute > 0) {
      wall = std::max(wall, 60 * load.tokens / static_cast<double>(load.limits.tokens_per_minute));
    }
  }
  return wall;
}

}  // namespace

PlanEstimate EstimatePlan(const SweepConfig& config, const Plan& plan, const CostModel& model,
                          const std::set<std::string>& committed_ids) {
  PlanEstimate estimate;
  estimate.concurrency = config.concurrency;
  std::map<std::pair<std::string, std::string>, size_t> row_of;
  const auto row_for = [&](const std::string& benchmark, const std::string& model) -> PlanRow& {
    auto [it, added] = row_of.emplace(std::make_pair(benchmark, model), estimate.rows.size());
    if (added) {
      estimate.rows.emplace_back();
      estimate.rows.back().benchmark = benchmark;
      estimate.rows.back().model = model;
    }
    return estimate.rows[it->second];
  };
  for (const auto& benchmark : plan.benchmarks) {
    for (const std::string& m : plan.models) row_for(benchmark->name(), m);
  }
  for (const UnitSpec& unit : plan.units) {
    PlanRow& row = row_for(unit.benchmark, unit.model);
    ++row.units;
    if (committed_ids.count(unit.id) > 0) {
      ++row.committed;
    } else {
      row.to_run += model.Estimate(unit);
    }
  }
  std::erase_if(estimate.rows, [](const PlanRow& row) { return row.units == 0; });
  for (const PlanRow& row : estimate.rows) {
    estimate.units += row.units;
    estimate.committed += row.committed;
    estimate.to_run += row.to_run;
  }
  estimate.wall_seconds = WallSeconds(config, model, estimate.to_run);
  return estimate;
}

std::string PlanLine(const PlanEstimate& e) {
  const CallsEstimate total = e.to_run.Total();
  return absl::StrCat(
      "plan: ", Thousands(e.units - e.committed), " units to run (", Thousands(e.committed), " committed), ~",
      Short(total.requests), " requests, ~", Short(total.prompt_tokens + total.completion_tokens), " tokens, ~$",
      absl::StrFormat("%.2f", e.to_run.dollars), ", ~", Duration(e.wall_seconds), " at ", e.concurrency, " loops");
}

std::string PlanTable(const PlanEstimate& e) {
  std::vector<std::vector<std::string>> table = {
      {"benchmark / model", "units", "committed", "to run", "requests", "prompt tok", "completion tok", "USD"}};
  const auto add = [&table](const std::string& name, int64_t units, int64_t committed, const CostEstimate& cost) {
    const CallsEstimate c = cost.Total();
    table.push_back({name, Thousands(units), Thousands(committed), Thousands(units - committed),
                     Thousands(std::llround(c.requests)), Thousands(std::llround(c.prompt_tokens)),
                     Thousands(std::llround(c.completion_tokens)), absl::StrFormat("%.2f", cost.dollars)});
  };
  for (const PlanRow& row : e.rows)
    add(absl::StrCat(row.benchmark, " ", row.model), row.units, row.committed, row.to_run);
  add("total", e.units, e.committed, e.to_run);
  return absl::StrCat(RenderTable(table), "\nestimated wall time for the units to run: ~", Duration(e.wall_seconds),
                      " at ", e.concurrency, " loops in flight\n");
}

Json PlanJson(const PlanEstimate& e) {
  Json rows = Json::array();
  for (const PlanRow& row : e.rows) {
    rows.push_back(Json{{"benchmark", row.benchmark},
                        {"model", row.model},
                        {"units", row.units},
                        {"committed", row.committed},
                        {"to_run", row.units - row.committed},
                        {"estimate", CostJson(row.to_run)}});
  }
  Json total = CostJson(e.to_run);
  total["wall_seconds"] = e.wall_seconds;
  return Json{{"rows", std::move(rows)},      {"units", e.units},
              {"committed", e.committed},     {"to_run", e.units - e.committed},
              {"concurrency", e.concurrency}, {"estimate", std::move(total)}};
}

}  // namespace noveltygrid
