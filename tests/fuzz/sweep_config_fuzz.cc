// The sweep config loader (ParseSweepConfig, common/config.h) on any YAML, and the planner on the
// configs it accepts (PlanSweep, coordinator/plan/planner.h): a config is the first thing every command
// reads, often written by hand.
//
// The loader reads the files a config names (questions, prompt sets, template files), resolved against
// the config's folder. Here that folder is in this process's scratch folder, laid out like the
// repository (main/examples/sweep.yaml, main/datasets/..., shared/data/noveltybench/curated.jsonl, and
// short names q.jsonl, p.jsonl, t.json, w.json beside the config) with small files of each kind, so
// the examples' relative paths load. An input in which any string (after ${NAME} expansion) would name
// a path outside that folder, or holds a NUL, is skipped rather than parsed: nothing outside is read,
// and /dev/zero cannot make it run forever. ${NAME} gives fixed values (UNSET_* are unset).
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <set>
#include <string>

#include "absl/status/status.h"
#include "common/config.h"
#include "common/json_util.h"
#include "common/prompts.h"
#include "common/yaml_expansion.h"
#include "coordinator/plan/planner.h"
#include "tests/fuzz/fuzz_util.h"
#include "yaml-cpp/yaml.h"

namespace noveltygrid {
namespace {

namespace fs = std::filesystem;

// Units a plan may hold for the planner to be run on it (a config may ask for millions, legitimately).
constexpr double kMaxPlannedUnits = 20'000;

std::optional<std::string> Env(const std::string& name) {
  if (name.rfind("UNSET", 0) == 0) return std::nullopt;
  if (name == "SEED") return "7";
  if (name.size() >= 4 && name.compare(name.size() - 4, 4, "_URL") == 0) return "http://127.0.0.1:8700";
  return "fuzz-" + name;
}

// The folder the config and its files live in, made once.
const std::string& ConfigRoot() {
  static const std::string* const root = [] {
    const std::string dir = fuzz::ScratchDir() + "/config";
    const std::string questions =
        "{\"id\": \"q1\", \"question\": \"Why is the sky blue?\"}\n{\"id\": \"q2\", \"question\": \"Name a color.\"}\n";
    const std::string prompts =
        "{\"id\": \"p1\", \"prompt\": \"Tell me a joke.\", \"category\": \"humor\", \"prompt_paraphrases\": "
        "[\"Say something funny.\", \"Make me laugh.\"]}\n"
        "{\"id\": \"p2\", \"prompt\": \"Name a city.\", \"prompt_paraphrases\": [\"Pick a city.\", \"A city?\"]}\n";
    const PromptTemplates& t = DefaultPromptTemplates();
    const Json templates{{"generation_base", t.generation_base},
                         {"generation_instructions", t.generation_instructions},
                         {"generation_previous_block", t.generation_previous_block},
                         {"previous_answer_item", t.previous_answer_item},
                         {"previous_answers_separator", t.previous_answers_separator},
                         {"coherence_judge", t.coherence_judge},
                         {"coherence_judge_1_10", t.coherence_judge_1_10},
                         {"similarity_judge", t.similarity_judge}};
    const std::string wording =
        "{\"system_prompt\": \"Be original.\", \"quality_judge\": \"Rate {response} to {prompt}: "
        "<coherence_score>N</coherence_score>\"}\n";
    fuzz::WriteFileOrDie(dir + "/main/examples/q.jsonl", questions);
    fuzz::WriteFileOrDie(dir + "/main/examples/p.jsonl", prompts);
    fuzz::WriteFileOrDie(dir + "/main/examples/t.json", DumpJson(templates));
    fuzz::WriteFileOrDie(dir + "/main/examples/w.json", wording);
    fuzz::WriteFileOrDie(dir + "/main/datasets/aidanbench/questions-paper-65.jsonl", questions);
    fuzz::WriteFileOrDie(dir + "/main/datasets/noveltybench/prompts-own-20.jsonl", prompts);
    fuzz::WriteFileOrDie(dir + "/shared/data/noveltybench/curated.jsonl", prompts);
    return new std::string(dir);
  }();
  return *root;
}

// `text` with each ${NAME} replaced as the loader replaces it (an unset or malformed one left as is:
// the loader refuses the value then).
std::string Expanded(const std::string& text) {
  std::string out;
  size_t i = 0;
  for (size_t start; (start = text.find("${", i)) != std::string::npos;) {
    const size_t end = text.find('}', start + 2);
    if (end == std::string::npos) break;
    const std::optional<std::string> value = Env(text.substr(start + 2, end - start - 2));
    out.append(text, i, start - i);
    out += value.value_or(text.substr(start, end + 1 - start));
    i = end + 1;
  }
  return out.append(text, i, std::string::npos);
}

// Whether every scalar of the tree, read as a path relative to `config_dir` the way the loader
// resolves one, stays inside `root`.
bool StaysInside(const YAML::Node& node, const fs::path& config_dir, const std::string& root) {
  if (node.IsScalar()) {
    const std::string value = Expanded(node.Scalar());
    if (value.find('\0') != std::string::npos) return false;
    const std::string resolved = (config_dir / value).lexically_normal().string();
    return resolved == root || resolved.rfind(root + "/", 0) == 0;
  }
  for (const auto& entry : node) {
    if (node.IsMap() ? !StaysInside(entry.first, config_dir, root) || !StaysInside(entry.second, config_dir, root)
                     : !StaysInside(entry, config_dir, root)) {
      return false;
    }
  }
  return true;
}

// Whether the loader may be given `text` (see the file comment).
bool SafeToLoad(const std::string& text, const fs::path& config_dir, const std::string& root) {
  YAML::Node tree;
  try {
    tree = YAML::Load(text);
  } catch (const YAML::Exception&) {
    return true;  // the loader refuses it before reading any file
  }
  if (CheckYamlExpansion(text).has_value()) return true;  // the same
  return StaysInside(tree, config_dir, root);
}

void CheckConfig(const SweepConfig& config) {
  FUZZ_CHECK(!config.models.empty() && !config.temperatures.empty());
  FUZZ_CHECK(config.aidanbench.has_value() || config.noveltybench.has_value());
  std::set<std::string> models;
  for (const ModelSpec& m : config.models) FUZZ_CHECK(models.insert(m.name).second, m.name);
  for (double t : config.temperatures) FUZZ_CHECK(t >= 0 && t <= 2);
  FUZZ_CHECK(config.repeats >= 1 && config.concurrency >= 1);
  double units = 0;
  if (config.aidanbench.has_value()) {
    FUZZ_CHECK(!config.aidanbench->questions.empty());
    units += static_cast<double>(config.aidanbench->temperatures.size() * config.aidanbench->questions.size());
  }
  if (config.noveltybench.has_value()) {
    FUZZ_CHECK(!config.noveltybench->datasets.empty() && !config.noveltybench->modes.empty());
    for (const NoveltyDataset& d : config.noveltybench->datasets) {
      FUZZ_CHECK(!d.prompts.empty());
      units += static_cast<double>(config.noveltybench->temperatures.size() * config.noveltybench->modes.size() *
                                   d.prompts.size());
    }
  }
  units *= static_cast<double>(config.models.size()) * config.repeats;
  if (units > kMaxPlannedUnits) return;
  const Plan plan = PlanSweep(config);
  std::set<std::string> ids;
  for (size_t i = 0; i < plan.units.size(); ++i) {
    FUZZ_CHECK(ids.insert(plan.units[i].id).second, "two units share the id " + plan.units[i].id);
    FUZZ_CHECK(plan.units[i].index == static_cast<int>(i));
  }
}

}  // namespace
}  // namespace noveltygrid

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace noveltygrid;
  const std::string& root = ConfigRoot();
  const fs::path config_dir = root + "/main/examples";
  const std::string text(fuzz::AsText(data, size));
  if (!SafeToLoad(text, config_dir, root)) return 0;
  const absl::StatusOr<SweepConfig> config = ParseSweepConfig(text, (config_dir / "sweep.yaml").string(), Env);
  if (!config.ok()) {
    FUZZ_CHECK(absl::IsInvalidArgument(config.status()), config.status().ToString());
    return 0;
  }
  CheckConfig(*config);
  return 0;
}
