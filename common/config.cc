// The sweep config's top level: name, seed, models, temperatures, judge, embedder, concurrency, the
// routing of every model (providers:, prices:) and the benchmark sections, each parsed by its own file
// (config_sections.h).
#include "common/config.h"

#include <algorithm>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/config_reader.h"
#include "common/config_sections.h"
#include "common/json_util.h"
#include "common/provider_yaml.h"
#include "common/status_macros.h"
#include "common/yaml_expansion.h"
#include "yaml-cpp/yaml.h"

namespace noveltygrid {

namespace {

const std::vector<std::string>& TopLevelKeys() {
  static const auto* const kKeys = new std::vector<std::string>{
      "name",       "seed",         "models",    "temperatures", "judge",      "embedder", "concurrency",
      "aidanbench", "noveltybench", "providers", "prices",       "budget_usd", "budgets",  "repeats"};
  return *kKeys;
}

// Turns the YAML tree into a SweepConfig, one section at a time.
class SweepParser : private ConfigReader {
 public:
  SweepParser(const std::string& path, const EnvLookup& env) : ConfigReader(path, env) {}

  absl::StatusOr<SweepConfig> Parse(const std::string& text) {
    YAML::Node root;
    try {
      root = YAML::Load(text);
      if (std::optional<YamlExpansionError> e = CheckYamlExpansion(text); e.has_value()) {
        return fields_.Error(absl::StrCat("line ", e->mark.line + 1, ", column ", e->mark.column + 1), e->what,
                             "each value written out, or aliases that expand to a config's size");
      }
    } catch (const YAML::ParserException& e) {
      return fields_.Error(absl::StrCat("line ", e.mark.line + 1, ", column ", e.mark.column + 1),
                           absl::StrCat("invalid YAML (", e.msg, ")"), "valid YAML syntax at that spot");
    } catch (const YAML::Exception& e) {
      return fields_.Error("", absl::StrCat("invalid YAML (", e.what(), ")"), "valid YAML syntax");
    }
    try {
      return ParseRoot(root);
    } catch (const YAML::Exception& e) {  // not expected: the tree is only read with checks
      return fields_.Error("", absl::StrCat("cannot read the YAML (", e.what(), ")"), "a sweep config");
    }
  }

 private:
  absl::StatusOr<SweepConfig> ParseRoot(const YAML::Node& root) {
    if (root.IsNull()) {
      return fields_.Error("", "the file is empty",
                           absl::StrCat("a map with keys ", absl::StrJoin(TopLevelKeys(), ", ")));
    }
    ASSIGN_OR_RETURN(auto entries, fields_.Entries(root, "", TopLevelKeys()));
    SweepConfig config;
    config.path = fields_.file();
    config.name = std::filesystem::path(fields_.file()).stem().string();
    if (config.name.empty()) config.name = "sweep";
    if (const YAML::Node* n = Find(entries, "name")) {
      ASSIGN_OR_RETURN(config.name, fields_.String(*n, "name", "a sweep name"));
    }
    if (const YAML::Node* n = Find(entries, "seed")) {
      ASSIGN_OR_RETURN(config.seed, fields_.Unsigned(*n, "seed"));
    }
    const YAML::Node* models = Find(entries, "models");
    if (models == nullptr) {
      return fields_.Error("models", "missing", "a non-empty list of model names");
    }
    ASSIGN_OR_RETURN(std::vector<ModelRef> model_refs, Models(*models));
    for (const ModelRef& ref : model_refs) config.models.push_back(ModelSpec{ref.name});
    const YAML::Node* temperatures = Find(entries, "temperatures");
    if (temperatures == nullptr) {
      return fields_.Error("temperatures", "missing", "a non-empty list of numbers between 0 and 2");
    }
    ASSIGN_OR_RETURN(config.temperatures, Temperatures(*temperatures, "temperatures"));
    ModelRef judge{"judge", config.judge, "", "", "", 0};
    if (const YAML::Node* n = Find(entries, "judge")) {
      ASSIGN_OR_RETURN(judge, ParseModelRef(fields_, *n, "judge"));
      config.judge = judge.name;
    }
    ModelRef embedder{"embedder", config.embedder, "", "", "", 0};
    if (const YAML::Node* n = Find(entries, "embedder")) {
      ASSIGN_OR_RETURN(embedder, ParseModelRef(fields_, *n, "embedder"));
      config.embedder = embedder.name;
    }
    if (const YAML::Node* n = Find(entries, "repeats")) {
      ASSIGN_OR_RETURN(int64_t repeats, fields_.Integer(*n, "repeats", 1, 1000));
      config.repeats = static_cast<int>(repeats);
    }
    if (const YAML::Node* n = Find(entries, "concurrency")) {
      ASSIGN_OR_RETURN(int64_t concurrency, fields_.Integer(*n, "concurrency", 1, std::numeric_limits<int>::max()));
      config.concurrency = static_cast<int>(concurrency);
    }
    if (const YAML::Node* n = Find(entries, "aidanbench")) {
      ASSIGN_OR_RETURN(config.aidanbench, ParseAidanBenchSection(*this, *n, config.temperatures));
    }
    NoveltyHelperRefs novelty_models;
    if (const YAML::Node* n = Find(entries, "noveltybench")) {
      ASSIGN_OR_RETURN(config.noveltybench, ParseNoveltyBenchSection(*this, *n, config.temperatures, config.models,
                                                                     judge, embedder, novelty_models));
    }
    if (!config.aidanbench.has_value() && !config.noveltybench.has_value()) {
      return fields_.Error("", "no benchmark section", "an aidanbench or noveltybench section (or both)");
    }
    // Routing last, so that a config's other mistakes are reported in file order first.
    ASSIGN_OR_RETURN(auto providers, ParseProviders(fields_, Find(entries, "providers")));
    for (const ModelRef& ref : model_refs) {
      if (ref.dimensions > 0) {
        return fields_.Error(JoinKey(ref.key, "dimensions"), "applies to embedders only",
                             "no dimensions on chat models");
      }
    }
    if (judge.dimensions > 0) {
      return fields_.Error("judge.dimensions", "applies to embedders only", "no dimensions on the judge");
    }
    if (!embedder.extra_body_json.empty()) {
      return fields_.Error("embedder.extra_body", "applies to chat models only",
                           "dimensions (or nothing) on the embedder");
    }
    // Only the helper models a benchmark of the sweep uses are routed (an unused one needs no key).
    std::set<std::string> names = {judge.name, embedder.name};
    if (config.aidanbench.has_value()) {
      model_refs.push_back(judge);
      model_refs.push_back(embedder);
    }
    if (novelty_models.partition.has_value()) model_refs.push_back(*novelty_models.partition);
    if (novelty_models.quality.has_value()) model_refs.push_back(*novelty_models.quality);
    for (const ModelRef& ref : model_refs) {
      names.insert(ref.name);
      ASSIGN_OR_RETURN(std::optional<ModelEndpoint> endpoint, RouteModel(fields_, ref, providers));
      if (!endpoint.has_value()) continue;
      auto [it, inserted] = config.endpoints.emplace(ref.name, *endpoint);
      if (!inserted &&
          (it->second.remote_model != endpoint->remote_model || it->second.provider.name != endpoint->provider.name ||
           it->second.extra_body_json != endpoint->extra_body_json ||
           it->second.reasoning_effort != endpoint->reasoning_effort ||
           it->second.omit_temperature != endpoint->omit_temperature)) {
        return fields_.Error(ref.key, absl::StrCat("'", ref.name, "' is routed two different ways"),
                             "one provider and model per model name");
      }
    }
    RETURN_IF_ERROR(CheckOmittedTemperatures(config, model_refs));
    RETURN_IF_ERROR(CheckRoleSettings(config, model_refs));
    if (const YAML::Node* n = Find(entries, "prices")) {
      ASSIGN_OR_RETURN(config.prices, ParsePrices(fields_, *n, names));
    }
    if (const YAML::Node* n = Find(entries, "budget_usd")) {
      ASSIGN_OR_RETURN(config.budget_usd, fields_.Number(*n, "budget_usd", 0, 1e12));
    }
    if (const YAML::Node* n = Find(entries, "budgets")) {
      ASSIGN_OR_RETURN(config.model_budgets_usd, Budgets(*n, config.models));
    }
    return config;
  }

  using Temps = std::vector<double>;

  // The models of roles that are not chat completions (embedder, pair classifier, reward model), with
  // the key that names them.
  std::vector<std::pair<std::string, std::string>> NonChatModels(const SweepConfig& config) const {
    std::vector<std::pair<std::string, std::string>> models;
    if (config.aidanbench.has_value()) models.emplace_back(config.embedder, "embedder");
    if (config.noveltybench.has_value()) {
      const v1::NoveltySettings& s = config.noveltybench->settings;
      if (s.partitioner() == kPartitionerClassifier || s.partitioner() == kPartitionerEmbedding) {
        models.emplace_back(s.partition_model(), "noveltybench.partition_model");
      }
      if (s.quality() == kQualityReward) models.emplace_back(s.quality_model(), "noveltybench.quality_model");
    }
    return models;
  }

  // The Messages API serves chat only, has no `n` and no temperature above 1; reasoning_effort and
  // temperature: omit are chat settings. Sweeps that break these are refused here, not by every unit.
  absl::Status CheckRoleSettings(const SweepConfig& config, const std::vector<ModelRef>& refs) {
    const auto anthropic = [&](const std::string& name) {
      const ModelEndpoint* e = FindEndpoint(config.endpoints, name);
      return e != nullptr && e->provider.api == kApiAnthropic;
    };
    for (const auto& [name, key] : NonChatModels(config)) {
      const ModelEndpoint* e = FindEndpoint(config.endpoints, name);
      if (e == nullptr) continue;
      if (e->provider.api == kApiAnthropic) {
        return fields_.Error(key,
                             absl::StrCat("'", name, "' is served by the Messages API (api: ", kApiAnthropic,
                                          "), which has no embeddings, classifier or reward endpoint"),
                             "this model at an OpenAI-compatible provider (or a built-in one)");
      }
      if (!e->reasoning_effort.empty() || e->omit_temperature) {
        return fields_.Error(key, absl::StrCat("'", name, "' has reasoning_effort or temperature: omit"),
                             "those settings on chat models only (generators and judges)");
      }
    }
    for (const ModelRef& ref : refs) {
      const ModelEndpoint* e = FindEndpoint(config.endpoints, ref.name);
      if (!anthropic(ref.name) || e->omit_temperature || !absl::StartsWith(ref.key, "models")) continue;
      for (const Temps* temperatures :
           {config.aidanbench.has_value() ? &config.aidanbench->temperatures : nullptr,
            config.noveltybench.has_value() ? &config.noveltybench->temperatures : nullptr}) {
        if (temperatures == nullptr) continue;
        for (double t : *temperatures) {
          if (t <= 1.0) continue;
          return fields_.Error(ref.key,
                               absl::StrCat("'", ref.name,
                                            "' is served by the Messages API, whose temperature ends "
                                            "at 1, and the sweep asks for ",
                                            FormatTemperature(t)),
                               "temperatures between 0 and 1 for this model (a separate sweep, or the section's "
                               "temperatures: list)");
        }
      }
    }
    // NoveltyBench's standard and system-prompt modes ask for all k samples in one request (ask_n).
    if (!config.noveltybench.has_value()) return absl::OkStatus();
    const NoveltyBenchConfig& nb = *config.noveltybench;
    const bool one_request_for_k = nb.settings.ask_n() && nb.settings.k() > 1 &&
                                   std::any_of(nb.modes.begin(), nb.modes.end(), [](const std::string& m) {
                                     return m == kModeStandard || m == kModeSystemPrompt;
                                   });
    if (!one_request_for_k) return absl::OkStatus();
    for (const ModelRef& ref : refs) {
      if (!anthropic(ref.name) || !absl::StartsWith(ref.key, "models")) continue;
      return fields_.Error(ref.key,
                           absl::StrCat("'", ref.name,
                                        "' is served by the Messages API, which has no n, and "
                                        "noveltybench.ask_n asks for all k samples in one request"),
                           "noveltybench: {ask_n: false} (one request per sample)");
    }
    return absl::OkStatus();
  }

  // A model that is never sent a temperature cannot be swept over temperatures: each of its rows would
  // claim a setting the provider never saw.
  absl::Status CheckOmittedTemperatures(const SweepConfig& config, const std::vector<ModelRef>& refs) {
    const std::vector<std::string> omitted = ModelsWithoutTemperature(config);
    for (const ModelRef& ref : refs) {
      if (std::find(omitted.begin(), omitted.end(), ref.name) == omitted.end()) continue;
      for (const auto& [section, temperatures] :
           {std::pair{"aidanbench", config.aidanbench.has_value() ? config.aidanbench->temperatures : Temps()},
            std::pair{"noveltybench", config.noveltybench.has_value() ? config.noveltybench->temperatures : Temps()}}) {
        if (temperatures.size() <= 1) continue;
        return fields_.Error(JoinKey(ref.key, "temperature"),
                             absl::StrCat("'", ref.name, "' is declared temperature: omit, but ", section, " sweeps ",
                                          temperatures.size(),
                                          " temperatures; an ablation over a setting that is "
                                          "never sent would report differences that are only sampling noise"),
                             "one temperature for this model's benchmarks (e.g. temperatures: [1.0] in its section), "
                             "or a separate sweep for it");
      }
    }
    return absl::OkStatus();
  }

  // `budgets: {MODEL: USD}`, each MODEL one of `models:`.
  absl::StatusOr<std::map<std::string, double>> Budgets(const YAML::Node& node, const std::vector<ModelSpec>& models) {
    if (!node.IsMap()) return fields_.Error("budgets", "not a map", "{MODEL: US dollars, ...}");
    std::map<std::string, double> budgets;
    for (const auto& entry : node) {
      const std::string model = entry.first.as<std::string>();
      const std::string key = absl::StrCat("budgets.", model);
      if (std::none_of(models.begin(), models.end(), [&](const ModelSpec& m) { return m.name == model; })) {
        return fields_.Error(key, "not one of models:", "a model of the sweep");
      }
      ASSIGN_OR_RETURN(budgets[model], fields_.Number(entry.second, key, 0, 1e12));
    }
    return budgets;
  }

  absl::StatusOr<std::vector<ModelRef>> Models(const YAML::Node& node) {
    RETURN_IF_ERROR(fields_.NonEmptyList(node, "models", "model names"));
    std::vector<ModelRef> models;
    std::map<std::string, size_t> first_index;
    for (size_t i = 0; i < node.size(); ++i) {
      const std::string key = absl::StrCat("models[", i, "]");
      ASSIGN_OR_RETURN(ModelRef model, ParseModelRef(fields_, node[i], key));
      auto [it, inserted] = first_index.emplace(model.name, i);
      if (!inserted) {
        return fields_.Error(key, absl::StrCat(model.name, " is listed twice (also models[", it->second, "])"),
                             "distinct model names");
      }
      models.push_back(std::move(model));
    }
    return models;
  }
};

}  // namespace

std::vector<std::string> ModelsWithoutTemperature(const SweepConfig& config) {
  std::vector<std::string> models;
  for (const ModelSpec& m : config.models) {
    if (const ModelEndpoint* e = FindEndpoint(config.endpoints, m.name); e != nullptr && e->omit_temperature) {
      models.push_back(m.name);
    }
  }
  return models;
}

absl::StatusOr<SweepConfig> ParseSweepConfig(const std::string& yaml_text, const std::string& path,
                                             const EnvLookup& env) {
  return SweepParser(path, env).Parse(yaml_text);
}

absl::StatusOr<SweepConfig> ParseSweepConfig(const std::string& yaml_text, const std::string& path) {
  return ParseSweepConfig(yaml_text, path, ProcessEnv);
}

absl::StatusOr<SweepConfig> LoadSweepConfig(const std::string& path) {
  ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  return ParseSweepConfig(text, path);
}

}  // namespace noveltygrid
