// The sweep config: the top level, environment expansion, YAML errors, paths.
#include "common/config.h"

#include <cstdlib>
#include <filesystem>

#include "common/settings_proto.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/common/config_test_util.h"
#include "tests/common/test_files.h"

namespace noveltygrid::configtest {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

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
  EXPECT_EQ(aidan.settings.preset(), "reference-2025");
  EXPECT_EQ(aidan.templates_source, "builtin");
  EXPECT_EQ(aidan.settings.templates().generation_base(), DefaultPromptTemplates().generation_base);
  EXPECT_EQ(aidan.settings.max_iterations(), 0);
  EXPECT_EQ(aidan.settings.max_tokens(), 4000);
  EXPECT_EQ(aidan.settings.judge_retries(), 2);
  EXPECT_FALSE(aidan.settings.llm_novelty());
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
  EXPECT_EQ(aidan.settings.preset(), "paper-2024");  // the built-in templates have a 1-10 judge
  EXPECT_EQ(aidan.settings.max_iterations(), 25);
  EXPECT_EQ(aidan.settings.max_tokens(), 512);
  EXPECT_EQ(aidan.settings.judge_retries(), 0);
  EXPECT_TRUE(aidan.settings.llm_novelty());
  EXPECT_EQ(aidan.temperatures, (std::vector<double>{0.7}));
}

TEST(SweepConfigTest, UnknownTopLevelKey) {
  const absl::Status status = ParseStatus(Config("temprature: 0.5\n"));
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(MessageOf(status), HasSubstr("examples/bad.yaml: temprature: unknown key (did you mean 'temperatures'?); "
                                           "expected one of: name, seed, models, temperatures, judge, embedder, "
                                           "concurrency, aidanbench, noveltybench"));
}

TEST(SweepConfigTest, BudgetsAndTheLoopLengthPrior) {
  absl::StatusOr<SweepConfig> config = ParseSweepConfig(
      Config("  expected_iterations: {sim:steady: 12}\nbudget_usd: 40\nbudgets: {sim:explorer: 5.5}\n"),
      "examples/ok.yaml");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_DOUBLE_EQ(config->budget_usd, 40);
  EXPECT_DOUBLE_EQ(config->model_budgets_usd.at("sim:explorer"), 5.5);
  EXPECT_DOUBLE_EQ(config->aidanbench->expected_iterations.at("sim:steady"), 12);
  config = ParseSweepConfig(Config("  expected_iterations: 7\n"), "examples/ok.yaml");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_DOUBLE_EQ(config->aidanbench->expected_iterations.at(""), 7);
  EXPECT_THAT(ParseError(Config("budgets: {sim:other: 1}\n")),
              HasSubstr("examples/bad.yaml: budgets.sim:other: not one of models:"));
  EXPECT_THAT(ParseError(Config("budget_usd: -1\n")), HasSubstr("budget_usd"));
}

TEST(SweepConfigTest, UnknownNestedKey) {
  const absl::Status status = ParseStatus(Config("  foo: 1\n"));
  EXPECT_EQ(MessageOf(status),
            "examples/bad.yaml: aidanbench.foo: unknown key; expected one of: questions, preset, "
            "templates, max_iterations, max_tokens, judge_retries, llm_novelty, temperatures, max_unit_seconds, "
            "expected_iterations");
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

// Aliases (*name) are allowed while they expand to a config's size; a "billion laughs" document (ten
// levels of nine aliases each, 9^10 values once expanded) is refused before any walk expands it -- here
// the walk that turns a provider's extra_body into JSON -- and so is an alias inside the list it
// names, a cycle.
TEST(SweepConfigTest, AnAliasBombOrAnAliasCycleIsRefused) {
  std::string text = Config("judge: *first\n");
  text.replace(text.find("sim:explorer"), 0, "&first ");
  auto aliased = ParseSweepConfig(text, "a.yaml");
  ASSERT_TRUE(aliased.ok()) << aliased.status();
  EXPECT_EQ(aliased->judge, "sim:explorer");

  std::string bomb = "providers:\n  local:\n    base_url: http://127.0.0.1:1/v1\n    extra_body:\n";
  bomb += "      lol0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
  for (int level = 1; level <= 10; ++level) {
    const std::string alias = "*l" + std::to_string(level - 1);
    bomb += "      lol" + std::to_string(level) + ": &l" + std::to_string(level) + " [" + alias;
    for (int i = 1; i < 9; ++i) bomb += ", " + alias;
    bomb += "]\n";
  }
  text = Config(bomb);
  text.replace(text.find("sim:explorer"), 12, "local:big");
  const absl::Status refused = ParseStatus(text);
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(MessageOf(refused),
              AllOf(HasSubstr("examples/bad.yaml: line "), HasSubstr("the document holds more than 100000 values"),
                    HasSubstr("alias bomb")));

  EXPECT_THAT(ParseError("models: &m [sim:explorer, *m]\ntemperatures: [0.7]\n"),
              AllOf(HasSubstr("examples/bad.yaml: line 1, column 27: an alias refers to a map or list it is part of"),
                    HasSubstr("a cycle")));
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
  EXPECT_EQ(FromProto(config->aidanbench->settings.templates()).CoherencePrompt("q", "A", 10),
            "1 to 10 <answer>A</answer>");
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
  testing_files::ExpectNotFound(LoadSweepConfig("/nonexistent/dir/sweep.yaml").status(), "/nonexistent/dir/sweep.yaml");
}

}  // namespace
}  // namespace noveltygrid::configtest
