// The `noveltybench:` section of the sweep config.
#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/config_sections.h"
#include "common/dataset.h"
#include "common/noveltybench/partitioners.h"
#include "common/noveltybench/prompts.h"
#include "common/noveltybench/unigram.h"
#include "common/records.h"
#include "common/status_macros.h"

namespace noveltygrid {
namespace {

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
    {kPartitionerClassifier, 0.102}, {kPartitionerUnigram, noveltybench::kDefaultUnigramThreshold},
    {kPartitionerEmbedding, 0.9},    {kPartitionerLlm, 0.5},
    {kPartitionerLlmGroups, 0},  // no threshold: the judge names the classes
};
constexpr char kPartitionersExpected[] = "one of classifier, unigram, embedding, llm, llm-groups";
constexpr char kModesExpected[] = "one of standard, in-context, paraphrase, system-prompt";
constexpr char kDefaultClassifier[] = "sim:classifier";
constexpr char kDefaultRewardModel[] = "sim:reward";

class NoveltyBenchSection : private ConfigReader {
 public:
  explicit NoveltyBenchSection(const ConfigReader& reader) : ConfigReader(reader) {}

  absl::StatusOr<NoveltyBenchConfig> Parse(const YAML::Node& node, const std::vector<double>& top_temperatures,
                                           const std::vector<ModelSpec>& generators, const ModelRef& judge,
                                           const ModelRef& embedder, NoveltyHelperRefs& models) const {
    ASSIGN_OR_RETURN(auto entries, fields_.Entries(node, "noveltybench", NoveltyBenchKeys()));
    NoveltyBenchConfig nb;
    v1::NoveltySettings& s = nb.settings;  // the benchmark settings (MakeNoveltySettings copies them whole)
    s.clear_partition_model();             // set below unless the partitioner needs none
    if (const YAML::Node* n = Find(entries, "limit")) {
      ASSIGN_OR_RETURN(nb.limit, Int(*n, "noveltybench.limit", 0));
    }
    ASSIGN_OR_RETURN(nb.datasets, NoveltyDatasets(Find(entries, "prompts"), Find(entries, "datasets"), nb.limit));
    nb.modes = {kModeStandard};
    if (const YAML::Node* n = Find(entries, "modes")) {
      ASSIGN_OR_RETURN(nb.modes, NoveltyModes(*n));
    }
    if (const YAML::Node* n = Find(entries, "k")) {
      ASSIGN_OR_RETURN(const int k, Int(*n, "noveltybench.k", 1, 100));
      s.set_k(k);
    }
    if (const YAML::Node* n = Find(entries, "max_tokens")) {
      ASSIGN_OR_RETURN(const int max_tokens, Int(*n, "noveltybench.max_tokens", 1));
      s.set_max_tokens(max_tokens);
    }
    if (const YAML::Node* n = Find(entries, "ask_n")) {
      ASSIGN_OR_RETURN(const bool ask_n, fields_.Bool(*n, "noveltybench.ask_n"));
      s.set_ask_n(ask_n);
    }

    if (const YAML::Node* n = Find(entries, "partitioner")) {
      ASSIGN_OR_RETURN(*s.mutable_partitioner(), fields_.String(*n, "noveltybench.partitioner", kPartitionersExpected));
    }
    const PartitionerDefault* partitioner = nullptr;
    for (const PartitionerDefault& p : kPartitioners) {
      if (s.partitioner() == p.name) partitioner = &p;
    }
    if (partitioner == nullptr) {
      return fields_.Error("noveltybench.partitioner", absl::StrCat("unknown partitioner '", s.partitioner(), "'"),
                           kPartitionersExpected);
    }
    s.set_threshold(partitioner->threshold);
    if (const YAML::Node* n = Find(entries, "threshold")) {
      if (s.partitioner() == kPartitionerLlmGroups) {
        return fields_.Error("noveltybench.threshold", "llm-groups has no threshold: the judge names the classes",
                             "no threshold with partitioner: llm-groups (or partitioner: llm, which has one)");
      }
      ASSIGN_OR_RETURN(const double threshold, fields_.Number(*n, "noveltybench.threshold", 0, 1));
      s.set_threshold(threshold);
    }
    ASSIGN_OR_RETURN(models.partition,
                     PartitionModel(Find(entries, "partition_model"), s.partitioner(), judge, embedder));
    if (models.partition.has_value()) s.set_partition_model(models.partition->name);

    if (const YAML::Node* n = Find(entries, "quality")) {
      ASSIGN_OR_RETURN(*s.mutable_quality(), fields_.String(*n, "noveltybench.quality", "reward or llm"));
    }
    if (s.quality() != kQualityReward && s.quality() != kQualityLlm) {
      return fields_.Error("noveltybench.quality", absl::StrCat("unknown quality scorer '", s.quality(), "'"),
                           "reward (a reward model, the reference's buckets) or llm (the judge's 1..10)");
    }
    ASSIGN_OR_RETURN(models.quality, QualityModel(Find(entries, "quality_model"), s.quality(), judge));
    s.set_quality_model(models.quality->name);

    if (const YAML::Node* n = Find(entries, "patience")) {
      ASSIGN_OR_RETURN(const double patience, fields_.Number(*n, "noveltybench.patience", 0, 100));
      s.set_patience(patience);
      if (patience <= 0) {
        return fields_.Error("noveltybench.patience", "0 is not greater than 0",
                             "a number greater than 0 (the reference uses 0.8)");
      }
    }
    nb.temperatures = top_temperatures;
    if (const YAML::Node* n = Find(entries, "temperatures")) {
      ASSIGN_OR_RETURN(nb.temperatures, Temperatures(*n, "noveltybench.temperatures"));
    }
    noveltybench::NoveltyPrompts wording = noveltybench::DefaultNoveltyPrompts();
    if (const YAML::Node* n = Find(entries, "prompts_file")) {
      constexpr char kPromptsFileExpected[] =
          "a JSON file with any of the keys in_context_followup, system_prompt, equivalence_judge, groups_judge, "
          "quality_judge";
      ASSIGN_OR_RETURN(std::string path, fields_.String(*n, "noveltybench.prompts_file", kPromptsFileExpected));
      nb.prompts_source = Resolve(path);
      absl::StatusOr<noveltybench::NoveltyPrompts> prompts = noveltybench::LoadNoveltyPrompts(nb.prompts_source);
      if (!prompts.ok()) return Wrap("noveltybench.prompts_file", prompts.status(), kPromptsFileExpected);
      wording = *std::move(prompts);
    }
    s.set_in_context_followup(wording.in_context_followup);
    s.set_system_prompt(wording.system_prompt);
    // Each LLM partitioner's wording only (it is part of the unit ids).
    if (s.partitioner() == kPartitionerLlmGroups) {
      s.set_groups_prompt(wording.groups_judge);
    } else {
      s.set_equivalence_prompt(wording.equivalence_judge);
    }
    s.set_quality_prompt(wording.quality_judge);
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
        {"partition_model", s.partition_model(), kDefaultClassifier, "partition",
         "a pair classifier endpoint (e.g. {name: deberta, provider: tei, model: ...}), "
         "another partitioner, or partition_model: sim:classifier to use the simulator on purpose"},
        {"quality_model", s.quality_model(), kDefaultRewardModel, "score",
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
                                                              int limit) const {
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

  absl::StatusOr<std::vector<std::string>> NoveltyModes(const YAML::Node& node) const {
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
                                                         const ModelRef& judge, const ModelRef& embedder) const {
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
      if (noveltybench::PartitionerUsesJudge(partitioner)) return std::optional<ModelRef>(judge);
      return std::optional<ModelRef>(
          ModelRef{"noveltybench.partitioner", kDefaultClassifier, "", "", "", 0, "", false});
    }
    ASSIGN_OR_RETURN(ModelRef ref, ParseModelRef(fields_, *node, kKey));
    if (ref.dimensions > 0 && partitioner != kPartitionerEmbedding) {
      return fields_.Error(JoinKey(kKey, "dimensions"), "applies to embedders only",
                           "dimensions only with partitioner: embedding");
    }
    if (!ref.extra_body_json.empty() && !noveltybench::PartitionerUsesJudge(partitioner)) {
      return fields_.Error(JoinKey(kKey, "extra_body"), "applies to chat models only",
                           "extra_body only with partitioner: llm or llm-groups");
    }
    return std::optional<ModelRef>(std::move(ref));
  }

  // The quality model: given, or the default for the quality scorer.
  absl::StatusOr<std::optional<ModelRef>> QualityModel(const YAML::Node* node, const std::string& quality,
                                                       const ModelRef& judge) const {
    constexpr char kKey[] = "noveltybench.quality_model";
    if (node == nullptr) {
      if (quality == kQualityLlm) return std::optional<ModelRef>(judge);
      return std::optional<ModelRef>(ModelRef{"noveltybench.quality", kDefaultRewardModel, "", "", "", 0, "", false});
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
  absl::Status CheckParaphrases(const NoveltyBenchConfig& nb) const {
    auto mode = std::find(nb.modes.begin(), nb.modes.end(), kModeParaphrase);
    if (mode == nb.modes.end()) return absl::OkStatus();
    const std::string key = absl::StrCat("noveltybench.modes[", mode - nb.modes.begin(), "]");
    for (const NoveltyDataset& d : nb.datasets) {
      for (const BenchPrompt& p : d.prompts) {
        if (static_cast<int>(p.paraphrases.size()) >= nb.settings.k()) continue;
        return fields_.Error(
            key,
            absl::StrCat("the paraphrase mode needs k = ", nb.settings.k(), " paraphrases per prompt but prompt '",
                         p.id, "' (dataset ", d.name, ") has ", p.paraphrases.size()),
            "prompts with at least k prompt_paraphrases (curated.jsonl has 10 each), a smaller k, or no "
            "paraphrase mode");
      }
    }
    return absl::OkStatus();
  }
};

}  // namespace

absl::StatusOr<NoveltyBenchConfig> ParseNoveltyBenchSection(const ConfigReader& reader, const YAML::Node& node,
                                                            const std::vector<double>& top_temperatures,
                                                            const std::vector<ModelSpec>& generators,
                                                            const ModelRef& judge, const ModelRef& embedder,
                                                            NoveltyHelperRefs& models) {
  return NoveltyBenchSection(reader).Parse(node, top_temperatures, generators, judge, embedder, models);
}

v1::NoveltySettings DefaultNoveltySettings() {
  v1::NoveltySettings s;
  s.set_k(10);
  s.set_max_tokens(512);
  s.set_ask_n(true);
  s.set_partitioner(kPartitionerClassifier);
  s.set_threshold(0.102);
  s.set_partition_model(kDefaultClassifier);
  s.set_quality(kQualityReward);
  s.set_quality_model(kDefaultRewardModel);
  s.set_patience(0.8);
  return s;
}

}  // namespace noveltygrid
