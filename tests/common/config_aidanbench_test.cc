// The sweep config's aidanbench: section and the AidanBench presets.
#include "common/config.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/common/config_test_util.h"
#include "tests/common/test_files.h"

namespace noveltygrid::configtest {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

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

TEST(SweepConfigTest, ReferenceTemplatesLoadFromAPath) {
  auto config = ParseSweepConfig(Config("  templates: " + kReferenceTemplates + "\n"), "x.yaml");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->aidanbench->templates_source, kReferenceTemplates);
  EXPECT_TRUE(
      config->aidanbench->settings.templates().generation_base().starts_with("Answer the following question:."));
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

}  // namespace
}  // namespace noveltygrid::configtest
