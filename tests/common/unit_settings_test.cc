// What a lease carries besides the unit (common/unit_settings.h): the settings made from a config and
// the hashes that go into unit ids.
#include "common/unit_settings.h"

#include <functional>
#include <string>
#include <vector>

#include "common/config.h"
#include "common/hashing.h"
#include "common/settings_proto.h"
#include "gtest/gtest.h"
#include "tests/common/test_files.h"

namespace noveltygrid {
namespace {

using ::noveltygrid::testing_files::SharedData;

const std::string kCurated = SharedData("noveltybench/curated.jsonl");
const std::string kPaperQuestions = SharedData("aidanbench/questions-paper-65.jsonl");

SweepConfig Parse(const std::string& text) {
  absl::StatusOr<SweepConfig> config = ParseSweepConfig(text, "x.yaml");
  EXPECT_TRUE(config.ok()) << config.status();
  return config.value_or(SweepConfig{});
}

std::string NoveltyConfig(const std::string& extra = "", const std::string& top = "") {
  return "seed: 3\nmodels: [sim:explorer]\ntemperatures: [1.0]\n" + top + "noveltybench:\n  prompts: " + kCurated +
         "\n" + extra;
}

TEST(NoveltySettingsTest, MadeFromTheConfig) {
  const SweepConfig config = Parse(
      NoveltyConfig("  k: 6\n  max_tokens: 300\n  ask_n: false\n  partitioner: llm\n  threshold: 0.6\n  quality: llm\n"
                    "  patience: 0.9\n",
                    "judge: sim:strict\n"));
  const NoveltySettings s = MakeNoveltySettings(config);
  EXPECT_EQ(s.seed(), 3u);
  EXPECT_EQ(s.k(), 6);
  EXPECT_EQ(s.max_tokens(), 300);
  EXPECT_FALSE(s.ask_n());
  EXPECT_EQ(s.partitioner(), "llm");
  EXPECT_EQ(s.threshold(), 0.6);
  EXPECT_EQ(s.partition_model(), "sim:strict");
  EXPECT_EQ(s.quality(), "llm");
  EXPECT_EQ(s.quality_model(), "sim:strict");
  EXPECT_EQ(s.patience(), 0.9);
  const noveltybench::NoveltyPrompts defaults = noveltybench::DefaultNoveltyPrompts();
  EXPECT_EQ(s.in_context_followup(), defaults.in_context_followup);
  EXPECT_EQ(s.system_prompt(), defaults.system_prompt);
  EXPECT_EQ(s.equivalence_prompt(), defaults.equivalence_judge);
  EXPECT_EQ(s.quality_prompt(), defaults.quality_judge);
  EXPECT_TRUE(s.endpoints().empty());
}

TEST(NoveltySettingsTest, EndpointsAreThoseOfTheGeneratorsAndScorers) {
  const SweepConfig config = Parse(
      "models: [openai:gpt-4o]\ntemperatures: [1.0]\njudge: openai:o3-mini\n"
      "aidanbench:\n  questions: " +
      kPaperQuestions +
      "\n"
      "noveltybench:\n  prompts: " +
      kCurated + "\n  partitioner: unigram\n  quality_model: vllm:skywork\n");
  const NoveltySettings novelty = MakeNoveltySettings(config);
  const std::map<std::string, ModelEndpoint> endpoints = EndpointsByName(novelty.endpoints());
  EXPECT_EQ(endpoints.count("openai:gpt-4o"), 1u);
  EXPECT_EQ(endpoints.count("vllm:skywork"), 1u);
  EXPECT_EQ(endpoints.count("openai:o3-mini"), 0u);  // AidanBench's judge only
  const AidanSettings aidan = MakeAidanSettings(config);
  const std::map<std::string, ModelEndpoint> aidan_endpoints = EndpointsByName(aidan.endpoints());
  EXPECT_EQ(aidan_endpoints.count("openai:o3-mini"), 1u);
  EXPECT_EQ(aidan_endpoints.count("vllm:skywork"), 0u);
}

TEST(NoveltySettingsTest, EverySettingThatChangesResultsChangesTheHash) {
  const NoveltySettings base = MakeNoveltySettings(Parse(NoveltyConfig()));
  const uint64_t base_hash = NoveltySettingsHash(base);
  const std::vector<std::pair<std::string, std::function<void(NoveltySettings&)>>> changes = {
      {"seed", [](NoveltySettings& s) { s.set_seed(4); }},
      {"k", [](NoveltySettings& s) { s.set_k(9); }},
      {"max_tokens", [](NoveltySettings& s) { s.set_max_tokens(511); }},
      {"ask_n", [](NoveltySettings& s) { s.set_ask_n(false); }},
      {"partitioner", [](NoveltySettings& s) { s.set_partitioner("embedding"); }},
      {"threshold", [](NoveltySettings& s) { s.set_threshold(0.103); }},
      {"partition_model", [](NoveltySettings& s) { s.set_partition_model("sim:other"); }},
      {"quality", [](NoveltySettings& s) { s.set_quality("llm"); }},
      {"quality_model", [](NoveltySettings& s) { s.set_quality_model("sim:judge"); }},
      {"patience", [](NoveltySettings& s) { s.set_patience(0.7); }},
      {"in_context_followup", [](NoveltySettings& s) { *s.mutable_in_context_followup() += "!"; }},
      {"system_prompt", [](NoveltySettings& s) { *s.mutable_system_prompt() += "!"; }},
      {"equivalence_prompt", [](NoveltySettings& s) { *s.mutable_equivalence_prompt() += "!"; }},
      {"quality_prompt", [](NoveltySettings& s) { *s.mutable_quality_prompt() += "!"; }},
      {"a renamed remote model",
       [](NoveltySettings& s) {
         ModelEndpoint e;
         e.name = "sim:explorer";
         e.remote_model = "sim:steady";
         ToProto(e, s.add_endpoints());
       }},
  };
  for (const auto& [name, change] : changes) {
    NoveltySettings changed = base;
    change(changed);
    EXPECT_NE(NoveltySettingsHash(changed), base_hash) << name;
  }
}

// The hash is taken over the message by reflection; these are the values, in this order, that unit ids
// were computed from before (results files hold them): a reordered or retyped field fails here.
TEST(NoveltySettingsTest, TheHashKeepsTheUnitIdsOfEarlierResults) {
  NoveltySettings s = MakeNoveltySettings(Parse(NoveltyConfig("  partitioner: llm\n  quality: llm\n")));
  ModelEndpoint e;
  e.name = "sim:judge";
  e.remote_model = "judge-2";
  e.dimensions = 3;
  ToProto(e, s.add_endpoints());
  StableHasher expected;
  expected.Add("noveltybench")
      .Add(s.seed())
      .Add(static_cast<uint64_t>(s.k()))
      .Add(static_cast<uint64_t>(s.max_tokens()))
      .Add(static_cast<uint64_t>(s.ask_n()))
      .Add(s.partitioner())
      .Add(s.threshold())
      .Add(s.partition_model())
      .Add(s.quality())
      .Add(s.quality_model())
      .Add(s.patience())
      .Add(s.in_context_followup())
      .Add(s.system_prompt())
      .Add(s.equivalence_prompt())
      .Add(s.quality_prompt())
      .Add(e.name)
      .Add(e.remote_model)
      .Add(e.extra_body_json)
      .Add(static_cast<uint64_t>(e.dimensions));
  EXPECT_EQ(NoveltySettingsHash(s), expected.Finish());
}

TEST(NoveltySettingsTest, WhereAModelIsServedDoesNotChangeTheHash) {
  const SweepConfig in_process = Parse(NoveltyConfig());
  const SweepConfig over_http = Parse(NoveltyConfig("", "providers:\n  sim:\n    base_url: http://127.0.0.1:9/v1\n"));
  EXPECT_TRUE(MakeNoveltySettings(in_process).endpoints().empty());
  EXPECT_EQ(MakeNoveltySettings(over_http).endpoints_size(), 3);  // generator, classifier, reward model
  EXPECT_EQ(NoveltySettingsHash(MakeNoveltySettings(in_process)), NoveltySettingsHash(MakeNoveltySettings(over_http)));
}

TEST(AidanSettingsTest, TheHashKeepsTheUnitIdsOfEarlierResults) {
  AidanSettings s = MakeAidanSettings(
      Parse("seed: 5\nmodels: [sim:explorer]\ntemperatures: [1.0]\naidanbench:\n  questions: " + kPaperQuestions +
            "\n  max_iterations: 7\n  llm_novelty: true\n"));
  const v1::PromptTemplates& t = s.templates();
  StableHasher expected;
  expected.Add(s.seed())
      .Add(s.judge())
      .Add(s.embedder())
      .Add(s.preset())
      .Add(t.generation_base())
      .Add(t.generation_instructions())
      .Add(t.generation_previous_block())
      .Add(t.previous_answer_item())
      .Add(t.previous_answers_separator())
      .Add(t.coherence_judge())
      .Add(t.coherence_judge_1_10())
      .Add(t.similarity_judge())
      .Add(static_cast<uint64_t>(s.max_iterations()))
      .Add(static_cast<uint64_t>(s.max_tokens()))
      .Add(static_cast<uint64_t>(s.llm_novelty()));
  const uint64_t want = expected.Finish();
  EXPECT_EQ(AidanSettingsHash(s), want);
  s.set_judge_retries(s.judge_retries() + 1);  // how hard we try, not what a unit computes
  EXPECT_EQ(AidanSettingsHash(s), want);
  // A time cap came later: unset it keeps the ids above; set, it is part of what a unit computes.
  s.set_max_unit_seconds(300);
  EXPECT_EQ(AidanSettingsHash(s), StableHasher(expected).Add(300.0).Finish());
}

TEST(AidanSettingsTest, MaxUnitSecondsIsReadFromTheConfig) {
  const AidanSettings s = MakeAidanSettings(
      Parse("models: [sim:explorer]\ntemperatures: [1.0]\naidanbench:\n  questions: " + kPaperQuestions +
            "\n  max_unit_seconds: 300\n"));
  EXPECT_EQ(s.max_unit_seconds(), 300);
}

TEST(AidanSettingsTest, ANoveltyBenchSectionDoesNotChangeAidanBenchSettings) {
  const std::string aidan_only =
      "models: [sim:explorer]\ntemperatures: [1.0]\naidanbench:\n  questions: " + kPaperQuestions + "\n";
  const std::string both = aidan_only + "noveltybench:\n  prompts: " + kCurated +
                           "\n  quality_model: {name: rm, provider: vllm, model: Skywork/Reward}\n";
  EXPECT_EQ(AidanSettingsHash(MakeAidanSettings(Parse(aidan_only))), AidanSettingsHash(MakeAidanSettings(Parse(both))));
}

}  // namespace
}  // namespace noveltygrid
