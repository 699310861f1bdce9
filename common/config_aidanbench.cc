// The `aidanbench:` section of the sweep config.
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/aidan_preset.h"
#include "common/config_sections.h"
#include "common/dataset.h"
#include "common/prompts.h"
#include "common/settings_proto.h"
#include "common/status_macros.h"

namespace noveltygrid {
namespace {

const std::vector<std::string>& AidanBenchKeys() {
  static const auto* const kKeys = new std::vector<std::string>{
      "questions",     "preset",      "templates",    "max_iterations",   "max_tokens",
      "judge_retries", "llm_novelty", "temperatures", "max_unit_seconds", "expected_iterations"};
  return *kKeys;
}

constexpr char kTemplatesExpected[] =
    "a readable JSON prompt-template file in the layout of "
    "../shared/data/aidanbench/prompts-reference.json";

class AidanBenchSection : private ConfigReader {
 public:
  explicit AidanBenchSection(const ConfigReader& reader) : ConfigReader(reader) {}

  absl::StatusOr<AidanBenchConfig> Parse(const YAML::Node& node, const std::vector<double>& top_temperatures) const {
    ASSIGN_OR_RETURN(auto entries, fields_.Entries(node, "aidanbench", AidanBenchKeys()));
    AidanBenchConfig aidan;
    v1::AidanSettings& s = aidan.settings;  // the benchmark settings (MakeAidanSettings copies them whole)

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
      ASSIGN_OR_RETURN(preset_name, fields_.String(*n, "aidanbench.preset", AidanPresetNames()));
    }
    absl::StatusOr<AidanPreset> preset = FindAidanPreset(preset_name);
    if (!preset.ok()) {
      return fields_.Error("aidanbench.preset", absl::StrCat("unknown preset '", preset_name, "'"),
                           absl::StrCat("one of: ", AidanPresetNames()));
    }
    s.set_preset(preset->name);

    PromptTemplates templates = DefaultPromptTemplates();
    if (const YAML::Node* n = Find(entries, "templates")) {
      ASSIGN_OR_RETURN(std::string templates_path, fields_.String(*n, "aidanbench.templates", kTemplatesExpected));
      aidan.templates_source = Resolve(templates_path);
      absl::StatusOr<PromptTemplates> loaded_templates = LoadPromptTemplates(aidan.templates_source);
      if (!loaded_templates.ok()) {
        return Wrap("aidanbench.templates", loaded_templates.status(), kTemplatesExpected);
      }
      templates = *std::move(loaded_templates);
    }
    ToProto(templates, s.mutable_templates());

    if (const YAML::Node* n = Find(entries, "max_iterations")) {
      ASSIGN_OR_RETURN(const int max_iterations, Int(*n, "aidanbench.max_iterations", 0));
      s.set_max_iterations(max_iterations);
    }
    if (const YAML::Node* n = Find(entries, "max_unit_seconds")) {
      ASSIGN_OR_RETURN(const double seconds, fields_.Number(*n, "aidanbench.max_unit_seconds", 0, 1e9));
      s.set_max_unit_seconds(seconds);
    }
    if (const YAML::Node* n = Find(entries, "max_tokens")) {
      ASSIGN_OR_RETURN(const int max_tokens, Int(*n, "aidanbench.max_tokens", 1));
      s.set_max_tokens(max_tokens);
    }
    if (const YAML::Node* n = Find(entries, "judge_retries")) {
      ASSIGN_OR_RETURN(const int judge_retries, Int(*n, "aidanbench.judge_retries", 0, 10));
      s.set_judge_retries(judge_retries);
    }
    if (const YAML::Node* n = Find(entries, "llm_novelty")) {
      ASSIGN_OR_RETURN(const bool llm_novelty, fields_.Bool(*n, "aidanbench.llm_novelty"));
      s.set_llm_novelty(llm_novelty);
    }
    if (const YAML::Node* n = Find(entries, "expected_iterations")) {
      ASSIGN_OR_RETURN(aidan.expected_iterations, ExpectedIterations(*n));
    }
    aidan.temperatures = top_temperatures;
    if (const YAML::Node* n = Find(entries, "temperatures")) {
      ASSIGN_OR_RETURN(aidan.temperatures, Temperatures(*n, "aidanbench.temperatures"));
    }

    // Combinations the templates cannot serve.
    if (preset->judge_scale_max == 10 && templates.coherence_judge_1_10.empty()) {
      return fields_.Error("aidanbench.preset",
                           absl::StrCat("preset ", preset->name, " needs a 1-10 coherence judge but the templates (",
                                        aidan.templates_source, ") have no coherence_judge_1_10"),
                           "templates with a coherence_judge_1_10 entry (or omit aidanbench.templates to use the "
                           "built-in ones), or preset reference-2025");
    }
    if (s.llm_novelty() && templates.similarity_judge.empty()) {
      return fields_.Error("aidanbench.llm_novelty",
                           absl::StrCat("the LLM similarity judge is on but the templates (", aidan.templates_source,
                                        ") have no similarity_judge"),
                           "templates with a similarity_judge entry, or llm_novelty: false");
    }
    return aidan;
  }

 private:
  // `expected_iterations: N` (every model) or `{MODEL: N, ...}`; "" keys the every-model value.
  absl::StatusOr<std::map<std::string, double>> ExpectedIterations(const YAML::Node& node) const {
    constexpr char kKey[] = "aidanbench.expected_iterations";
    std::map<std::string, double> out;
    if (!node.IsMap()) {
      ASSIGN_OR_RETURN(out[""], fields_.Number(node, kKey, 1, 1e6));
      return out;
    }
    for (const auto& entry : node) {
      const std::string model = entry.first.as<std::string>();
      ASSIGN_OR_RETURN(out[model], fields_.Number(entry.second, absl::StrCat(kKey, ".", model), 1, 1e6));
    }
    return out;
  }
};

}  // namespace

absl::StatusOr<AidanBenchConfig> ParseAidanBenchSection(const ConfigReader& reader, const YAML::Node& node,
                                                        const std::vector<double>& top_temperatures) {
  return AidanBenchSection(reader).Parse(node, top_temperatures);
}

v1::AidanSettings DefaultAidanSettings() {
  v1::AidanSettings s;
  s.set_max_tokens(4000);
  s.set_judge_retries(2);
  return s;
}

}  // namespace noveltygrid
