#include "coordinator/benchmarks/aidanbench/aidan_import.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/common/test_files.h"
#include "tests/coordinator/aidan_test_units.h"

namespace noveltygrid {
namespace {

using ::testing::HasSubstr;
using testing_files::SharedData;
using testing_files::TempDir;
using testing_units::Preset;

Json Answer(int num, double novelty, double coherence) {
  return Json{{"answer_num", num},
              {"answer", "answer " + std::to_string(num)},
              {"embedding_dissimilarity_score", novelty},
              {"coherence_score", coherence},
              {"processing_time", 1.5}};
}

TEST(AidanImportTest, ReadsTheReferenceRunInFileOrder) {
  absl::StatusOr<AidanImport> imported =
      ImportAidanReferenceFile(SharedData("aidanbench/reference-runs/not_cot.json"), Preset("reference-2025"));
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_EQ(imported->models,
            (std::vector<std::string>{"anthropic/claude-3.5-sonnet", "google/gemini-flash-1.5-8b", "gpt-4-turbo",
                                      "meta-llama/llama-3.1-70b-instruct", "openai/gpt-4o-mini-2024-07-18"}));
  EXPECT_EQ(imported->temperatures, std::vector<double>{0.7});
  ASSERT_EQ(imported->units.size(), 49u);  // gpt-4-turbo answered 9 of the 10 questions
  size_t answers = 0;
  for (size_t i = 0; i < imported->units.size(); ++i) {
    const UnitResult& u = imported->units[i];
    EXPECT_EQ(u.unit.index, static_cast<int>(i));
    EXPECT_EQ(u.unit.item_id, AidanQuestionId(u.unit.item_text));
    EXPECT_EQ(u.stop_reason == kStopIncoherent || u.stop_reason == kStopRepetitive, true) << u.stop_reason;
    answers += u.answers.size();
  }
  EXPECT_EQ(answers, 1161u);
  const UnitResult& first = imported->units[0];
  EXPECT_EQ(first.unit.model, "anthropic/claude-3.5-sonnet");
  EXPECT_EQ(first.unit.item_text,
            "How might we enable LLMs to spend more output tokens to get predictably better results?");
  EXPECT_EQ(first.answers[0].answer_num, 1);
  EXPECT_EQ(first.answers[0].novelty, 1.0);
}

TEST(AidanImportTest, IdsAreStableAcrossModelsAndFiles) {
  EXPECT_THAT(AidanQuestionId("Why did Rome fall?"), ::testing::MatchesRegex("q-[0-9a-f]{8}"));
  Json file{{"models",
             {{"a", {{"0.7", {{"Why did Rome fall?", {Answer(1, 1.0, 80)}}}}}},
              {"b", {{"0.7", {{"Why did Rome fall?", {Answer(1, 1.0, 80)}}}}}}}}};
  absl::StatusOr<AidanImport> imported = ImportAidanReferenceJson(file, "x.json", Preset("reference-2025"));
  ASSERT_TRUE(imported.ok()) << imported.status();
  ASSERT_EQ(imported->units.size(), 2u);
  EXPECT_EQ(imported->units[0].unit.item_id, AidanQuestionId("Why did Rome fall?"));
  EXPECT_EQ(imported->units[0].unit.item_id, imported->units[1].unit.item_id);
  EXPECT_NE(imported->units[0].unit.id, imported->units[1].unit.id);
  EXPECT_EQ(imported->units[0].unit.id.size(), 16u);
}

TEST(AidanImportTest, StopReasonComesFromTheLastAnswer) {
  Json file{{"models",
             {{"m",
               {{"1",
                 {{"incoherent at exactly 15", {Answer(1, 1.0, 80), Answer(2, 0.6, 15)}},
                  {"repetitive", {Answer(1, 1.0, 80), Answer(2, 0.1, 80)}},
                  {"truncated", {Answer(1, 1.0, 80), Answer(2, 0.6, 70)}}}}}}}}};
  Json with_llm = Answer(1, 1.0, 80);
  with_llm["llm_dissimilarity_score"] = 0.25;
  file["models"]["m"]["1"]["llm judged"] = Json::array({with_llm});
  absl::StatusOr<AidanImport> imported = ImportAidanReferenceJson(file, "x.json", Preset("reference-2025"));
  ASSERT_TRUE(imported.ok()) << imported.status();
  ASSERT_EQ(imported->units.size(), 4u);
  EXPECT_EQ(imported->temperatures, std::vector<double>{1.0});
  EXPECT_EQ(imported->units[0].stop_reason, kStopIncoherent);
  EXPECT_TRUE(imported->units[0].answers[1].valid);  // judged 15: ends the loop, still counted
  EXPECT_EQ(imported->units[1].stop_reason, kStopRepetitive);
  EXPECT_FALSE(imported->units[1].answers[1].valid);
  EXPECT_EQ(imported->units[2].stop_reason, "");
  EXPECT_EQ(imported->units[3].answers[0].llm_novelty, 0.25);
}

TEST(AidanImportTest, MalformedFileNamesTheFileAndThePath) {
  Json bad_answer = Answer(2, 0.5, 80);
  bad_answer["coherence_score"] = "80";
  Json file{{"models", {{"gpt-4-turbo", {{"0.7", {{"Why did Rome fall?", {Answer(1, 1.0, 80), bad_answer}}}}}}}}};
  TempDir dir;
  const std::string path = dir.Write("bad.json", file.dump());
  absl::StatusOr<AidanImport> imported = ImportAidanReferenceFile(path, Preset("reference-2025"));
  ASSERT_FALSE(imported.ok());
  EXPECT_EQ(imported.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(imported.status().message(), HasSubstr(path));
  EXPECT_THAT(imported.status().message(),
              HasSubstr(R"(models["gpt-4-turbo"]["0.7"]["Why did Rome fall?"][1].coherence_score: )"
                        R"(expected a number, got string)"));
}

TEST(AidanImportTest, RejectsFilesOutsideTheLayout) {
  const AidanPreset preset = Preset("reference-2025");
  auto message = [&](const Json& file) {
    absl::StatusOr<AidanImport> imported = ImportAidanReferenceJson(file, "f.json", preset);
    EXPECT_FALSE(imported.ok());
    return std::string(imported.status().message());
  };
  EXPECT_THAT(message(Json::array()), HasSubstr("f.json: (top level): expected an object"));
  EXPECT_THAT(message(Json{{"runs", 1}}), HasSubstr("no \"models\" key"));
  EXPECT_THAT(message(Json{{"models", {{"m", {{"warm", Json::object()}}}}}}),
              HasSubstr(R"(models["m"]["warm"]: the key is not a temperature)"));
  EXPECT_THAT(message(Json{{"models", {{"m", {{"0.7", {{"q", Json::object()}}}}}}}}),
              HasSubstr(R"(models["m"]["0.7"]["q"]: expected an array of answers, got object)"));
  Json no_answer = Answer(1, 1.0, 80);
  no_answer.erase("answer");
  EXPECT_THAT(message(Json{{"models", {{"m", {{"0.7", {{"q", {no_answer}}}}}}}}}),
              HasSubstr(R"(models["m"]["0.7"]["q"][0].answer: missing)"));
}

TEST(AidanImportTest, RefusesScoresAboveThePresetsJudgeScale) {
  absl::StatusOr<AidanImport> imported =
      ImportAidanReferenceFile(SharedData("aidanbench/reference-runs/not_cot.json"), Preset("paper-2024"));
  ASSERT_FALSE(imported.ok());
  EXPECT_THAT(imported.status().message(), HasSubstr("above the paper-2024 judge scale"));
}

TEST(AidanImportTest, InferredStopReasons) {
  const AidanPreset preset = Preset("reference-2025");
  std::vector<StepRecord> answers(2);
  answers[0].coherence = 80;
  answers[0].novelty = 1.0;
  answers[1].coherence = 80;
  answers[1].novelty = 0.5;
  EXPECT_EQ(InferAidanStopReason(preset, answers, 0), "");
  EXPECT_EQ(InferAidanStopReason(preset, answers, 2), kStopIterationCap);
  answers[1].error = "judge failed";
  EXPECT_EQ(InferAidanStopReason(preset, answers, 0), kStopError);
  EXPECT_EQ(InferAidanStopReason(preset, {}, 0), "");
}

}  // namespace
}  // namespace noveltygrid
