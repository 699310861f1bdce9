#include "common/provider_config.h"

#include "absl/strings/str_cat.h"

namespace noveltygrid {

std::optional<ProviderConfig> KnownProviderDefaults(const std::string& name) {
  ProviderConfig config;
  config.name = name;
  if (name == "openai") {
    config.base_url = "https://api.openai.com/v1";
    config.api_key_env = "OPENAI_API_KEY";
    config.max_tokens_field = "max_completion_tokens";
  } else if (name == "openrouter") {
    config.base_url = "https://openrouter.ai/api/v1";
    config.api_key_env = "OPENROUTER_API_KEY";
  } else if (name == "anthropic") {
    config.base_url = "https://api.anthropic.com/v1";
    config.api_key_env = "ANTHROPIC_API_KEY";
    config.api = kApiAnthropic;
  } else if (name == "vllm") {
    config.base_url = "http://127.0.0.1:8000/v1";
  } else if (name == "llamacpp") {
    config.base_url = "http://127.0.0.1:8080/v1";
  } else if (name == "ollama") {
    config.base_url = "http://127.0.0.1:11434/v1";
  } else {
    return std::nullopt;
  }
  return config;
}

std::string Fingerprint(const ProviderConfig& p) {
  return absl::StrCat(p.name, "|", p.base_url, "|", p.api_key_env, "|", p.api_key_file, "|", p.limits.max_in_flight,
                      "|", p.limits.requests_per_minute, "|", p.limits.tokens_per_minute, "|",
                      absl::FormatDuration(p.timeout), "|", p.max_retries, "|", absl::FormatDuration(p.initial_backoff),
                      "|", absl::FormatDuration(p.max_backoff), "|", p.embed_batch, "|",
                      absl::FormatDuration(p.embed_wait), "|", p.extra_body_json, "|", p.max_tokens_field, "|",
                      p.embed_encoding, "|", p.api, "|", p.prompt_cache, "|", p.learn_limits, "|",
                      absl::FormatDuration(p.hedge_after), "|", p.hedge_percentile);
}

std::string Fingerprint(const ModelEndpoint& e) {
  return absl::StrCat(e.name, "|", e.remote_model, "|", e.extra_body_json, "|", e.dimensions, "|", e.reasoning_effort,
                      "|", e.omit_temperature, "|", Fingerprint(e.provider));
}

}  // namespace noveltygrid
