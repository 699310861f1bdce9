// The sweep config's noveltybench: section.
#include <filesystem>

#include "common/config.h"
#include "common/json_util.h"
#include "common/noveltybench/prompts.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/common/config_test_util.h"
#include "tests/common/test_files.h"

namespace noveltygrid::configtest {
namespace {

using ::testing::HasSubstr;

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
  EXPECT_EQ(nb.settings.k(), 10);
  EXPECT_EQ(nb.settings.max_tokens(), 512);
  EXPECT_TRUE(nb.settings.ask_n());
  EXPECT_EQ(nb.settings.partitioner(), "classifier");
  EXPECT_EQ(nb.settings.threshold(), 0.102);
  EXPECT_EQ(nb.settings.partition_model(), "sim:classifier");
  EXPECT_EQ(nb.settings.quality(), "reward");
  EXPECT_EQ(nb.settings.quality_model(), "sim:reward");
  EXPECT_EQ(nb.settings.patience(), 0.8);
  EXPECT_EQ(nb.temperatures, (std::vector<double>{0.7, 1.0}));
  EXPECT_EQ(nb.prompts_source, "builtin");
  EXPECT_EQ(nb.settings.system_prompt(), noveltybench::DefaultNoveltyPrompts().system_prompt);
  EXPECT_EQ(nb.settings.quality_prompt(), noveltybench::DefaultNoveltyPrompts().quality_judge);
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
  EXPECT_EQ(nb.settings.k(), 4);
  EXPECT_EQ(nb.settings.max_tokens(), 100);
  EXPECT_FALSE(nb.settings.ask_n());
  EXPECT_EQ(nb.settings.partitioner(), "unigram");
  EXPECT_EQ(nb.settings.threshold(), 0.5);
  EXPECT_EQ(nb.settings.partition_model(), "");  // unigram needs none
  EXPECT_EQ(nb.settings.quality(), "llm");
  EXPECT_EQ(nb.settings.quality_model(), "sim:strict");  // the top-level judge
  EXPECT_EQ(nb.settings.patience(), 0.5);
  EXPECT_EQ(nb.temperatures, (std::vector<double>{1.0, 0.2}));
  EXPECT_EQ(nb.prompts_source, prompts_file);
  EXPECT_EQ(nb.settings.system_prompt(), "Be original.");
  EXPECT_EQ(nb.settings.in_context_followup(), noveltybench::DefaultNoveltyPrompts().in_context_followup);
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
    EXPECT_EQ(config->noveltybench->settings.threshold(), c.threshold) << c.partitioner;
    EXPECT_EQ(config->noveltybench->settings.partition_model(), c.model) << c.partitioner;
  }
  auto given = ParseSweepConfig(NoveltyConfig("  partitioner: embedding\n  partition_model: lexical-16\n"), "x.yaml");
  ASSERT_TRUE(given.ok()) << given.status();
  EXPECT_EQ(given->noveltybench->settings.partition_model(), "lexical-16");
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
            "classifier, unigram, embedding, llm, llm-groups");
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
  EXPECT_EQ(config->noveltybench->settings.partition_model(), "lab:deberta-similarity");
  EXPECT_EQ(config->noveltybench->settings.quality_model(), "skywork");
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

  // llm-groups uses the judge too, has no threshold, and carries its template only when chosen.
  auto groups = ParseSweepConfig(NoveltyConfig("  partitioner: llm-groups\n", "judge: openai:gpt-4o\n"), "x.yaml");
  ASSERT_TRUE(groups.ok()) << groups.status();
  EXPECT_EQ(groups->noveltybench->settings.partition_model(), "openai:gpt-4o");
  EXPECT_EQ(groups->noveltybench->settings.groups_prompt(), noveltybench::DefaultNoveltyPrompts().groups_judge);
  EXPECT_TRUE(groups->noveltybench->settings.equivalence_prompt().empty());  // not its wording: not in its ids
  EXPECT_FALSE(llm->noveltybench->settings.has_groups_prompt());  // other partitioners' unit ids are unchanged
  EXPECT_THAT(ParseError(NoveltyConfig("  partitioner: llm-groups\n  threshold: 0.5\n")),
              HasSubstr("noveltybench.threshold: llm-groups has no threshold"));
  EXPECT_THAT(ParseError(NoveltyConfig("  partitioner: llm-group\n")),
              HasSubstr("one of classifier, unigram, embedding, llm, llm-groups"));

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
}  // namespace noveltygrid::configtest
