#include "common/metrics/scrape_families.h"

#include <optional>

#include "common/call_cost.h"
#include "common/storage/redis_store.h"

namespace noveltygrid {

ScrapeFamilies::Family& ScrapeFamilies::Family::Add(const MetricLabels& labels, double value) {
  prometheus::MetricFamily& family = owner_->families_[index_];
  prometheus::ClientMetric& metric = family.metric.emplace_back();
  for (const auto& [name, label] : labels) metric.label.push_back({name, label});
  if (family.type == prometheus::MetricType::Counter) {
    metric.counter.value = value;
  } else {
    metric.gauge.value = value;
  }
  return *this;
}

ScrapeFamilies::Family ScrapeFamilies::Gauge(std::string name, std::string help) {
  return Add(std::move(name), std::move(help), prometheus::MetricType::Gauge);
}

ScrapeFamilies::Family ScrapeFamilies::Counter(std::string name, std::string help) {
  return Add(std::move(name), std::move(help), prometheus::MetricType::Counter);
}

ScrapeFamilies::Family ScrapeFamilies::Add(std::string name, std::string help, prometheus::MetricType type) {
  prometheus::MetricFamily& family = families_.emplace_back();
  family.name = std::move(name);
  family.help = std::move(help);
  family.type = type;
  return Family(this, families_.size() - 1);
}

void AddCallFamilies(ScrapeFamilies& families, const std::string& prefix, const std::string& what,
                     const CallStats& calls, const std::map<std::string, std::string>& provider_of,
                     const std::map<std::string, ModelPrice>* prices) {
  auto requests = families.Counter(prefix + "_requests_total", "Model calls " + what + ".");
  auto hits = families.Counter(prefix + "_cache_hits_total",
                               "Calls answered from a cache " + what + " (role embed: the embedding cache).");
  auto retries = families.Counter(prefix + "_retries_total", "Retries of model calls " + what + ".");
  auto errors = families.Counter(prefix + "_errors_total", "Model calls that failed " + what + ".");
  auto tokens = families.Counter(prefix + "_tokens_total", "Tokens of model calls " + what + ".");
  auto reasoning = families.Counter(prefix + "_reasoning_tokens_total",
                                    "Of the completion tokens " + what + ", those the model spent reasoning.");
  std::optional<ScrapeFamilies::Family> cost;
  if (prices != nullptr) cost = families.Counter(prefix + "_cost_usd_total", "US dollars " + what + " at prices:.");
  for (const auto& [key, counters] : calls) {
    const std::string model = CallKeyModel(key);
    const std::string role = key.substr(0, key.find(':'));
    const auto provider = provider_of.find(model);
    const MetricLabels labels{{"provider", provider == provider_of.end() ? "in-process" : provider->second},
                              {"role", role},
                              {"model", model}};
    requests.Add(labels, static_cast<double>(counters.requests));
    hits.Add(labels, static_cast<double>(counters.cache_hits));
    retries.Add(labels, static_cast<double>(counters.retries));
    errors.Add(labels, static_cast<double>(counters.errors));
    MetricLabels prompt = labels, completion = labels;
    prompt.emplace_back("kind", "prompt");
    completion.emplace_back("kind", "completion");
    tokens.Add(prompt, static_cast<double>(counters.prompt_tokens));
    tokens.Add(completion, static_cast<double>(counters.completion_tokens));
    reasoning.Add(labels, static_cast<double>(counters.reasoning_tokens));
    if (cost) {
      const std::optional<double> usd = CallCostUsd(key, static_cast<double>(counters.prompt_tokens),
                                                    static_cast<double>(counters.completion_tokens), *prices);
      if (usd) cost->Add(labels, *usd);
    }
  }
}

void AddRedisErrors(ScrapeFamilies& families) {
  families.Counter("noveltygrid_redis_errors_total", "Redis attempts of this process that failed (each retry counted).")
      .Add({}, static_cast<double>(RedisErrorCount()));
}

std::map<std::string, std::string> ProvidersOf(const std::map<std::string, ModelEndpoint>& endpoints) {
  std::map<std::string, std::string> providers;
  for (const auto& [name, endpoint] : endpoints) providers[name] = endpoint.provider.name;
  return providers;
}

}  // namespace noveltygrid
