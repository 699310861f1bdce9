#include "common/config.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/json_util.h"
#include "common/noveltybench/unigram.h"
#include "common/provider_yaml.h"
#include "common/records.h"
#include "common/status_macros.h"
#include "common/yaml_fields.h"
#include "yaml-cpp/yaml.h"

namespace noveltygrid {

namespace {

const std::vector<AidanPreset>& Presets() {
  static const std::vector<AidanPreset>* const kPresets = new std::vector<AidanPreset>{
      // The reference code (2025): 0-100 judge; the loop stops at coherence <= 15, the scorer stops
      // counting at coherence < 15 (so an answer judged exactly 15 ends the loop but is valid).
      {"reference-2025", 100, 15, 0.15, 15, 0.15},
      // The paper (2024): 1-10 judge, the loop stops at coherence <= 3 or novelty < 0.1 and the score
      // counts answers up to the first that stopped it. The judge gives integers 1..10, so "<= 3 stops"
      // is "< 4 is invalid" in MarkValidAnswers' terms (`coherence < valid_coherence_below`).
      {"paper-2024", 10, 3, 0.1, 4, 0.1},
  };
  return *kPresets;
}

std::string PresetNames() {
  std::vector<std::string> names;
  for (const AidanPreset& p : Presets()) names.push_back(p.name);
  return absl::StrJoin(names, ", ");
}

const std::vector<std::string>& TopLevelKeys() {
  static const auto* const kKeys =
      new std::vector<std::string>{"name",        "seed",       "models",       "temperatures", "judge", "embedder",
                                   "concurrency", "aidanbench", "noveltybench", "providers",    "prices"};
  return *kKeys;
}

const std::vector<std::string>& AidanBenchKeys() {
  static const auto* const kKeys =
      new std::vector<std::string>{"questions",  "preset",        "templates",   "max_iterations",
                                   "max_tokens", "judge_retries", "llm_novelty", "temperatures"};
  return *kKeys;
}

const std::vector<std::string>& NoveltyBenchKeys() {
  static const auto* const kKeys =
      new std::vector<std::string>{"prompts",    "datasets",      "limit",       "modes",        "k",
                                   "max_tokens", "ask_n",         "partitioner", "threshold",    "partition_model",
                                   "quality",    "quality_model", "patience",    "temperatures", "prompts_file"};
  return *kKeys;
}

// A NoveltyBench partitioner and its default "same idea" threshold (../shared/REFERENCE.md for the
// classifier and unigram; the embedding and LLM cuts are the project's own).
struct PartitionerDefault {
  const char* name;
  double threshold;
};
constexpr PartitionerDefault kPartitioners[] = {
    {kPartitionerClassifier, 0.102},
    {kPartitionerUnigram, noveltybench::kDefaultUnigramThreshold},
    {kPartitionerEmbedding, 0.9},
    {kPartitionerLlm, 0.5},
};
constexpr char kPartitionersExpected[] = "one of classifier, unigram, embedding, llm";
constexpr char kModesExpected[] = "one of standard, in-context, paraphrase, system-prompt";
constexpr char kDefaultClassifier[] = "sim:classifier";
constexpr char kDefaultRewardModel[] = "sim:reward";

constexpr char kTemplatesExpected[] =
    "a readable JSON prompt-template file in the layout of "
    "../shared/data/aidanbench/prompts-reference.json";

// Turns the YAML tree into a SweepConfig, one section at a time.
class SweepParser {
 public:
  SweepParser(const std::string& path, const EnvLookup& env) : fields_(path, env) {}

  absl::StatusOr<SweepConfig> Parse(const std::string& text) {
    YAML::Node root;
    try {
      root = YAML::Load(text);
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
    if (const YAML::Node* n = Find(entries, "concurrency")) {
      ASSIGN_OR_RETURN(int64_t concurrency, fields_.Integer(*n, "concurrency", 1, std::numeric_limits<int>::max()));
      config.concurrency = static_cast<int>(concurrency);
    }
    if (const YAML::Node* n = Find(entries, "aidanbench")) {
      ASSIGN_OR_RETURN(config.aidanbench, AidanBench(*n, config.temperatures));
    }
    NoveltyHelperRefs novelty_models;
    if (const YAML::Node* n = Find(entries, "noveltybench")) {
      ASSIGN_OR_RETURN(config.noveltybench,
                       NoveltyBench(*n, config.temperatures, config.models, judge, embedder, novelty_models));
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
           it->second.extra_body_json != endpoint->extra_body_json)) {
        return fields_.Error(ref.key, absl::StrCat("'", ref.name, "' is routed two different ways"),
                             "one provider and model per model name");
      }
    }
    if (const YAML::Node* n = Find(entries, "prices")) {
      ASSIGN_OR_RETURN(config.prices, ParsePrices(fields_, *n, names));
    }
    return config;
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

  absl::StatusOr<std::vector<double>> Temperatures(const YAML::Node& node, const std::string& key) {
    RETURN_IF_ERROR(fields_.NonEmptyList(node, key, "numbers between 0 and 2"));
    std::vector<double> temperatures;
    for (size_t i = 0; i < node.size(); ++i) {
      const std::string element_key = absl::StrCat(key, "[", i, "]");
      ASSIGN_OR_RETURN(double t, fields_.Number(node[i], element_key, 0, 2));
      for (size_t j = 0; j < temperatures.size(); ++j) {
        if (temperatures[j] == t) {
          return fields_.Error(element_key, absl::StrCat(t, " is listed twice (also ", key, "[", j, "])"),
                               "distinct temperatures");
        }
      }
      temperatures.push_back(t);
    }
    return temperatures;
  }

  absl::StatusOr<AidanBenchConfig> AidanBench(const YAML::Node& node, const std::vector<double>& top_temperatures) {
    ASSIGN_OR_RETURN(auto entries, fields_.Entries(node, "aidanbench", AidanBenchKeys()));
    AidanBenchConfig aidan;

    const YAML::Node* questions = Find(entries, "questions");
    constexpr char kQuestionsExpected[] =
        "a JSONL file of {\"id\": ..., \"question\": ...} lines, relative to the config file";
    if (questions == nullptr) return fields_.Error("aidanbench.questions", "missing", kQuestionsExpected);
    ASSIGN_OR_RETURN(std::string questions_path,
                     fields_.String(*questions, "aidanbench.questions", kQuestionsExpected));
    aidan.questions_path = Resolve(questions_path);
    absl::StatusOr<std::vector<Question>> loaded = LoadQuestions(aidan.questions_path);
    if (!loaded.ok()) return Wrap("aidanbench.questions", loaded.status(), kQuestionsExpected);
    aidan.questions = *std::move(loaded);

    std::string preset_name = "reference-2025";
    if (const YAML::Node* n = Find(entries, "preset")) {
      ASSIGN_OR_RETURN(preset_name, fields_.String(*n, "aidanbench.preset", PresetNames()));
    }
    absl::StatusOr<AidanPreset> preset = FindAidanPreset(preset_name);
    if (!preset.ok()) {
      return fields_.Error("aidanbench.preset", absl::StrCat("unknown preset '", preset_name, "'"),
                           absl::StrCat("one of: ", PresetNames()));
    }
    aidan.preset = *preset;

    aidan.templates = DefaultPromptTemplates();
    if (const YAML::Node* n = Find(entries, "templates")) {
      ASSIGN_OR_RETURN(std::string templates_path, fields_.String(*n, "aidanbench.templates", kTemplatesExpected));
      aidan.templates_source = Resolve(templates_path);
      absl::StatusOr<PromptTemplates> templates = LoadPromptTemplates(aidan.templates_source);
      if (!templates.ok()) return Wrap("aidanbench.templates", templates.status(), kTemplatesExpected);
      aidan.templates = *std::move(templates);
    }

    if (const YAML::Node* n = Find(entries, "max_iterations")) {
      ASSIGN_OR_RETURN(aidan.max_iterations, Int(*n, "aidanbench.max_iterations", 0));
    }
    if (const YAML::Node* n = Find(entries, "max_tokens")) {
      ASSIGN_OR_RETURN(aidan.max_tokens, Int(*n, "aidanbench.max_tokens", 1));
    }
    if (const YAML::Node* n = Find(entries, "judge_retries")) {
      ASSIGN_OR_RETURN(aidan.judge_retries, Int(*n, "aidanbench.judge_retries", 0, 10));
    }
    if (const YAML::Node* n = Find(entries, "llm_novelty")) {
      ASSIGN_OR_RETURN(aidan.llm_novelty, fields_.Bool(*n, "aidanbench.llm_novelty"));
    }
    aidan.temperatures = top_temperatures;
    if (const YAML::Node* n = Find(entries, "temperatures")) {
      ASSIGN_OR_RETURN(aidan.temperatures, Temperatures(*n, "aidanbench.temperatures"));
    }

    // Combinations the templates cannot serve.
    if (aidan.preset.judge_scale_max == 10 && aidan.templates.coherence_judge_1_10.empty()) {
      return fields_.Error(
          "aidanbench.preset",
          absl::StrCat("preset ", aidan.preset.name, " needs a 1-10 coherence judge but the templates (",
                       aidan.templates_source, ") have no coherence_judge_1_10"),
          "templates with a coherence_judge_1_10 entry (or omit aidanbench.templates to use the "
          "built-in ones), or preset reference-2025");
    }
    if (aidan.llm_novelty && aidan.templates.similarity_judge.empty()) {
      return fields_.Error("aidanbench.llm_novelty",
                           absl::StrCat("the LLM similarity judge is on but the templates (", aidan.templates_source,
                                        ") have no similarity_judge"),
                           "templates with a similarity_judge entry, or llm_novelty: false");
    }
    return aidan;
  }

  // The helper models of the noveltybench section, for routing.
  struct NoveltyHelperRefs {
    std::optional<ModelRef> partition;  // none for the unigram partitioner
    std::optional<ModelRef> quality;
  };

  absl::StatusOr<NoveltyBenchConfig> NoveltyBench(const YAML::Node& node, const std::vector<double>& top_temperatures,
                                                  const std::vector<ModelSpec>& generators, const ModelRef& judge,
                                                  const ModelRef& embedder, NoveltyHelperRefs& models) {
    ASSIGN_OR_RETURN(auto entries, fields_.Entries(node, "noveltybench", NoveltyBenchKeys()));
    NoveltyBenchConfig nb;
    if (const YAML::Node* n = Find(entries, "limit")) {
      ASSIGN_OR_RETURN(nb.limit, Int(*n, "noveltybench.limit", 0));
    }
    ASSIGN_OR_RETURN(nb.datasets, NoveltyDatasets(Find(entries, "prompts"), Find(entries, "datasets"), nb.limit));
    nb.modes = {kModeStandard};
    if (const YAML::Node* n = Find(entries, "modes")) {
      ASSIGN_OR_RETURN(nb.modes, NoveltyModes(*n));
    }
    if (const YAML::Node* n = Find(entries, "k")) {
      ASSIGN_OR_RETURN(nb.k, Int(*n, "noveltybench.k", 1, 100));
    }
    if (const YAML::Node* n = Find(entries, "max_tokens")) {
      ASSIGN_OR_RETURN(nb.max_tokens, Int(*n, "noveltybench.max_tokens", 1));
    }
    if (const YAML::Node* n = Find(entries, "ask_n")) {
      ASSIGN_OR_RETURN(nb.ask_n, fields_.Bool(*n, "noveltybench.ask_n"));
    }

    if (const YAML::Node* n = Find(entries, "partitioner")) {
      ASSIGN_OR_RETURN(nb.partitioner, fields_.String(*n, "noveltybench.partitioner", kPartitionersExpected));
    }
    const PartitionerDefault* partitioner = nullptr;
    for (const PartitionerDefault& p : kPartitioners) {
      if (nb.partitioner == p.name) partitioner = &p;
    }
    if (partitioner == nullptr) {
      return fields_.Error("noveltybench.partitioner", absl::StrCat("unknown partitioner '", nb.partitioner, "'"),
                           kPartitionersExpected);
    }
    nb.threshold = partitioner->threshold;
    if (const YAML::Node* n = Find(entries, "threshold")) {
      ASSIGN_OR_RETURN(nb.threshold, fields_.Number(*n, "noveltybench.threshold", 0, 1));
    }
    ASSIGN_OR_RETURN(models.partition,
                     PartitionModel(Find(entries, "partition_model"), nb.partitioner, judge, embedder));
    if (models.partition.has_value()) nb.partition_model = models.partition->name;

    if (const YAML::Node* n = Find(entries, "quality")) {
      ASSIGN_OR_RETURN(nb.quality, fields_.String(*n, "noveltybench.quality", "reward or llm"));
    }
    if (nb.quality != kQualityReward && nb.quality != kQualityLlm) {
      return fields_.Error("noveltybench.quality", absl::StrCat("unknown quality scorer '", nb.quality, "'"),
                           "reward (a reward model, the reference's buckets) or llm (the judge's 1..10)");
    }
    ASSIGN_OR_RETURN(models.quality, QualityModel(Find(entries, "quality_model"), nb.quality, judge));
    nb.quality_model = models.quality->name;

    if (const YAML::Node* n = Find(entries, "patience")) {
      ASSIGN_OR_RETURN(nb.patience, fields_.Number(*n, "noveltybench.patience", 0, 100));
      if (nb.patience <= 0) {
        return fields_.Error("noveltybench.patience", "0 is not greater than 0",
                             "a number greater than 0 (the reference uses 0.8)");
      }
    }
    nb.temperatures = top_temperatures;
    if (const YAML::Node* n = Find(entries, "temperatures")) {
      ASSIGN_OR_RETURN(nb.temperatures, Temperatures(*n, "noveltybench.temperatures"));
    }
    nb.prompts = noveltybench::DefaultNoveltyPrompts();
    if (const YAML::Node* n = Find(entries, "prompts_file")) {
      constexpr char kPromptsFileExpected[] =
          "a JSON file with any of the keys in_context_followup, system_prompt, equivalence_judge, quality_judge";
      ASSIGN_OR_RETURN(std::string path, fields_.String(*n, "noveltybench.prompts_file", kPromptsFileExpected));
      nb.prompts_source = Resolve(path);
      absl::StatusOr<noveltybench::NoveltyPrompts> prompts = noveltybench::LoadNoveltyPrompts(nb.prompts_source);
      if (!prompts.ok()) return Wrap("noveltybench.prompts_file", prompts.status(), kPromptsFileExpected);
      nb.prompts = *std::move(prompts);
    }
    RETURN_IF_ERROR(CheckParaphrases(nb));
    // The simulated scorers are the defaults; real generators must not be scored by them unasked.
    struct DefaultScorer {
      const char* key;
      const std::string& model;
      const char* simulated;
      const char* does;
      const char* expected;
    };
    const DefaultScorer scorers[] = {
        {"partition_model", nb.partition_model, kDefaultClassifier, "partition",
         "a pair classifier endpoint (e.g. {name: deberta, provider: tei, model: ...}), "
         "another partitioner, or partition_model: sim:classifier to use the simulator on purpose"},
        {"quality_model", nb.quality_model, kDefaultRewardModel, "score",
         "a reward model endpoint, quality: llm, or quality_model: sim:reward to use the simulator on purpose"},
    };
    for (const ModelSpec& g : generators) {
      if (absl::StartsWith(g.name, "sim:")) continue;
      for (const DefaultScorer& d : scorers) {
        if (Find(entries, d.key) != nullptr || d.model != d.simulated) continue;
        return fields_.Error(absl::StrCat("noveltybench.", d.key),
                             absl::StrCat("not set, so the simulated ", d.simulated, " would ", d.does,
                                          " the generations of the real model '", g.name, "'"),
                             d.expected);
      }
    }
    return nb;
  }

  // `prompts: FILE` (named after its stem) or `datasets: {NAME: FILE, ...}` (in file order), each cut to
  // its first `limit` prompts.
  absl::StatusOr<std::vector<NoveltyDataset>> NoveltyDatasets(const YAML::Node* prompts, const YAML::Node* datasets,
                                                              int limit) {
    constexpr char kPromptsExpected[] =
        "a JSONL file of {\"id\", \"prompt\", [\"prompt_paraphrases\"]} lines (the layout of curated.jsonl), "
        "relative to the config file";
    constexpr char kOneOf[] = "prompts: FILE or datasets: {NAME: FILE, ...} (one of the two)";
    if (prompts == nullptr && datasets == nullptr) return fields_.Error("noveltybench.prompts", "missing", kOneOf);
    if (prompts != nullptr && datasets != nullptr) {
      return fields_.Error("noveltybench.datasets", "is given together with prompts", kOneOf);
    }
    std::vector<std::pair<std::string, std::string>> files;  // (key, file)
    std::vector<NoveltyDataset> out;
    if (prompts != nullptr) {
      ASSIGN_OR_RETURN(std::string file, fields_.String(*prompts, "noveltybench.prompts", kPromptsExpected));
      files.emplace_back("noveltybench.prompts", file);
      out.push_back(NoveltyDataset{std::filesystem::path(file).stem().string(), "", {}});
    } else {
      if (!datasets->IsMap() || datasets->size() == 0) {
        return fields_.Error("noveltybench.datasets", "is not a non-empty map",
                             "a map {NAME: FILE, ...}, e.g. {curated: curated.jsonl, wildchat: wildchat.jsonl}");
      }
      for (const auto& entry : *datasets) {
        const std::string name = entry.first.Scalar();
        const std::string key = JoinKey("noveltybench.datasets", name);
        if (name.empty()) return fields_.Error(key, "has an empty name", "a dataset name such as curated");
        for (const NoveltyDataset& d : out) {
          if (d.name == name) return fields_.Error(key, "appears twice", "each dataset once");
        }
        ASSIGN_OR_RETURN(std::string file, fields_.String(entry.second, key, kPromptsExpected));
        files.emplace_back(key, file);
        out.push_back(NoveltyDataset{name, "", {}});
      }
    }
    for (size_t i = 0; i < out.size(); ++i) {
      out[i].path = Resolve(files[i].second);
      absl::StatusOr<std::vector<BenchPrompt>> loaded = LoadBenchPrompts(out[i].path);
      if (!loaded.ok()) return Wrap(files[i].first, loaded.status(), kPromptsExpected);
      out[i].prompts = *std::move(loaded);
      if (limit > 0 && out[i].prompts.size() > static_cast<size_t>(limit)) out[i].prompts.resize(limit);
    }
    return out;
  }

  absl::StatusOr<std::vector<std::string>> NoveltyModes(const YAML::Node& node) {
    RETURN_IF_ERROR(fields_.NonEmptyList(node, "noveltybench.modes", "sampling modes"));
    std::vector<std::string> modes;
    for (size_t i = 0; i < node.size(); ++i) {
      const std::string key = absl::StrCat("noveltybench.modes[", i, "]");
      ASSIGN_OR_RETURN(std::string mode, fields_.String(node[i], key, kModesExpected));
      if (mode != kModeStandard && mode != kModeInContext && mode != kModeParaphrase && mode != kModeSystemPrompt) {
        return fields_.Error(key, absl::StrCat("unknown sampling mode '", mode, "'"), kModesExpected);
      }
      if (std::find(modes.begin(), modes.end(), mode) != modes.end()) {
        return fields_.Error(key, absl::StrCat(mode, " is listed twice"), "distinct sampling modes");
      }
      modes.push_back(std::move(mode));
    }
    return modes;
  }

  // The partitioner's model: given, or the default for the partitioner (none for unigram).
  absl::StatusOr<std::optional<ModelRef>> PartitionModel(const YAML::Node* node, const std::string& partitioner,
                                                         const ModelRef& judge, const ModelRef& embedder) {
    constexpr char kKey[] = "noveltybench.partition_model";
    if (partitioner == kPartitionerUnigram) {
      if (node != nullptr) {
        return fields_.Error(kKey, "the unigram partitioner uses no model",
                             "no partition_model with partitioner: unigram");
      }
      return std::optional<ModelRef>();
    }
    if (node == nullptr) {
      if (partitioner == kPartitionerEmbedding) return std::optional<ModelRef>(embedder);
      if (partitioner == kPartitionerLlm) return std::optional<ModelRef>(judge);
      return std::optional<ModelRef>(ModelRef{"noveltybench.partitioner", kDefaultClassifier, "", "", "", 0});
    }
    ASSIGN_OR_RETURN(ModelRef ref, ParseModelRef(fields_, *node, kKey));
    if (ref.dimensions > 0 && partitioner != kPartitionerEmbedding) {
      return fields_.Error(JoinKey(kKey, "dimensions"), "applies to embedders only",
                           "dimensions only with partitioner: embedding");
    }
    if (!ref.extra_body_json.empty() && partitioner != kPartitionerLlm) {
      return fields_.Error(JoinKey(kKey, "extra_body"), "applies to chat models only",
                           "extra_body only with partitioner: llm");
    }
    return std::optional<ModelRef>(std::move(ref));
  }

  // The quality model: given, or the default for the quality scorer.
  absl::StatusOr<std::optional<ModelRef>> QualityModel(const YAML::Node* node, const std::string& quality,
                                                       const ModelRef& judge) {
    constexpr char kKey[] = "noveltybench.quality_model";
    if (node == nullptr) {
      if (quality == kQualityLlm) return std::optional<ModelRef>(judge);
      return std::optional<ModelRef>(ModelRef{"noveltybench.quality", kDefaultRewardModel, "", "", "", 0});
    }
    ASSIGN_OR_RETURN(ModelRef ref, ParseModelRef(fields_, *node, kKey));
    if (ref.dimensions > 0) {
      return fields_.Error(JoinKey(kKey, "dimensions"), "applies to embedders only",
                           "no dimensions on the quality model");
    }
    if (!ref.extra_body_json.empty() && quality != kQualityLlm) {
      return fields_.Error(JoinKey(kKey, "extra_body"), "applies to chat models only",
                           "extra_body only with quality: llm");
    }
    return std::optional<ModelRef>(std::move(ref));
  }

  // The paraphrase mode sends generation i the prompt's paraphrase i: every prompt needs k of them.
  absl::Status CheckParaphrases(const NoveltyBenchConfig& nb) {
    auto mode = std::find(nb.modes.begin(), nb.modes.end(), kModeParaphrase);
    if (mode == nb.modes.end()) return absl::OkStatus();
    const std::string key = absl::StrCat("noveltybench.modes[", mode - nb.modes.begin(), "]");
    for (const NoveltyDataset& d : nb.datasets) {
      for (const BenchPrompt& p : d.prompts) {
        if (static_cast<int>(p.paraphrases.size()) >= nb.k) continue;
        return fields_.Error(
            key,
            absl::StrCat("the paraphrase mode needs k = ", nb.k, " paraphrases per prompt but prompt '", p.id,
                         "' (dataset ", d.name, ") has ", p.paraphrases.size()),
            "prompts with at least k prompt_paraphrases (curated.jsonl has 10 each), a smaller k, or no "
            "paraphrase mode");
      }
    }
    return absl::OkStatus();
  }

  absl::StatusOr<int> Int(const YAML::Node& node, const std::string& key, int min,
                          int max = std::numeric_limits<int>::max()) {
    ASSIGN_OR_RETURN(int64_t value, fields_.Integer(node, key, min, max));
    return static_cast<int>(value);
  }

  // An error from loading a file the config names, as "<config>: <key>: <inner message>".
  absl::Status Wrap(const std::string& key, const absl::Status& inner, absl::string_view expected) {
    const absl::string_view message = inner.message();
    if (absl::StrContains(message, "; expected ")) {
      return absl::InvalidArgumentError(absl::StrCat(fields_.file(), ": ", key, ": ", message));
    }
    return fields_.Error(key, message, expected);
  }

  // Relative paths are relative to the config file's folder; the result is absolute and normal.
  std::string Resolve(const std::string& path) const {
    std::filesystem::path p(path);
    if (p.is_relative()) p = std::filesystem::path(fields_.file()).parent_path() / p;
    std::error_code ec;
    std::filesystem::path absolute = std::filesystem::absolute(p, ec);
    return (ec ? p : absolute).lexically_normal().string();
  }

  static const YAML::Node* Find(const std::map<std::string, YAML::Node>& entries, const std::string& key) {
    auto it = entries.find(key);
    return it == entries.end() ? nullptr : &it->second;
  }

  YamlFields fields_;
};

}  // namespace

absl::StatusOr<AidanPreset> FindAidanPreset(const std::string& name) {
  for (const AidanPreset& preset : Presets()) {
    if (preset.name == name) return preset;
  }
  return absl::NotFoundError(absl::StrCat("unknown AidanBench preset '", name, "'; expected one of: ", PresetNames()));
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
