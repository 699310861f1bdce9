#include "common/config.h"

#include <cstdlib>
#include <filesystem>

#include "common/json_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/common/test_files.h"

namespace noveltygrid {
namespace {

using ::noveltygrid::testing_files::SharedData;
using ::noveltygrid::testing_files::TempDir;
using ::testing::AllOf;
using ::testing::HasSubstr;

const std::string kPaperQuestions = SharedData("aidanbench/questions-paper-65.jsonl");
const std::string kReferenceTemplates = SharedData("aidanbench/prompts-reference.json");

// A minimal valid config with absolute data paths, plus `extra` at the end.
std::string Config(const std::string& extra = "") {
  return "models: [sim:explorer, sim:steady]\n"
         "temperatures: [0.2, 0.7]\n"
         "aidanbench:\n"
         "  questions: " +
         kPaperQuestions + "\n" + extra;
}

std::string MessageOf(const absl::Status& status) { return std::string(status.message()); }

absl::Status ParseStatus(const std::string& text, const std::string& path = "examples/bad.yaml") {
  return ParseSweepConfig(text, path).status();
}

// The error message of parsing `text` as `path` ("" when it parses).
std::string ParseError(const std::string& text, const std::string& path = "examples/bad.yaml") {
  return MessageOf(ParseStatus(text, path));
}

TEST(FindAidanPresetTest, KnownPresets) {
  auto reference = FindAidanPreset("reference-2025");
  ASSERT_TRUE(reference.ok()) << reference.status();
  EXPECT_EQ(reference->judge_scale_max, 100);
  EXPECT_EQ(reference->stop_coherence_at_most, 15);
  EXPECT_EQ(reference->stop_novelty_below, 0.15);
  EXPECT_EQ(reference->valid_coherence_below, 15);
  EXPECT_EQ(reference->valid_novelty_below, 0.15);

  auto paper = FindAidanPreset("paper-2024");
  ASSERT_TRUE(paper.ok()) << paper.status();
  EXPECT_EQ(paper->judge_scale_max, 10);
  EXPECT_EQ(paper->stop_coherence_at_most, 3);
  EXPECT_EQ(paper->stop_novelty_below, 0.1);
  EXPECT_EQ(paper->valid_coherence_below, 4);  // integer judge: <= 3 is invalid
  EXPECT_EQ(paper->valid_novelty_below, 0.1);

  auto unknown = FindAidanPreset("paper-2023");
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(MessageOf(unknown.status()), AllOf(HasSubstr("paper-2023"), HasSubstr("reference-2025, paper-2024")));
}

TEST(SweepConfigTest, GoodConfigParsesWithDefaults) {
  auto config = ParseSweepConfig(Config(), "/some/where/quick.yaml");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->path, "/some/where/quick.yaml");
  EXPECT_EQ(config->name, "quick");
  EXPECT_EQ(config->seed, 0u);
  ASSERT_EQ(config->models.size(), 2u);
  EXPECT_EQ(config->models[0].name, "sim:explorer");
  EXPECT_EQ(config->models[1].name, "sim:steady");
  EXPECT_EQ(config->temperatures, (std::vector<double>{0.2, 0.7}));
  EXPECT_EQ(config->judge, "sim:judge");
  EXPECT_EQ(config->embedder, "lexical");
  EXPECT_EQ(config->concurrency, 16);
  ASSERT_TRUE(config->aidanbench.has_value());
  const AidanBenchConfig& aidan = *config->aidanbench;
  EXPECT_EQ(aidan.questions_path, kPaperQuestions);
  ASSERT_EQ(aidan.questions.size(), 65u);
  EXPECT_EQ(aidan.questions[0].id, "aidan-01");
  EXPECT_EQ(aidan.preset.name, "reference-2025");
  EXPECT_EQ(aidan.templates_source, "builtin");
  EXPECT_EQ(aidan.templates.generation_base, DefaultPromptTemplates().generation_base);
  EXPECT_EQ(aidan.max_iterations, 0);
  EXPECT_EQ(aidan.max_tokens, 4000);
  EXPECT_EQ(aidan.judge_retries, 2);
  EXPECT_FALSE(aidan.llm_novelty);
  EXPECT_EQ(aidan.temperatures, config->temperatures);
}

TEST(SweepConfigTest, EveryKeySet) {
  auto config = ParseSweepConfig(
      "name: full\nseed: 7\n"
      "models:\n  - sim:explorer\n  - {name: sim:collapse}\n"
      "temperatures: [0, 1.2, 2]\njudge: sim:strict\nembedder: lexical-32\nconcurrency: 3\n"
      "aidanbench:\n"
      "  questions: " +
          kPaperQuestions +
          "\n"
          "  preset: paper-2024\n"
          "  max_iterations: 25\n  max_tokens: 512\n  judge_retries: 0\n  llm_novelty: true\n"
          "  temperatures: [0.7]\n",
      "x.yaml");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->name, "full");
  EXPECT_EQ(config->seed, 7u);
  EXPECT_EQ(config->models[1].name, "sim:collapse");
  EXPECT_EQ(config->temperatures, (std::vector<double>{0, 1.2, 2}));
  EXPECT_EQ(config->judge, "sim:strict");
  EXPECT_EQ(config->embedder, "lexical-32");
  EXPECT_EQ(config->concurrency, 3);
  const AidanBenchConfig& aidan = *config->aidanbench;
  EXPECT_EQ(aidan.preset.name, "paper-2024");  // the built-in templates have a 1-10 judge
  EXPECT_EQ(aidan.max_iterations, 25);
  EXPECT_EQ(aidan.max_tokens, 512);
  EXPECT_EQ(aidan.judge_retries, 0);
  EXPECT_TRUE(aidan.llm_novelty);
  EXPECT_EQ(aidan.temperatures, (std::vector<double>{0.7}));
}

TEST(SweepConfigTest, ReferenceTemplatesLoadFromAPath) {
  auto config = ParseSweepConfig(Config("  templates: " + kReferenceTemplates + "\n"), "x.yaml");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->aidanbench->templates_source, kReferenceTemplates);
  EXPECT_TRUE(config->aidanbench->templates.generation_base.starts_with("Answer the following question:."));
}

TEST(SweepConfigTest, UnknownTopLevelKey) {
  const absl::Status status = ParseStatus(Config("temprature: 0.5\n"));
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(MessageOf(status), HasSubstr("examples/bad.yaml: temprature: unknown key (did you mean 'temperatures'?); "
                                           "expected one of: name, seed, models, temperatures, judge, embedder, "
                                           "concurrency, aidanbench, noveltybench"));
}

TEST(SweepConfigTest, UnknownNestedKey) {
  const absl::Status status = ParseStatus(Config("  foo: 1\n"));
  EXPECT_EQ(MessageOf(status),
            "examples/bad.yaml: aidanbench.foo: unknown key; expected one of: questions, preset, "
            "templates, max_iterations, max_tokens, judge_retries, llm_novelty, temperatures");
  EXPECT_THAT(ParseError("models: [{name: a, size: 3}]\ntemperatures: [1]\n"),
              HasSubstr("examples/bad.yaml: models[0].size: unknown key; expected one of: name"));
}

TEST(SweepConfigTest, RepeatedKey) {
  EXPECT_THAT(ParseError(Config("seed: 1\nseed: 2\n")),
              HasSubstr("examples/bad.yaml: seed: appears twice; expected each key at most once"));
}

TEST(SweepConfigTest, NoModels) {
  EXPECT_EQ(ParseError("temperatures: [0.7]\naidanbench: {questions: q.jsonl}\n"),
            "examples/bad.yaml: models: missing; expected a non-empty list of model names");
}

TEST(SweepConfigTest, EmptyModelsList) {
  EXPECT_EQ(ParseError("models: []\ntemperatures: [0.7]\n"),
            "examples/bad.yaml: models: is an empty list; expected a non-empty list of model names");
  EXPECT_THAT(ParseError("models: sim:explorer\ntemperatures: [0.7]\n"),
              HasSubstr("examples/bad.yaml: models: is 'sim:explorer'; expected a non-empty list"));
}

TEST(SweepConfigTest, DuplicateModel) {
  EXPECT_THAT(ParseError("models: [a, b, {name: a}]\ntemperatures: [0.7]\n"),
              HasSubstr("examples/bad.yaml: models[2]: a is listed twice (also models[0]); expected "
                        "distinct model names"));
}

TEST(SweepConfigTest, TemperatureAboveTwo) {
  EXPECT_EQ(ParseError("models: [a]\ntemperatures: [0.7, 2.5]\n"),
            "examples/bad.yaml: temperatures[1]: 2.5 is outside [0, 2]; expected a number between 0 "
            "and 2");
}

TEST(SweepConfigTest, NegativeTemperature) {
  EXPECT_EQ(ParseError("models: [a]\ntemperatures: [-0.5]\n"),
            "examples/bad.yaml: temperatures[0]: -0.5 is outside [0, 2]; expected a number between 0 "
            "and 2");
}

TEST(SweepConfigTest, OtherTemperatureErrors) {
  EXPECT_THAT(ParseError("models: [a]\ntemperatures: [0.7, hot]\n"),
              HasSubstr("examples/bad.yaml: temperatures[1]: 'hot' is not a number; expected a number "
                        "between 0 and 2"));
  EXPECT_THAT(ParseError("models: [a]\ntemperatures: [0.7, 0.70]\n"),
              HasSubstr("examples/bad.yaml: temperatures[1]: 0.7 is listed twice (also "
                        "temperatures[0]); expected distinct temperatures"));
  EXPECT_THAT(ParseError("models: [a]\n"),
              HasSubstr("examples/bad.yaml: temperatures: missing; expected a non-empty list"));
  EXPECT_THAT(ParseError(Config("  temperatures: [3]\n")),
              HasSubstr("examples/bad.yaml: aidanbench.temperatures[0]: 3 is outside [0, 2]"));
}

TEST(SweepConfigTest, IntegerAndBooleanErrors) {
  EXPECT_THAT(ParseError(Config() + "concurrency: 0\n"),
              HasSubstr("examples/bad.yaml: concurrency: 0 is out of range; expected an integer >= 1"));
  EXPECT_THAT(ParseError(Config() + "seed: -1\n"),
              HasSubstr("examples/bad.yaml: seed: '-1' is not a non-negative integer; expected a "
                        "non-negative integer"));
  EXPECT_THAT(ParseError(Config("  judge_retries: 11\n")),
              HasSubstr("examples/bad.yaml: aidanbench.judge_retries: 11 is out of range; expected an "
                        "integer between 0 and 10"));
  EXPECT_THAT(ParseError(Config("  max_tokens: 1.5\n")),
              HasSubstr("examples/bad.yaml: aidanbench.max_tokens: '1.5' is not an integer"));
  EXPECT_THAT(ParseError(Config("  llm_novelty: maybe\n")),
              HasSubstr("examples/bad.yaml: aidanbench.llm_novelty: 'maybe' is not a boolean; expected "
                        "true or false"));
  EXPECT_THAT(ParseError(Config() + "judge: [a, b]\n"),
              HasSubstr("examples/bad.yaml: judge: is a list; expected a model name"));
}

TEST(SweepConfigTest, EmptyQuestionsFile) {
  TempDir dir;
  const std::string questions = dir.Write("empty.jsonl", "");
  const std::string config_path =
      dir.Write("sweep.yaml", "models: [a]\ntemperatures: [0.7]\naidanbench:\n  questions: empty.jsonl\n");
  const absl::Status status = LoadSweepConfig(config_path).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(MessageOf(status),
              AllOf(HasSubstr(config_path + ": aidanbench.questions: " + questions + ": no questions"),
                    HasSubstr("expected one JSON object per line")));
}

TEST(SweepConfigTest, MissingQuestionsFile) {
  TempDir dir;
  const std::string config_path =
      dir.Write("sweep.yaml", "models: [a]\ntemperatures: [0.7]\naidanbench:\n  questions: nowhere.jsonl\n");
  const absl::Status status = LoadSweepConfig(config_path).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(MessageOf(status), AllOf(HasSubstr(config_path + ": aidanbench.questions: cannot read " +
                                                 (dir.path() / "nowhere.jsonl").string()),
                                       HasSubstr("; expected a JSONL file of {\"id\": ..., \"question\": ...} lines")));
  EXPECT_THAT(ParseError("models: [a]\ntemperatures: [0.7]\naidanbench: {preset: paper-2024}\n"),
              HasSubstr("examples/bad.yaml: aidanbench.questions: missing; expected a JSONL file"));
}

TEST(SweepConfigTest, UnreadableTemplateFile) {
  TempDir dir;
  const std::string config_path = dir.Write("sweep.yaml", Config("  templates: prompts/mine.json\n"));
  const absl::Status status = LoadSweepConfig(config_path).status();
  EXPECT_THAT(MessageOf(status), AllOf(HasSubstr(config_path + ": aidanbench.templates: cannot read " +
                                                 (dir.path() / "prompts/mine.json").string()),
                                       HasSubstr("; expected a readable JSON prompt-template file")));

  dir.Write("prompts/mine.json", "{\"generation_base\": 3}");
  EXPECT_THAT(MessageOf(LoadSweepConfig(config_path).status()),
              HasSubstr(config_path + ": aidanbench.templates: " + (dir.path() / "prompts/mine.json").string() +
                        ": generation_base: is a number"));
}

TEST(SweepConfigTest, MissingEnvironmentVariable) {
  const EnvLookup no_env = [](const std::string&) { return std::nullopt; };
  const absl::Status status =
      ParseSweepConfig(Config() + "judge: ${NG_TEST_JUDGE}\n", "examples/bad.yaml", no_env).status();
  EXPECT_EQ(MessageOf(status),
            "examples/bad.yaml: judge: environment variable NG_TEST_JUDGE is not set; expected "
            "NG_TEST_JUDGE to be set in the environment (the value refers to ${NG_TEST_JUDGE})");
  EXPECT_THAT(MessageOf(ParseSweepConfig(Config() + "judge: ${not closed\n", "examples/bad.yaml", no_env).status()),
              HasSubstr("examples/bad.yaml: judge: '${not closed' has a malformed ${...} reference"));
}

TEST(SweepConfigTest, EnvironmentExpansion) {
  const EnvLookup env = [](const std::string& name) -> std::optional<std::string> {
    if (name == "JUDGE") return "sim:judge-b";
    if (name == "SEED") return "99";
    if (name == "T") return "0.9";
    if (name == "TRICKY") return "${SEED}";  // values are not expanded again
    return std::nullopt;
  };
  auto config = ParseSweepConfig(
      "models: ['sim:x-${JUDGE}-y', 'sim:${TRICKY}']\ntemperatures:\n  - ${T}\nseed: ${SEED}\njudge: ${JUDGE}\n"
      "aidanbench:\n  questions: " +
          kPaperQuestions + "\n",
      "e.yaml", env);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->models[0].name, "sim:x-sim:judge-b-y");
  EXPECT_EQ(config->models[1].name, "sim:${SEED}");
  EXPECT_EQ(config->temperatures, (std::vector<double>{0.9}));
  EXPECT_EQ(config->seed, 99u);
  EXPECT_EQ(config->judge, "sim:judge-b");
}

TEST(SweepConfigTest, ProcessEnvironmentIsTheDefaultLookup) {
  ASSERT_EQ(::setenv("NG_COMMON_TEST_EMBEDDER", "lexical-64", 1), 0);
  auto config = ParseSweepConfig(Config() + "embedder: ${NG_COMMON_TEST_EMBEDDER}\n", "e.yaml");
  ::unsetenv("NG_COMMON_TEST_EMBEDDER");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->embedder, "lexical-64");
}

TEST(SweepConfigTest, BadYamlSyntax) {
  const absl::Status status = ParseStatus("models: [a, b\ntemperatures: [0.7]\n");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(MessageOf(status), AllOf(HasSubstr("examples/bad.yaml: line 2, column"), HasSubstr("invalid YAML"),
                                       HasSubstr("; expected valid YAML syntax")));
  EXPECT_THAT(ParseError(""), HasSubstr("examples/bad.yaml: the file is empty; expected a map with keys name, seed"));
  EXPECT_THAT(ParseError("- a\n- b\n"),
              HasSubstr("examples/bad.yaml: the document is a list; expected a map (keys: name, seed"));
}

TEST(SweepConfigTest, Paper2024WithReferenceTemplates) {
  const absl::Status status = ParseStatus(Config("  preset: paper-2024\n  templates: " + kReferenceTemplates + "\n"));
  EXPECT_THAT(MessageOf(status), AllOf(HasSubstr("examples/bad.yaml: aidanbench.preset: preset paper-2024 needs a 1-10 "
                                                 "coherence judge but the templates (" +
                                                 kReferenceTemplates + ") have no coherence_judge_1_10"),
                                       HasSubstr("; expected templates with a coherence_judge_1_10 entry")));
}

TEST(SweepConfigTest, UnknownPreset) {
  EXPECT_THAT(ParseError(Config("  preset: paper-2023\n")),
              HasSubstr("examples/bad.yaml: aidanbench.preset: unknown preset 'paper-2023'; expected "
                        "one of: reference-2025, paper-2024"));
}

TEST(SweepConfigTest, LlmNoveltyNeedsASimilarityJudge) {
  TempDir dir;
  std::string templates = "{";
  for (const char* key : {"generation_base", "generation_previous_block", "previous_answer_item", "coherence_judge"}) {
    templates += std::string("\"") + key + "\": \"{question}{previous_answers}{answer}\", ";
  }
  templates += "\"generation_instructions\": \"\", \"previous_answers_separator\": \"\\n\"}";
  const std::string templates_path = dir.Write("t.json", templates);
  const absl::Status status = ParseStatus(Config("  llm_novelty: true\n  templates: " + templates_path + "\n"));
  EXPECT_THAT(MessageOf(status), HasSubstr("examples/bad.yaml: aidanbench.llm_novelty: the LLM "
                                           "similarity judge is on but the templates"));
  EXPECT_THAT(MessageOf(status), HasSubstr("expected templates with a similarity_judge entry"));
}

TEST(SweepConfigTest, BenchmarkSections) {
  EXPECT_EQ(ParseError("models: [a]\ntemperatures: [0.7]\n"),
            "examples/bad.yaml: no benchmark section; expected an aidanbench or noveltybench section (or both)");
  auto both = ParseSweepConfig(Config() + "noveltybench: {prompts: " + SharedData("noveltybench/curated.jsonl") + "}\n",
                               "x.yaml");
  ASSERT_TRUE(both.ok()) << both.status();
  EXPECT_TRUE(both->aidanbench.has_value());
  EXPECT_TRUE(both->noveltybench.has_value());
  EXPECT_THAT(ParseError("models: [a]\ntemperatures: [0.7]\naidanbench:\n"),
              HasSubstr("examples/bad.yaml: aidanbench: is empty; expected a map (keys: questions, "));
}

TEST(SweepConfigTest, RelativePathsResolveAgainstTheConfigFolder) {
  TempDir dir;
  dir.Write("data/q.jsonl", "{\"id\": \"q1\", \"question\": \"Why?\"}\n");
  std::string templates = std::string("{\"coherence_judge_1_10\": \"1 to 10 <answer>{answer}</answer>\", ");
  templates +=
      "\"generation_base\": \"<question>{question}</question>\", \"generation_instructions\": \"\", "
      "\"generation_previous_block\": \"{previous_answers}\", \"previous_answer_item\": "
      "\"{answer}\", \"previous_answers_separator\": \"\", \"coherence_judge\": \"{answer}\"}";
  dir.Write("prompts/t.json", templates);
  const std::string config_path =
      dir.Write("configs/sweep.yaml",
                "models: [sim:a]\ntemperatures: [0.7]\naidanbench:\n  questions: ../data/q.jsonl\n"
                "  templates: ../prompts/t.json\n  preset: paper-2024\n");
  auto config = LoadSweepConfig(config_path);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->name, "sweep");
  EXPECT_EQ(config->aidanbench->questions_path, (dir.path() / "data/q.jsonl").string());
  EXPECT_EQ(config->aidanbench->templates_source, (dir.path() / "prompts/t.json").string());
  ASSERT_EQ(config->aidanbench->questions.size(), 1u);
  EXPECT_EQ(config->aidanbench->questions[0].text, "Why?");
  EXPECT_EQ(config->aidanbench->templates.CoherencePrompt("q", "A", 10), "1 to 10 <answer>A</answer>");
}

TEST(SweepConfigTest, RelativeConfigPathResolvesAgainstTheWorkingDirectory) {
  TempDir dir;
  dir.Write("cfg/q.jsonl", "{\"id\": \"q1\", \"question\": \"Why?\"}\n");
  const std::filesystem::path old_cwd = std::filesystem::current_path();
  std::filesystem::current_path(dir.path());
  auto config =
      ParseSweepConfig("models: [sim:a]\ntemperatures: [1]\naidanbench: {questions: q.jsonl}\n", "cfg/s.yaml");
  std::filesystem::current_path(old_cwd);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->aidanbench->questions_path, (dir.path() / "cfg/q.jsonl").string());
}

TEST(SweepConfigTest, MissingConfigFile) {
  const absl::Status status = LoadSweepConfig("/nonexistent/dir/sweep.yaml").status();
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(MessageOf(status), HasSubstr("/nonexistent/dir/sweep.yaml"));
}

// --- The noveltybench: section ------------------------------------------------------------------

const std::string kCurated = SharedData("noveltybench/curated.jsonl");

// A NoveltyBench-only config over the curated prompts, plus `extra` lines inside the section.
std::string NoveltyConfig(const std::string& extra = "", const std::string& top = "") {
  return "models: [sim:explorer, sim:steady]\n"
         "temperatures: [0.7, 1.0]\n" +
         top +
         "noveltybench:\n"
         "  prompts: " +
         kCurated + "\n" + extra;
}

// Three prompts without paraphrases, as a wildchat-like file.
std::string WriteWildchat(const TempDir& dir) {
  return dir.Write("wildchat.jsonl",
                   "{\"id\": \"w0\", \"prompt\": \"Name a colour.\"}\n"
                   "{\"id\": \"w1\", \"prompt\": \"Name a fruit.\"}\n"
                   "{\"id\": \"w2\", \"prompt\": \"Name a city.\"}\n");
}

TEST(NoveltyBenchConfigTest, DefaultsFromAPromptsFile) {
  auto config = ParseSweepConfig(NoveltyConfig(), "x.yaml");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_FALSE(config->aidanbench.has_value());
  ASSERT_TRUE(config->noveltybench.has_value());
  const NoveltyBenchConfig& nb = *config->noveltybench;
  ASSERT_EQ(nb.datasets.size(), 1u);
  EXPECT_EQ(nb.datasets[0].name, "curated");  // the file's stem
  EXPECT_EQ(nb.datasets[0].path, kCurated);
  ASSERT_EQ(nb.datasets[0].prompts.size(), 100u);
  EXPECT_EQ(nb.datasets[0].prompts[0].id, "curated-0");
  EXPECT_EQ(nb.limit, 0);
  EXPECT_EQ(nb.modes, std::vector<std::string>{"standard"});
  EXPECT_EQ(nb.k, 10);
  EXPECT_EQ(nb.max_tokens, 512);
  EXPECT_TRUE(nb.ask_n);
  EXPECT_EQ(nb.partitioner, "classifier");
  EXPECT_EQ(nb.threshold, 0.102);
  EXPECT_EQ(nb.partition_model, "sim:classifier");
  EXPECT_EQ(nb.quality, "reward");
  EXPECT_EQ(nb.quality_model, "sim:reward");
  EXPECT_EQ(nb.patience, 0.8);
  EXPECT_EQ(nb.temperatures, (std::vector<double>{0.7, 1.0}));
  EXPECT_EQ(nb.prompts_source, "builtin");
  EXPECT_EQ(nb.prompts.system_prompt, noveltybench::DefaultNoveltyPrompts().system_prompt);
  EXPECT_EQ(nb.prompts.quality_judge, noveltybench::DefaultNoveltyPrompts().quality_judge);
  EXPECT_TRUE(config->endpoints.empty());  // the simulated scorers run in-process
}

TEST(NoveltyBenchConfigTest, EveryKeySet) {
  TempDir dir;
  const std::string wildchat = WriteWildchat(dir);
  const std::string prompts_file = dir.Write("nb-prompts.json", "{\"system_prompt\": \"Be original.\"}");
  auto config = ParseSweepConfig(
      "models: [sim:explorer]\ntemperatures: [0.7]\njudge: sim:strict\n"
      "noveltybench:\n"
      "  datasets: {wildchat: " +
          wildchat + ", curated: " + kCurated +
          "}\n"
          "  limit: 2\n  modes: [system-prompt, in-context]\n  k: 4\n  max_tokens: 100\n  ask_n: false\n"
          "  partitioner: unigram\n  threshold: 0.5\n  quality: llm\n  patience: 0.5\n  temperatures: [1.0, 0.2]\n"
          "  prompts_file: " +
          prompts_file + "\n",
      "x.yaml");
  ASSERT_TRUE(config.ok()) << config.status();
  const NoveltyBenchConfig& nb = *config->noveltybench;
  ASSERT_EQ(nb.datasets.size(), 2u);
  EXPECT_EQ(nb.datasets[0].name, "wildchat");  // config order, not sorted
  EXPECT_EQ(nb.datasets[1].name, "curated");
  ASSERT_EQ(nb.datasets[0].prompts.size(), 2u);  // limit: the first two of each
  ASSERT_EQ(nb.datasets[1].prompts.size(), 2u);
  EXPECT_EQ(nb.datasets[1].prompts[1].id, "curated-1");
  EXPECT_EQ(nb.modes, (std::vector<std::string>{"system-prompt", "in-context"}));
  EXPECT_EQ(nb.k, 4);
  EXPECT_EQ(nb.max_tokens, 100);
  EXPECT_FALSE(nb.ask_n);
  EXPECT_EQ(nb.partitioner, "unigram");
  EXPECT_EQ(nb.threshold, 0.5);
  EXPECT_EQ(nb.partition_model, "");  // unigram needs none
  EXPECT_EQ(nb.quality, "llm");
  EXPECT_EQ(nb.quality_model, "sim:strict");  // the top-level judge
  EXPECT_EQ(nb.patience, 0.5);
  EXPECT_EQ(nb.temperatures, (std::vector<double>{1.0, 0.2}));
  EXPECT_EQ(nb.prompts_source, prompts_file);
  EXPECT_EQ(nb.prompts.system_prompt, "Be original.");
  EXPECT_EQ(nb.prompts.in_context_followup, noveltybench::DefaultNoveltyPrompts().in_context_followup);
}

TEST(NoveltyBenchConfigTest, EachPartitionerHasItsDefaultThresholdAndModel) {
  struct Case {
    std::string partitioner;
    double threshold;
    std::string model;
  };
  for (const Case& c : {Case{"classifier", 0.102, "sim:classifier"}, Case{"unigram", 0.458, ""},
                        Case{"embedding", 0.9, "lexical-64"}, Case{"llm", 0.5, "sim:strict"}}) {
    auto config = ParseSweepConfig(
        NoveltyConfig("  partitioner: " + c.partitioner + "\n", "judge: sim:strict\nembedder: lexical-64\n"), "x.yaml");
    ASSERT_TRUE(config.ok()) << c.partitioner << ": " << config.status();
    EXPECT_EQ(config->noveltybench->threshold, c.threshold) << c.partitioner;
    EXPECT_EQ(config->noveltybench->partition_model, c.model) << c.partitioner;
  }
  auto given = ParseSweepConfig(NoveltyConfig("  partitioner: embedding\n  partition_model: lexical-16\n"), "x.yaml");
  ASSERT_TRUE(given.ok()) << given.status();
  EXPECT_EQ(given->noveltybench->partition_model, "lexical-16");
}

// The simulated scorers are defaults for simulated generators only: a real model's generations are
// never partitioned or scored by them unless the config says so.
TEST(NoveltyBenchConfigTest, RealGeneratorsNeedScorersNamedOnPurpose) {
  const std::string top =
      "models: [sim:explorer, openai:gpt-4o]\ntemperatures: [1.0]\nnoveltybench:\n  prompts: " + kCurated + "\n";
  EXPECT_THAT(ParseError(top),
              HasSubstr("noveltybench.partition_model: not set, so the simulated sim:classifier would partition "
                        "the generations of the real model 'openai:gpt-4o'"));
  EXPECT_THAT(ParseError(top + "  partitioner: unigram\n"),
              HasSubstr("noveltybench.quality_model: not set, so the simulated sim:reward would score"));
  auto on_purpose =
      ParseSweepConfig(top + "  partition_model: sim:classifier\n  quality_model: sim:reward\n", "x.yaml");
  EXPECT_TRUE(on_purpose.ok()) << on_purpose.status();
  auto simulated = ParseSweepConfig(
      "models: [sim:explorer]\ntemperatures: [1.0]\nnoveltybench:\n  prompts: " + kCurated + "\n", "x.yaml");
  EXPECT_TRUE(simulated.ok()) << simulated.status();
}

TEST(NoveltyBenchConfigTest, ParaphraseModeNeedsKParaphrasesPerPrompt) {
  auto curated = ParseSweepConfig(NoveltyConfig("  modes: [standard, paraphrase]\n"), "x.yaml");
  ASSERT_TRUE(curated.ok()) << curated.status();  // curated.jsonl has 10 per prompt
  EXPECT_EQ(curated->noveltybench->modes, (std::vector<std::string>{"standard", "paraphrase"}));
  EXPECT_EQ(ParseError(NoveltyConfig("  modes: [standard, paraphrase]\n  k: 11\n")),
            "examples/bad.yaml: noveltybench.modes[1]: the paraphrase mode needs k = 11 paraphrases per "
            "prompt but prompt 'curated-0' (dataset curated) has 10; expected prompts with at least k "
            "prompt_paraphrases (curated.jsonl has 10 each), a smaller k, or no paraphrase mode");
  TempDir dir;
  const std::string wildchat = WriteWildchat(dir);
  EXPECT_THAT(ParseError("models: [a]\ntemperatures: [1]\nnoveltybench:\n  datasets: {curated: " + kCurated +
                         ", wildchat: " + wildchat + "}\n  modes: [paraphrase]\n"),
              HasSubstr("noveltybench.modes[0]: the paraphrase mode needs k = 10 paraphrases per prompt but "
                        "prompt 'w0' (dataset wildchat) has 0"));
}

TEST(NoveltyBenchConfigTest, BadValuesAreRefusedWithTheKey) {
  EXPECT_EQ(ParseError("models: [a]\ntemperatures: [1]\nnoveltybench: {k: 3}\n"),
            "examples/bad.yaml: noveltybench.prompts: missing; expected prompts: FILE or datasets: "
            "{NAME: FILE, ...} (one of the two)");
  EXPECT_THAT(ParseError(NoveltyConfig("  datasets: {curated: " + kCurated + "}\n")),
              HasSubstr("examples/bad.yaml: noveltybench.datasets: is given together with prompts; expected"));
  EXPECT_THAT(ParseError("models: [a]\ntemperatures: [1]\nnoveltybench: {datasets: [a.jsonl]}\n"),
              HasSubstr("noveltybench.datasets: is not a non-empty map; expected a map {NAME: FILE, ...}"));
  EXPECT_THAT(ParseError(NoveltyConfig("  k: 0\n")),
              HasSubstr("examples/bad.yaml: noveltybench.k: 0 is out of range; expected an integer between 1 and 100"));
  EXPECT_THAT(ParseError(NoveltyConfig("  k: 101\n")), HasSubstr("noveltybench.k: 101 is out of range"));
  EXPECT_THAT(ParseError(NoveltyConfig("  limit: -1\n")),
              HasSubstr("noveltybench.limit: -1 is out of range; expected an integer >= 0"));
  EXPECT_THAT(ParseError(NoveltyConfig("  max_tokens: 0\n")), HasSubstr("noveltybench.max_tokens: 0 is out of range"));
  EXPECT_THAT(ParseError(NoveltyConfig("  ask_n: maybe\n")), HasSubstr("noveltybench.ask_n: "));
  EXPECT_EQ(ParseError(NoveltyConfig("  modes: [standard, sideways]\n")),
            "examples/bad.yaml: noveltybench.modes[1]: unknown sampling mode 'sideways'; expected one of "
            "standard, in-context, paraphrase, system-prompt");
  EXPECT_THAT(ParseError(NoveltyConfig("  modes: [standard, standard]\n")),
              HasSubstr("noveltybench.modes[1]: standard is listed twice; expected distinct sampling modes"));
  EXPECT_THAT(ParseError(NoveltyConfig("  modes: []\n")), HasSubstr("noveltybench.modes: is an empty list"));
  EXPECT_EQ(ParseError(NoveltyConfig("  partitioner: rouge\n")),
            "examples/bad.yaml: noveltybench.partitioner: unknown partitioner 'rouge'; expected one of "
            "classifier, unigram, embedding, llm");
  EXPECT_THAT(ParseError(NoveltyConfig("  threshold: 1.5\n")),
              HasSubstr("noveltybench.threshold: 1.5 is outside [0, 1]; expected a number between 0 and 1"));
  EXPECT_EQ(ParseError(NoveltyConfig("  partitioner: unigram\n  partition_model: sim:classifier\n")),
            "examples/bad.yaml: noveltybench.partition_model: the unigram partitioner uses no model; "
            "expected no partition_model with partitioner: unigram");
  EXPECT_THAT(ParseError(NoveltyConfig("  quality: vibes\n")),
              HasSubstr("noveltybench.quality: unknown quality scorer 'vibes'; expected reward (a reward model"));
  EXPECT_EQ(ParseError(NoveltyConfig("  patience: 0\n")),
            "examples/bad.yaml: noveltybench.patience: 0 is not greater than 0; expected a number greater "
            "than 0 (the reference uses 0.8)");
  EXPECT_THAT(ParseError(NoveltyConfig("  patience: -0.5\n")), HasSubstr("noveltybench.patience: -0.5 is outside"));
  EXPECT_THAT(ParseError(NoveltyConfig("  patience: .nan\n")),
              HasSubstr("noveltybench.patience: '.nan' is not a number"));
  EXPECT_THAT(ParseError(NoveltyConfig("  temperatures: [2.5]\n")),
              HasSubstr("noveltybench.temperatures[0]: 2.5 is outside [0, 2]"));
  EXPECT_THAT(ParseError(NoveltyConfig("  sampels: 3\n")), HasSubstr("noveltybench.sampels: unknown key"));
  EXPECT_THAT(ParseError(NoveltyConfig("  partition_model: {name: openai:x, dimensions: 8}\n")),
              HasSubstr("noveltybench.partition_model.dimensions: applies to embedders only"));
  EXPECT_THAT(ParseError(NoveltyConfig("  quality_model: {name: openai:rm, extra_body: {top_k: 2}}\n")),
              HasSubstr("noveltybench.quality_model.extra_body: applies to chat models only"));
}

TEST(NoveltyBenchConfigTest, UnreadableFilesNameTheKey) {
  EXPECT_THAT(ParseError("models: [a]\ntemperatures: [1]\nnoveltybench: {prompts: /nonexistent/curated.jsonl}\n"),
              HasSubstr("examples/bad.yaml: noveltybench.prompts: "));
  EXPECT_THAT(
      ParseError("models: [a]\ntemperatures: [1]\nnoveltybench: {datasets: {wildchat: /nonexistent/w.jsonl}}\n"),
      HasSubstr("examples/bad.yaml: noveltybench.datasets.wildchat: "));
  TempDir dir;
  const std::string bad_prompts = dir.Write("p.json", "{\"quality_judge\": \"no placeholders\"}");
  EXPECT_THAT(ParseError(NoveltyConfig("  prompts_file: " + bad_prompts + "\n")),
              HasSubstr("examples/bad.yaml: noveltybench.prompts_file: " + bad_prompts + ": quality_judge: has no"));
}

TEST(NoveltyBenchConfigTest, RelativePromptFilesResolveAgainstTheConfigFolder) {
  TempDir dir;
  WriteWildchat(dir);
  const std::string path =
      dir.Write("configs/nb.yaml", "models: [sim:a]\ntemperatures: [1]\nnoveltybench:\n  prompts: ../wildchat.jsonl\n");
  auto config = LoadSweepConfig(path);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->noveltybench->datasets[0].path, (dir.path() / "wildchat.jsonl").string());
  EXPECT_EQ(config->noveltybench->datasets[0].name, "wildchat");
}

TEST(NoveltyBenchConfigTest, ScorerModelsAreRoutedLikeTheJudge) {
  const std::string lab = "providers:\n  lab:\n    base_url: http://10.0.0.5:8000/v1\n";
  auto config = ParseSweepConfig(
      NoveltyConfig("  partition_model: lab:deberta-similarity\n"
                    "  quality_model: {name: skywork, provider: lab, model: Skywork/Skywork-Reward-Gemma-2-27B-v0.2}\n",
                    lab + "judge: openai:gpt-4o\n"),
      "x.yaml");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->noveltybench->partition_model, "lab:deberta-similarity");
  EXPECT_EQ(config->noveltybench->quality_model, "skywork");
  ASSERT_EQ(config->endpoints.size(), 2u);  // the judge is not used: not routed, needs no key
  EXPECT_EQ(config->endpoints.at("lab:deberta-similarity").remote_model, "deberta-similarity");
  EXPECT_EQ(config->endpoints.at("skywork").remote_model, "Skywork/Skywork-Reward-Gemma-2-27B-v0.2");
  EXPECT_EQ(config->endpoints.at("skywork").provider.base_url, "http://10.0.0.5:8000/v1");

  // The llm partitioner uses the judge, which is then routed.
  auto llm = ParseSweepConfig(NoveltyConfig("  partitioner: llm\n", "judge: openai:gpt-4o\n"), "x.yaml");
  ASSERT_TRUE(llm.ok()) << llm.status();
  EXPECT_EQ(llm->endpoints.count("openai:gpt-4o"), 1u);
  EXPECT_THAT(ParseError(NoveltyConfig("  quality_model: nowhere:rm\n")),
              HasSubstr("noveltybench.quality_model: unknown provider 'nowhere' (model 'nowhere:rm')"));

  // A `sim` provider routes the simulated scorers too.
  auto sim = ParseSweepConfig(NoveltyConfig("", "providers:\n  sim:\n    base_url: http://127.0.0.1:9/v1\n"), "x.yaml");
  ASSERT_TRUE(sim.ok()) << sim.status();
  EXPECT_EQ(sim->endpoints.count("sim:classifier"), 1u);
  EXPECT_EQ(sim->endpoints.at("sim:reward").remote_model, "sim:reward");
  EXPECT_EQ(sim->endpoints.count("sim:judge"), 0u);  // unused without AidanBench or an llm scorer
}

TEST(NoveltyBenchConfigTest, TheExampleConfigsLoad) {
  const std::filesystem::path examples = std::filesystem::path(NOVELTYGRID_SOURCE_DIR) / "examples";
  auto both = LoadSweepConfig((examples / "both-benchmarks.yaml").string());
  ASSERT_TRUE(both.ok()) << both.status();
  EXPECT_TRUE(both->aidanbench.has_value());
  ASSERT_TRUE(both->noveltybench.has_value());
  EXPECT_EQ(both->noveltybench->datasets[0].name, "prompts-own-20");
  EXPECT_EQ(both->noveltybench->modes.size(), 3u);

  absl::StatusOr<std::string> text = ReadFile((examples / "noveltybench-reference.yaml").string());
  ASSERT_TRUE(text.ok()) << text.status();
  auto reference = ParseSweepConfig(*text, (examples / "noveltybench-reference.yaml").string(),
                                    [](const std::string& name) -> std::optional<std::string> {
                                      if (name == "SCORERS_URL") return "http://127.0.0.1:9";
                                      return std::nullopt;
                                    });
  ASSERT_TRUE(reference.ok()) << reference.status();
  EXPECT_EQ(reference->noveltybench->datasets[0].prompts.size(), 100u);
  EXPECT_EQ(reference->endpoints.at("skywork-reward").remote_model, "Skywork/Skywork-Reward-Gemma-2-27B-v0.2");
  EXPECT_EQ(reference->endpoints.at("deberta-similarity").provider.base_url, "http://127.0.0.1:9");
}

}  // namespace
}  // namespace noveltygrid
