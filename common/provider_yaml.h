// The config's model-access sections: `providers:` (how each provider is reached), model references
// in `models:`, `judge:` and `embedder:` (a name, or a map naming the provider and the provider's model),
// and `prices:` (USD per million tokens). Internal to the config parser; errors use its wording
// "<file>: <key>: <problem>; expected <...>".
//
// How a model name is routed:
//   sim:NAME, lexical, lexical-D   the simulated family, computed in-process -- unless a provider named
//                                  `sim` is declared, which sends them to serve-sim over HTTP instead
//                                  (same results: that is what serve-sim is for)
//   PROVIDER:MODEL                 MODEL at PROVIDER, declared under providers: or a known name
//                                  (openai, openrouter, vllm, llamacpp, ollama)
//   {name: N, provider: P, model: M, extra_body: {...}}   explicit; results show N
//   PROVIDER:MODEL:EFFORT          EFFORT (low, medium, high) is the model's reasoning effort, as the
//                                  AidanBench reference reads it; the provider gets MODEL (results keep
//                                  the whole name); the same as reasoning_effort: EFFORT in a map
#ifndef NOVELTYGRID_COMMON_PROVIDER_YAML_H_
#define NOVELTYGRID_COMMON_PROVIDER_YAML_H_

#include <map>
#include <optional>
#include <set>
#include <string>

#include "absl/status/statusor.h"
#include "common/provider_config.h"
#include "common/yaml_fields.h"
#include "yaml-cpp/yaml.h"

namespace noveltygrid {

// A model as the config names it, before routing.
struct ModelRef {
  std::string key;  // where it was written, for messages: "models[2]", "judge"
  std::string name;
  std::string provider;           // empty unless given explicitly
  std::string remote_model;       // empty unless given explicitly
  std::string extra_body_json;    // empty unless given
  int dimensions = 0;             // embedders: requested vector size, 0 = the model's own
  std::string reasoning_effort;   // low | medium | high, empty unless given
  bool omit_temperature = false;  // `temperature: omit`
};

// A string, or a map {name, provider, model, extra_body, dimensions, reasoning_effort, temperature: omit}.
absl::StatusOr<ModelRef> ParseModelRef(const YamlFields& fields, const YAML::Node& node, const std::string& key);

// The `providers:` map (null node: none declared).
absl::StatusOr<std::map<std::string, ProviderConfig>> ParseProviders(const YamlFields& fields, const YAML::Node* node);

// Where `ref` is served: nullopt for an in-process model, else its HTTP endpoint.
absl::StatusOr<std::optional<ModelEndpoint>> RouteModel(const YamlFields& fields, const ModelRef& ref,
                                                        const std::map<std::string, ProviderConfig>& providers);

// The `prices:` map; every key must be one of `models` (the sweep's model names).
absl::StatusOr<std::map<std::string, ModelPrice>> ParsePrices(const YamlFields& fields, const YAML::Node& node,
                                                              const std::set<std::string>& models);

// True for the names of the simulated family and the lexical embedder.
bool IsBuiltinModelName(const std::string& name);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COMMON_PROVIDER_YAML_H_
