// How to reach a model provider over HTTP: what the config's `providers:` section describes and what
// a lease carries to workers (never the key itself -- only where the worker finds it).
//
//   providers:
//     openai:
//       base_url: https://api.openai.com/v1
//       api_key_env: OPENAI_API_KEY        # or api_key_file: /var/run/secrets/openai
//       max_in_flight: 64                  # 0 = unlimited (all three limits)
//       requests_per_minute: 500
//       tokens_per_minute: 200000
//       timeout_s: 120
//       max_retries: 6
//       embed_batch: 64                    # embedding inputs coalesced into one request
//       embed_wait_ms: 0                   # 0: no timer (a batch is what the worker has at hand)
//       extra_body: {top_p: 0.95}          # merged into every chat request body
//       max_tokens_field: max_tokens       # or max_completion_tokens (default for openai)
//       embed_encoding: base64             # or float
//
//       api: anthropic                     # the Messages API (default openai: chat completions)
//       prompt_cache: true                 # anthropic: cache_control on the prompts' stable prefix
//       learn_limits: false                # default true: unset limits learned from rate-limit headers
//       hedge_after_ms: 400                # a request unanswered after 400 ms gets one duplicate; default off
//       hedge_after: p95                   # or adaptive: after 1.5 x the observed p95 (worker/http/hedge_policy.h)
//
// Known names come with defaults: openai, openrouter, anthropic (keys from OPENAI_API_KEY /
// OPENROUTER_API_KEY / ANTHROPIC_API_KEY), vllm, llamacpp, ollama (local base URLs, no key).
#ifndef NOVELTYGRID_COMMON_PROVIDER_CONFIG_H_
#define NOVELTYGRID_COMMON_PROVIDER_CONFIG_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "absl/time/time.h"

namespace noveltygrid {

struct ProviderLimits {
  int max_in_flight = 0;
  int requests_per_minute = 0;
  int64_t tokens_per_minute = 0;
  bool unlimited() const { return max_in_flight == 0 && requests_per_minute == 0 && tokens_per_minute == 0; }
};

struct ProviderConfig {
  std::string name;          // "openai"
  std::string base_url;      // without the trailing slash, e.g. "http://127.0.0.1:8000/v1"
  std::string api_key_env;   // environment variable holding the key; empty: none
  std::string api_key_file;  // or a file holding it (first line); empty: none
  ProviderLimits limits;
  absl::Duration timeout = absl::Seconds(120);
  int max_retries = 6;
  absl::Duration initial_backoff = absl::Milliseconds(500);
  absl::Duration max_backoff = absl::Seconds(30);
  int embed_batch = 64;
  absl::Duration embed_wait = absl::ZeroDuration();  // see OpenAiEmbedder
  std::string extra_body_json = "{}";                // a JSON object merged into chat request bodies
  // "max_tokens" or "max_completion_tokens" (OpenAI's current name, which its reasoning models require).
  std::string max_tokens_field = "max_tokens";
  std::string embed_encoding = "base64";  // or "float", for servers without base64 embeddings
  // The API the provider speaks: kApiOpenAi (chat completions, embeddings) or kApiAnthropic (Messages:
  // x-api-key and anthropic-version headers; chat models only).
  std::string api = "openai";
  // Anthropic: mark the stable prefix of prompts that have one (AidanBench's question and instructions)
  // with cache_control, so the provider caches it across a loop's iterations.
  bool prompt_cache = false;
  // Limits the config leaves at 0 are learned from the provider's rate-limit headers (a share of what it
  // reports; worker/limits/learned_limits.h). `learn_limits: false` keeps the configured ones only.
  bool learn_limits = true;
  // Hedging (off unless set): a request with no reply after `hedge_after` (`hedge_after_ms`) gets one
  // duplicate, the first successful reply wins; `hedge_percentile` (`hedge_after: p95`) > 0 makes the
  // wait adaptive, from the latencies observed (hedge_after then its floor). worker/http/hedge_policy.h.
  absl::Duration hedge_after = absl::ZeroDuration();
  double hedge_percentile = 0;
};

inline constexpr char kApiOpenAi[] = "openai";
inline constexpr char kApiAnthropic[] = "anthropic";
inline constexpr char kAnthropicVersion[] = "2023-06-01";

// The defaults of a known provider name (openai, openrouter, anthropic, vllm, llamacpp, ollama); nullopt for any
// other name, which must then be declared with a base_url.
std::optional<ProviderConfig> KnownProviderDefaults(const std::string& name);

// One model reached over HTTP: the name results use, the provider and the provider's model name.
struct ModelEndpoint {
  std::string name;          // as in results, e.g. "openai:gpt-4o" or "sim:explorer"
  std::string remote_model;  // as the provider knows it, e.g. "gpt-4o"
  ProviderConfig provider;
  std::string extra_body_json = "{}";  // the provider's extra_body with the model's merged over it
  int dimensions = 0;                  // embedders: requested size ("dimensions"); 0 = the model's own
  // Reasoning models: "low", "medium" or "high" (sent as OpenAI's reasoning_effort, OpenRouter's
  // reasoning: {effort}); empty = not sent.
  std::string reasoning_effort;
  // Models that reject `temperature` (`temperature: omit` in the config): the field is not sent, and
  // results record the sweep's temperature as not applied.
  bool omit_temperature = false;
};

// The endpoint of model `name` in `endpoints`, or null when it is served in process.
inline const ModelEndpoint* FindEndpoint(const std::map<std::string, ModelEndpoint>& endpoints,
                                         const std::string& name) {
  auto it = endpoints.find(name);
  return it == endpoints.end() ? nullptr : &it->second;
}

// Whether the endpoint changes what model `name` answers: another provider model name, extra body
// fields, a requested size, a reasoning effort or an omitted temperature. Where a model is served from does not; unit
// ids and cache keys count only these, and only when set, so plain endpoints keep the in-process ids.
inline bool EndpointChangesAnswers(const std::string& name, const ModelEndpoint& endpoint) {
  return endpoint.remote_model != name || endpoint.extra_body_json != "{}" || endpoint.dimensions != 0 ||
         !endpoint.reasoning_effort.empty() || endpoint.omit_temperature;
}

// Every setting of a provider / an endpoint as one string: equal strings, same behaviour. Workers key
// their channels and models on it, so a later sweep that changes a setting gets a fresh one.
std::string Fingerprint(const ProviderConfig& provider);
std::string Fingerprint(const ModelEndpoint& endpoint);

// Model prices in US dollars per million tokens, for the cost columns of summary.json.
struct ModelPrice {
  double prompt_per_million = 0;
  double completion_per_million = 0;
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COMMON_PROVIDER_CONFIG_H_
