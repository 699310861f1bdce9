#include "common/call_cost.h"

#include <algorithm>

namespace noveltygrid {

std::string CallKeyModel(const std::string& key) {
  const size_t colon = key.find(':');  // "ROLE:MODEL"
  return colon == std::string::npos ? "" : key.substr(colon + 1);
}

std::optional<double> CallCostUsd(const std::string& key, double prompt_tokens, double completion_tokens,
                                  const std::map<std::string, ModelPrice>& prices) {
  auto price = prices.find(CallKeyModel(key));
  if (price == prices.end()) return std::nullopt;
  return (prompt_tokens * price->second.prompt_per_million + completion_tokens * price->second.completion_per_million) /
         1e6;
}

CallCosts PriceCalls(const CallStats& calls, const std::map<std::string, ModelPrice>& prices) {
  CallCosts costs;
  for (const auto& [key, counters] : calls) {
    const std::optional<double> dollars = CallCostUsd(key, static_cast<double>(counters.prompt_tokens),
                                                      static_cast<double>(counters.completion_tokens), prices);
    if (!dollars.has_value()) continue;
    const std::string model = CallKeyModel(key);
    costs.by_key[key] = *dollars;
    auto same = std::find_if(costs.by_model.begin(), costs.by_model.end(),
                             [&model](const auto& entry) { return entry.first == model; });
    if (same == costs.by_model.end()) {
      costs.by_model.emplace_back(model, *dollars);
    } else {
      same->second += *dollars;
    }
    costs.total += *dollars;
  }
  return costs;
}

}  // namespace noveltygrid
