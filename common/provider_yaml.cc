#include "common/provider_yaml.h"

#include <limits>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "common/json_util.h"
#include "common/status_macros.h"

namespace noveltygrid {

namespace {

constexpr char kKnownProviders[] = "openai, openrouter, anthropic, vllm, llamacpp, ollama";

const std::vector<std::string>& ProviderKeys() {
  static const auto* const kKeys =
      new std::vector<std::string>{"base_url",      "api_key_env",         "api_key_file",
                                   "max_in_flight", "requests_per_minute", "tokens_per_minute",
                                   "timeout_s",     "max_retries",         "initial_backoff_ms",
                                   "max_backoff_s", "embed_batch",         "embed_wait_ms",
                                   "extra_body",    "max_tokens_field",    "embed_encoding",
                                   "api",           "prompt_cache",        "learn_limits",
                                   "hedge_after",   "hedge_after_ms"};
  return *kKeys;
}

constexpr char kEfforts[] = "low, medium or high";

bool IsEffort(std::string_view text) { return text == "low" || text == "medium" || text == "high"; }

// The reasoning effort a remote model name ends with (":high"), or empty.
std::string EffortSuffix(const std::string& remote) {
  const size_t colon = remote.rfind(':');
  if (colon == std::string::npos || colon == 0) return "";
  const std::string suffix = remote.substr(colon + 1);
  return IsEffort(suffix) ? suffix : "";
}

const YAML::Node* Find(const std::map<std::string, YAML::Node>& entries, const std::string& key) {
  auto it = entries.find(key);
  return it == entries.end() ? nullptr : &it->second;
}

bool IsEnvName(const std::string& name) {
  if (name.empty() || !(absl::ascii_isalpha(name[0]) || name[0] == '_')) return false;
  for (char c : name) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

// A YAML value as JSON: maps and lists recursively; scalars as bool, integer, number or string (in that
// order of preference, as YAML would read them), `${NAME}`-expanded.
absl::StatusOr<Json> ToJson(const YamlFields& fields, const YAML::Node& node, const std::string& key) {
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      Json out = Json::object();
      for (const auto& entry : node) {
        const std::string name = entry.first.Scalar();
        ASSIGN_OR_RETURN(out[name], ToJson(fields, entry.second, JoinKey(key, name)));
      }
      return out;
    }
    case YAML::NodeType::Sequence: {
      Json out = Json::array();
      for (size_t i = 0; i < node.size(); ++i) {
        ASSIGN_OR_RETURN(Json element, ToJson(fields, node[i], absl::StrCat(key, "[", i, "]")));
        out.push_back(std::move(element));
      }
      return out;
    }
    case YAML::NodeType::Scalar: {
      ASSIGN_OR_RETURN(std::string text, fields.Scalar(node, key, "a value"));
      if (node.Tag() == "!") return Json(text);  // quoted in the YAML: a string
      if (text == "true" || text == "false") return Json(text == "true");
      if (text == "null" || text == "~") return Json(nullptr);
      Json parsed = Json::parse(text, nullptr, /*allow_exceptions=*/false);
      if (parsed.is_number()) return parsed;
      return Json(text);
    }
    default:
      return Json(nullptr);
  }
}

absl::StatusOr<std::string> ExtraBody(const YamlFields& fields, const YAML::Node& node, const std::string& key) {
  if (!node.IsMap()) return fields.Error(key, "is not a map", "a map of request-body fields, e.g. {top_p: 0.9}");
  ASSIGN_OR_RETURN(Json body, ToJson(fields, node, key));
  for (const char* reserved : {"model", "messages", "input", "n", "stream", "temperature", "seed", "max_tokens",
                               "max_completion_tokens", "encoding_format", "dimensions"}) {
    if (body.contains(reserved)) {
      return fields.Error(JoinKey(key, reserved), "is set by NoveltyGrid for every request",
                          "extra fields only (temperature, seed and max tokens come from the sweep, so that "
                          "results say what was sent)");
    }
  }
  return DumpJson(body);
}

// hedge_after_ms (a whole number of milliseconds, below timeout_s: a hedge at the timeout would come too
// late) and hedge_after (pNN, the adaptive wait).
absl::Status Hedge(const YamlFields& fields, const std::string& key, const std::map<std::string, YAML::Node>& entries,
                   ProviderConfig& config) {
  if (const YAML::Node* n = Find(entries, "hedge_after_ms")) {
    const std::string field = JoinKey(key, "hedge_after_ms");
    ASSIGN_OR_RETURN(int64_t ms, fields.Integer(*n, field, 1, 86'400'000));
    config.hedge_after = absl::Milliseconds(ms);
    if (config.hedge_after >= config.timeout) {
      return fields.Error(field,
                          absl::StrCat(ms, " ms is not below the provider's timeout (",
                                       absl::FormatDuration(config.timeout), "), so it would never fire"),
                          "a wait well below timeout_s, a little above the provider's usual latency");
    }
  }
  if (const YAML::Node* n = Find(entries, "hedge_after")) {
    const std::string field = JoinKey(key, "hedge_after");
    constexpr char kExpected[] = "a latency percentile pNN between p50 and p99.9, e.g. hedge_after: p95";
    ASSIGN_OR_RETURN(std::string text, fields.String(*n, field, kExpected));
    double percentile = 0;
    const bool parsed = text.size() > 1 && text[0] == 'p' &&
                        text.find_first_not_of("0123456789.", 1) == std::string::npos &&
                        absl::SimpleAtod(text.substr(1), &percentile);
    if (!parsed || percentile < 50 || percentile > 99.9) {
      return fields.Error(field, absl::StrCat("'", text, "'"), kExpected);
    }
    config.hedge_percentile = percentile;
  }
  return absl::OkStatus();
}

absl::StatusOr<ProviderConfig> Provider(const YamlFields& fields, const std::string& name, const YAML::Node& node) {
  const std::string key = JoinKey("providers", name);
  if (node.IsMap() && node["api_key"]) {
    return fields.Error(JoinKey(key, "api_key"), "keys are never written in the config",
                        "api_key_env: VARIABLE (the environment variable holding the key) or api_key_file: PATH");
  }
  ASSIGN_OR_RETURN(auto entries, fields.Entries(node, key, ProviderKeys()));
  ProviderConfig config = KnownProviderDefaults(name).value_or(ProviderConfig{});
  config.name = name;
  const YAML::Node* base_url = Find(entries, "base_url");
  if (base_url == nullptr && config.base_url.empty()) {
    return fields.Error(JoinKey(key, "base_url"), "missing",
                        absl::StrCat("the provider's OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1 "
                                     "(only ",
                                     kKnownProviders, " have a default)"));
  }
  if (base_url != nullptr) {
    ASSIGN_OR_RETURN(config.base_url, fields.String(*base_url, JoinKey(key, "base_url"), "an http(s) URL"));
    if (!absl::StartsWith(config.base_url, "http://") && !absl::StartsWith(config.base_url, "https://")) {
      return fields.Error(JoinKey(key, "base_url"), absl::StrCat("'", config.base_url, "' is not an http(s) URL"),
                          "a URL starting with http:// or https://, e.g. http://127.0.0.1:8000/v1");
    }
    while (absl::EndsWith(config.base_url, "/")) config.base_url.pop_back();
    const std::string_view rest = std::string_view(config.base_url).substr(config.base_url.find("//") + 2);
    if (rest.substr(0, rest.find('/')).find('@') != std::string_view::npos) {
      return fields.Error(JoinKey(key, "base_url"), "holds credentials (user:password@)",
                          "a URL without credentials; keys come from api_key_env or api_key_file");
    }
  }
  if (const YAML::Node* n = Find(entries, "api_key_env")) {
    if (n->IsScalar() && absl::StrContains(n->Scalar(), "${")) {
      return fields.Error(JoinKey(key, "api_key_env"),
                          "is expanded from the environment, which would put the key itself here",
                          "the variable's NAME, e.g. api_key_env: OPENAI_API_KEY");
    }
    ASSIGN_OR_RETURN(config.api_key_env, fields.Scalar(*n, JoinKey(key, "api_key_env"), "a variable name"));
    if (absl::StartsWith(config.api_key_env, "NOVELTYGRID_")) {
      return fields.Error(JoinKey(key, "api_key_env"), "names one of NoveltyGrid's own variables",
                          "the variable holding this provider's key");
    }
    if (!config.api_key_env.empty() && !IsEnvName(config.api_key_env)) {
      return fields.Error(JoinKey(key, "api_key_env"), "is not an environment variable name",
                          "the NAME of the variable holding the key, e.g. OPENAI_API_KEY (never the key)");
    }
  }
  if (const YAML::Node* n = Find(entries, "api_key_file")) {
    ASSIGN_OR_RETURN(config.api_key_file, fields.String(*n, JoinKey(key, "api_key_file"), "a file path"));
    if (Find(entries, "api_key_env") == nullptr) config.api_key_env.clear();
  }
  if (!config.api_key_env.empty() && !config.api_key_file.empty()) {
    return fields.Error(key, "has both api_key_env and api_key_file", "one place for the key");
  }
  auto integer = [&](const char* field, int64_t min, int64_t max) -> absl::StatusOr<std::optional<int64_t>> {
    const YAML::Node* n = Find(entries, field);
    if (n == nullptr) return std::optional<int64_t>();
    ASSIGN_OR_RETURN(int64_t value, fields.Integer(*n, JoinKey(key, field), min, max));
    return std::optional<int64_t>(value);
  };
  constexpr int64_t kIntMax = std::numeric_limits<int>::max();
  ASSIGN_OR_RETURN(auto in_flight, integer("max_in_flight", 0, kIntMax));
  ASSIGN_OR_RETURN(auto rpm, integer("requests_per_minute", 0, kIntMax));
  ASSIGN_OR_RETURN(auto tpm, integer("tokens_per_minute", 0, std::numeric_limits<int64_t>::max()));
  ASSIGN_OR_RETURN(auto retries, integer("max_retries", 0, 100));
  ASSIGN_OR_RETURN(auto initial_ms, integer("initial_backoff_ms", 1, 3'600'000));
  ASSIGN_OR_RETURN(auto max_s, integer("max_backoff_s", 1, 3600));
  ASSIGN_OR_RETURN(auto batch, integer("embed_batch", 1, 2048));
  ASSIGN_OR_RETURN(auto wait_ms, integer("embed_wait_ms", 0, 10'000));
  if (in_flight) config.limits.max_in_flight = static_cast<int>(*in_flight);
  if (rpm) config.limits.requests_per_minute = static_cast<int>(*rpm);
  if (tpm) config.limits.tokens_per_minute = *tpm;
  if (retries) config.max_retries = static_cast<int>(*retries);
  if (initial_ms) config.initial_backoff = absl::Milliseconds(*initial_ms);
  if (max_s) config.max_backoff = absl::Seconds(*max_s);
  if (batch) config.embed_batch = static_cast<int>(*batch);
  if (wait_ms) config.embed_wait = absl::Milliseconds(*wait_ms);
  if (const YAML::Node* n = Find(entries, "timeout_s")) {
    ASSIGN_OR_RETURN(double seconds, fields.Number(*n, JoinKey(key, "timeout_s"), 0.001, 86400));
    config.timeout = absl::Seconds(seconds);
  }
  RETURN_IF_ERROR(Hedge(fields, key, entries, config));
  if (const YAML::Node* n = Find(entries, "extra_body")) {
    ASSIGN_OR_RETURN(config.extra_body_json, ExtraBody(fields, *n, JoinKey(key, "extra_body")));
  }
  if (const YAML::Node* n = Find(entries, "max_tokens_field")) {
    ASSIGN_OR_RETURN(config.max_tokens_field, fields.String(*n, JoinKey(key, "max_tokens_field"), "a field name"));
    if (config.max_tokens_field != "max_tokens" && config.max_tokens_field != "max_completion_tokens") {
      return fields.Error(JoinKey(key, "max_tokens_field"), absl::StrCat("'", config.max_tokens_field, "'"),
                          "max_tokens or max_completion_tokens");
    }
  }
  if (const YAML::Node* n = Find(entries, "embed_encoding")) {
    ASSIGN_OR_RETURN(config.embed_encoding, fields.String(*n, JoinKey(key, "embed_encoding"), "base64 or float"));
    if (config.embed_encoding != "base64" && config.embed_encoding != "float") {
      return fields.Error(JoinKey(key, "embed_encoding"), absl::StrCat("'", config.embed_encoding, "'"),
                          "base64 or float");
    }
  }
  if (const YAML::Node* n = Find(entries, "api")) {
    ASSIGN_OR_RETURN(config.api, fields.String(*n, JoinKey(key, "api"), "openai or anthropic"));
    if (config.api != kApiOpenAi && config.api != kApiAnthropic) {
      return fields.Error(JoinKey(key, "api"), absl::StrCat("'", config.api, "'"),
                          "openai (chat completions, embeddings) or anthropic (the Messages API)");
    }
  }
  if (const YAML::Node* n = Find(entries, "learn_limits")) {
    ASSIGN_OR_RETURN(config.learn_limits, fields.Bool(*n, JoinKey(key, "learn_limits")));
  }
  if (const YAML::Node* n = Find(entries, "prompt_cache")) {
    ASSIGN_OR_RETURN(config.prompt_cache, fields.Bool(*n, JoinKey(key, "prompt_cache")));
    if (config.prompt_cache && config.api != kApiAnthropic) {
      return fields.Error(JoinKey(key, "prompt_cache"), "applies to api: anthropic only",
                          "nothing here (OpenAI-compatible providers cache long prompts on their own)");
    }
  }
  return config;
}

}  // namespace

bool IsBuiltinModelName(const std::string& name) {
  return absl::StartsWith(name, "sim:") || name == "lexical" || absl::StartsWith(name, "lexical-");
}

absl::StatusOr<ModelRef> ParseModelRef(const YamlFields& fields, const YAML::Node& node, const std::string& key) {
  ModelRef ref;
  ref.key = key;
  if (!node.IsMap()) {
    ASSIGN_OR_RETURN(ref.name, fields.String(node, key,
                                             "a model name such as sim:explorer or openai:gpt-4o, "
                                             "or a map {name, provider, model}"));
    return ref;
  }
  ASSIGN_OR_RETURN(auto entries, fields.Entries(node, key,
                                                {"name", "provider", "model", "extra_body", "dimensions",
                                                 "reasoning_effort", "temperature"}));
  if (const YAML::Node* n = Find(entries, "reasoning_effort")) {
    ASSIGN_OR_RETURN(ref.reasoning_effort, fields.String(*n, JoinKey(key, "reasoning_effort"), kEfforts));
    if (!IsEffort(ref.reasoning_effort)) {
      return fields.Error(JoinKey(key, "reasoning_effort"), absl::StrCat("'", ref.reasoning_effort, "'"), kEfforts);
    }
  }
  if (const YAML::Node* n = Find(entries, "temperature")) {
    ASSIGN_OR_RETURN(std::string value, fields.String(*n, JoinKey(key, "temperature"), "omit"));
    if (value != "omit") {
      return fields.Error(JoinKey(key, "temperature"), absl::StrCat("'", value, "'"),
                          "omit (for models that reject the field; temperatures come from the sweep's "
                          "temperatures: list)");
    }
    ref.omit_temperature = true;
  }
  if (const YAML::Node* n = Find(entries, "dimensions")) {
    ASSIGN_OR_RETURN(int64_t dimensions, fields.Integer(*n, JoinKey(key, "dimensions"), 1, 65536));
    ref.dimensions = static_cast<int>(dimensions);
  }
  const YAML::Node* name = Find(entries, "name");
  if (name == nullptr) return fields.Error(JoinKey(key, "name"), "missing", "the name results show for this model");
  ASSIGN_OR_RETURN(ref.name, fields.String(*name, JoinKey(key, "name"), "a model name"));
  if (const YAML::Node* n = Find(entries, "provider")) {
    ASSIGN_OR_RETURN(ref.provider, fields.String(*n, JoinKey(key, "provider"), "a provider name"));
  }
  if (const YAML::Node* n = Find(entries, "model")) {
    ASSIGN_OR_RETURN(ref.remote_model, fields.String(*n, JoinKey(key, "model"), "the provider's model name"));
    if (ref.provider.empty()) {
      return fields.Error(JoinKey(key, "provider"), "missing while model is given",
                          "the provider that serves the model");
    }
  }
  if (const YAML::Node* n = Find(entries, "extra_body")) {
    ASSIGN_OR_RETURN(ref.extra_body_json, ExtraBody(fields, *n, JoinKey(key, "extra_body")));
  }
  return ref;
}

absl::StatusOr<std::map<std::string, ProviderConfig>> ParseProviders(const YamlFields& fields, const YAML::Node* node) {
  std::map<std::string, ProviderConfig> providers;
  if (node == nullptr || node->IsNull()) return providers;
  if (!node->IsMap()) {
    return fields.Error("providers", "is not a map", "a map from provider name to {base_url, api_key_env, ...}");
  }
  for (const auto& entry : *node) {
    const std::string name = entry.first.Scalar();
    if (name.empty() || absl::StrContains(name, ':') || absl::StrContains(name, '/')) {
      return fields.Error(JoinKey("providers", name), "is not a usable provider name",
                          "a short name without ':' or '/', e.g. openai or local-vllm");
    }
    if (providers.count(name) != 0) {
      return fields.Error(JoinKey("providers", name), "is declared twice", "each provider once");
    }
    ASSIGN_OR_RETURN(providers[name], Provider(fields, name, entry.second));
  }
  return providers;
}

absl::StatusOr<std::optional<ModelEndpoint>> RouteModel(const YamlFields& fields, const ModelRef& ref,
                                                        const std::map<std::string, ProviderConfig>& providers) {
  std::string provider_name = ref.provider;
  std::string remote = ref.remote_model;
  if (provider_name.empty()) {
    if (IsBuiltinModelName(ref.name)) {
      if (providers.count("sim") == 0) {
        if (!ref.extra_body_json.empty() || ref.dimensions > 0 || !ref.reasoning_effort.empty() ||
            ref.omit_temperature) {
          return fields.Error(ref.key,
                              absl::StrCat("'", ref.name,
                                           "' runs in-process, where extra_body, dimensions, reasoning_effort "
                                           "and temperature: omit mean nothing"),
                              "those settings only on models served over HTTP");
        }
        return std::optional<ModelEndpoint>();
      }
      provider_name = "sim";
      remote = ref.name;
    } else if (const size_t colon = ref.name.find(':'); colon != std::string::npos && colon > 0) {
      provider_name = ref.name.substr(0, colon);
      remote = ref.name.substr(colon + 1);
    } else {
      return fields.Error(ref.key, absl::StrCat("'", ref.name, "' names no provider"),
                          "sim:NAME, lexical, PROVIDER:MODEL (e.g. openai:gpt-4o) or a map {name, provider, model}");
    }
  } else if (remote.empty()) {
    remote = absl::StartsWith(ref.name, provider_name + ":") ? ref.name.substr(provider_name.size() + 1) : ref.name;
  }
  ModelEndpoint endpoint;
  endpoint.name = ref.name;
  if (auto it = providers.find(provider_name); it != providers.end()) {
    endpoint.provider = it->second;
  } else if (std::optional<ProviderConfig> known = KnownProviderDefaults(provider_name); known.has_value()) {
    endpoint.provider = *known;
  } else {
    return fields.Error(ref.key, absl::StrCat("unknown provider '", provider_name, "' (model '", ref.name, "')"),
                        absl::StrCat("a provider declared under providers:, or one of ", kKnownProviders));
  }
  std::string effort = ref.reasoning_effort;
  // The suffix is read from the name only: a provider's model name given as `model:` is sent as written
  // (a local server may call a model "foo:high").
  if (const std::string suffix = ref.remote_model.empty() ? EffortSuffix(remote) : ""; !suffix.empty()) {
    if (!effort.empty() && effort != suffix) {
      return fields.Error(ref.key,
                          absl::StrCat("'", ref.name, "' ends in :", suffix, " but reasoning_effort is ", effort),
                          "one reasoning effort: the name's suffix or reasoning_effort");
    }
    effort = suffix;
    remote.resize(remote.size() - suffix.size() - 1);
  }
  if (remote.empty()) {
    return fields.Error(ref.key, absl::StrCat("'", ref.name, "' names no model"), "PROVIDER:MODEL");
  }
  endpoint.remote_model = remote;
  Json extra = Json::parse(endpoint.provider.extra_body_json);
  if (!ref.extra_body_json.empty()) extra.update(Json::parse(ref.extra_body_json));
  if (endpoint.provider.api == kApiAnthropic) {
    for (const char* reserved : {"system", "metadata"}) {
      if (extra.contains(reserved)) {
        return fields.Error(ref.key,
                            absl::StrCat("'", ref.name, "': extra_body sets ", reserved,
                                         ", which NoveltyGrid sets for every Messages API request"),
                            "extra fields only (the system prompt comes from the benchmark, metadata carries the "
                            "sweep's seed)");
      }
    }
  }
  if (!effort.empty() && endpoint.provider.api == kApiAnthropic) {
    return fields.Error(ref.key,
                        absl::StrCat("'", ref.name, "' has a reasoning effort, which the Messages API has not"),
                        "extra_body: {thinking: {type: enabled, budget_tokens: N}} for Anthropic's extended thinking");
  }
  if (!effort.empty() && (extra.contains("reasoning_effort") || extra.contains("reasoning"))) {
    return fields.Error(ref.key, absl::StrCat("'", ref.name, "' has a reasoning effort and extra_body sets one too"),
                        "the effort in one place: reasoning_effort (or the name's :EFFORT suffix)");
  }
  endpoint.extra_body_json = DumpJson(extra);
  endpoint.dimensions = ref.dimensions;
  endpoint.reasoning_effort = effort;
  endpoint.omit_temperature = ref.omit_temperature;
  return std::optional<ModelEndpoint>(std::move(endpoint));
}

absl::StatusOr<std::map<std::string, ModelPrice>> ParsePrices(const YamlFields& fields, const YAML::Node& node,
                                                              const std::set<std::string>& models) {
  std::map<std::string, ModelPrice> prices;
  if (node.IsNull()) return prices;
  if (!node.IsMap()) {
    return fields.Error("prices", "is not a map", "a map MODEL: {prompt: USD per 1M tokens, completion: USD per 1M}");
  }
  for (const auto& entry : node) {
    const std::string model = entry.first.Scalar();
    const std::string key = absl::StrCat("prices.", model);
    if (models.count(model) == 0) {
      return fields.Error(key, "is not a model of this sweep", absl::StrCat("one of: ", absl::StrJoin(models, ", ")));
    }
    ASSIGN_OR_RETURN(auto price, fields.Entries(entry.second, key, {"prompt", "completion"}));
    ModelPrice p;
    if (const YAML::Node* n = Find(price, "prompt")) {
      ASSIGN_OR_RETURN(p.prompt_per_million, fields.Number(*n, JoinKey(key, "prompt"), 0, 1e6));
    }
    if (const YAML::Node* n = Find(price, "completion")) {
      ASSIGN_OR_RETURN(p.completion_per_million, fields.Number(*n, JoinKey(key, "completion"), 0, 1e6));
    }
    prices[model] = p;
  }
  return prices;
}

}  // namespace noveltygrid
