#include "worker/sim/sim_judge_model.h"

#include "common/json_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/worker/models/sim_test_util.h"
#include "worker/sim/sim_idea_space.h"

namespace noveltygrid {
namespace {

using simtest::CoherencePrompt;
using simtest::CompleteSync;
using simtest::QueueExecutor;
using simtest::TestQuestions;
using simtest::UserRequest;

std::unique_ptr<SimJudgeModel> Make(const std::string& id, Executor* executor) {
  auto judge = SimJudgeModel::Create(id, executor);
  EXPECT_TRUE(judge.ok()) << judge.status();
  return std::move(*judge);
}

std::optional<long long> ParsedScore(const ChatReply& reply, const char* tag) {
  std::optional<std::string> body = ExtractLastTag(reply.choices.at(0), tag);
  return body ? ParsePythonInt(*body) : std::nullopt;
}

TEST(SimJudgeModelTest, CoherentSimAnswersScoreHighAndSaladLow) {
  int coherent_min = 100, coherent_max = 0, salad_max = 0;
  double coherent_sum = 0;
  int coherent_count = 0;
  for (const std::string& question : TestQuestions()) {
    sim::IdeaSpace space(question, "explorer", 40);
    sim::SimRng rng(StableHash(question));
    for (int rank = 0; rank < space.size(); ++rank) {
      for (int t = 0; t < sim::IdeaSpace::NumTemplates(sim::AnswerStyle::kSentence); ++t) {
        const int score = SimJudgeModel::ScoreCoherence(question, space.Render(rank, sim::AnswerStyle::kSentence, t));
        coherent_min = std::min(coherent_min, score);
        coherent_max = std::max(coherent_max, score);
        coherent_sum += score;
        ++coherent_count;
      }
      salad_max = std::max(salad_max, SimJudgeModel::ScoreCoherence(question, space.WordSalad(rank, rng)));
    }
  }
  EXPECT_GE(coherent_min, 50);
  EXPECT_LE(coherent_max, 100);
  EXPECT_GT(coherent_sum / coherent_count, 70);
  EXPECT_LE(salad_max, 15);
  EXPECT_EQ(SimJudgeModel::ScoreCoherence(TestQuestions()[0], ""), 0);
  EXPECT_EQ(SimJudgeModel::ScoreCoherence(TestQuestions()[0], "  \n "), 0);
  EXPECT_LE(SimJudgeModel::ScoreCoherence(TestQuestions()[0], "xqzt brkl 7z9q ## vvnm"), 15);
}

TEST(SimJudgeModelTest, ScoresTextNotLabels) {
  // A reasonable answer from outside the simulation still reads as coherent.
  const int real = SimJudgeModel::ScoreCoherence(
      "What is a cause of World War 1?",
      "The assassination of Archduke Franz Ferdinand in Sarajevo set off a chain of alliances "
      "that drew the great powers into war.");
  EXPECT_GE(real, 50);
  // Garbling a coherent answer lowers its score.
  sim::IdeaSpace space(TestQuestions()[2], "steady", 10);
  sim::SimRng rng(1);
  int lowered = 0;
  for (int rank = 0; rank < 10; ++rank) {
    const std::string clean = space.Render(rank, sim::AnswerStyle::kSentence, 0);
    lowered += SimJudgeModel::ScoreCoherence(TestQuestions()[2], sim::IdeaSpace::Garble(clean, rng)) <
               SimJudgeModel::ScoreCoherence(TestQuestions()[2], clean);
  }
  EXPECT_GE(lowered, 8);
}

TEST(SimJudgeModelTest, RepliesWithACoherenceTagOnTheRequestedScale) {
  QueueExecutor executor;
  auto judge = Make("sim:judge", &executor);
  const std::string question = TestQuestions()[3];
  const std::string answer = sim::IdeaSpace(question, "steady", 5).Render(0, sim::AnswerStyle::kSentence, 0);

  auto hundred = CompleteSync(*judge, executor, UserRequest(CoherencePrompt(question, answer)));
  ASSERT_TRUE(hundred.ok());
  auto score = ParsedScore(*hundred, "coherence_score");
  ASSERT_TRUE(score.has_value()) << hundred->choices[0];
  EXPECT_EQ(*score, SimJudgeModel::ScoreCoherence(question, answer));

  auto ten = CompleteSync(*judge, executor, UserRequest(CoherencePrompt(question, answer, true)));
  ASSERT_TRUE(ten.ok());
  auto ten_score = ParsedScore(*ten, "coherence_score");
  ASSERT_TRUE(ten_score.has_value()) << ten->choices[0];
  EXPECT_GE(*ten_score, 6);
  EXPECT_LE(*ten_score, 10);

  auto empty = CompleteSync(*judge, executor, UserRequest(CoherencePrompt(question, "", true)));
  EXPECT_EQ(ParsedScore(*empty, "coherence_score"), 1);
  for (const char* phrase : {"1-10", "1 - 10"}) {
    std::string prompt = CoherencePrompt(question, "");
    prompt += absl::StrCat("\nUse a scale of ", phrase, ".");
    EXPECT_EQ(ParsedScore(*CompleteSync(*judge, executor, UserRequest(prompt)), "coherence_score"), 1) << phrase;
  }
}

TEST(SimJudgeModelTest, ScaleIsReadFromThePromptWordingOnly) {
  QueueExecutor executor;
  auto judge = Make("sim:judge", &executor);
  // "81-100" contains "1-10" but is not a 1-10 scale; an answer mentioning "1 to 10" is not either.
  const std::string answer = "Rate the risk from 1 to 10, then act on the highest scores first.";
  auto reply = CompleteSync(*judge, executor, UserRequest(CoherencePrompt("What should a city plan for?", answer)));
  auto score = ParsedScore(*reply, "coherence_score");
  ASSERT_TRUE(score.has_value());
  EXPECT_GT(*score, 10);
}

TEST(SimJudgeModelTest, SimilarityFromLexicalOverlap) {
  QueueExecutor executor;
  auto judge = Make("sim:judge", &executor);
  auto similarity = [&](const std::string& a, const std::string& b) {
    auto reply = CompleteSync(
        *judge, executor,
        UserRequest(absl::StrCat("Compare.\n<question>Q?</question>\n<answer1>", a, "</answer1>\n<answer2>", b,
                                 "</answer2>\nReply in <similarity_score></similarity_score> tags.")));
    return ParsedScore(*reply, "similarity_score").value_or(-1);
  };
  sim::IdeaSpace space(TestQuestions()[5], "explorer", 10);
  const int same =
      similarity(space.Render(0, sim::AnswerStyle::kSentence, 0), space.Render(0, sim::AnswerStyle::kSentence, 4));
  const int different =
      similarity(space.Render(0, sim::AnswerStyle::kSentence, 0), space.Render(1, sim::AnswerStyle::kSentence, 0));
  EXPECT_GE(same, 50);
  EXPECT_LE(different, 40);
  EXPECT_GE(different, 0);
  EXPECT_EQ(similarity("", "anything at all"), 0);
}

TEST(SimJudgeModelTest, UnknownPromptGetsNoTag) {
  QueueExecutor executor;
  auto judge = Make("sim:judge", &executor);
  auto reply = CompleteSync(*judge, executor, UserRequest("Write a poem about the sea."));
  ASSERT_TRUE(reply.ok());
  EXPECT_FALSE(ExtractLastTag(reply->choices[0], "coherence_score").has_value());
  EXPECT_FALSE(ExtractLastTag(reply->choices[0], "similarity_score").has_value());
  EXPECT_FALSE(reply->choices[0].empty());
}

TEST(SimJudgeModelTest, FlakyJudgeFailsAboutThirtyPercentAndRetriesSucceed) {
  QueueExecutor executor;
  auto flaky = Make("sim:judge-flaky", &executor);
  const std::string prompt = CoherencePrompt(TestQuestions()[0], "A fine, plain answer to it.");
  int failures = 0, non_integer = 0;
  const int calls = 400;
  for (int i = 0; i < calls; ++i) {
    auto reply = CompleteSync(*flaky, executor, UserRequest(prompt));
    ASSERT_TRUE(reply.ok());
    if (!ParsedScore(*reply, "coherence_score").has_value()) {
      ++failures;
      non_integer += ExtractLastTag(reply->choices[0], "coherence_score").has_value();
    }
  }
  EXPECT_GT(failures, calls * 18 / 100);
  EXPECT_LT(failures, calls * 42 / 100);
  EXPECT_GT(non_integer, 0);
  EXPECT_LT(non_integer, failures);

  // The plain judge never fails.
  auto judge = Make("sim:judge", &executor);
  for (int i = 0; i < 50; ++i) {
    EXPECT_TRUE(ParsedScore(*CompleteSync(*judge, executor, UserRequest(prompt)), "coherence_score"));
  }
}

std::string Fill(std::string text, const std::string& key, const std::string& value) {
  const size_t pos = text.find(key);
  if (pos != std::string::npos) text.replace(pos, key.size(), value);
  return text;
}

// The reference wording (data/aidanbench/prompts-reference.json) is what real runs send.
TEST(SimJudgeModelTest, UnderstandsTheReferencePromptWording) {
  absl::StatusOr<std::string> file =
      ReadFile(std::string(NOVELTYGRID_SHARED_DATA) + "/aidanbench/prompts-reference.json");
  ASSERT_TRUE(file.ok()) << file.status();
  const nlohmann::json prompts = nlohmann::json::parse(*file);
  QueueExecutor executor;
  auto judge = Make("sim:judge", &executor);
  const std::string question = TestQuestions()[3];
  sim::IdeaSpace space(question, "steady", 5);
  const std::string answer = space.Render(0, sim::AnswerStyle::kSentence, 1);

  const std::string coherence =
      Fill(Fill(prompts["coherence_judge"].get<std::string>(), "{question}", question), "{answer}", answer);
  auto reply = CompleteSync(*judge, executor, UserRequest(coherence));
  ASSERT_TRUE(reply.ok());
  // 0-100 scale (the template's "81-100" must not read as a 1-10 scale).
  EXPECT_EQ(ParsedScore(*reply, "coherence_score"), SimJudgeModel::ScoreCoherence(question, answer));

  std::string similarity = prompts["similarity_judge"].get<std::string>();
  similarity = Fill(Fill(Fill(similarity, "{question}", question), "{answer1}", answer), "{answer2}",
                    space.Render(0, sim::AnswerStyle::kSentence, 5));
  auto similar = CompleteSync(*judge, executor, UserRequest(similarity));
  ASSERT_TRUE(similar.ok());
  auto score = ParsedScore(*similar, "similarity_score");
  ASSERT_TRUE(score.has_value()) << similar->choices[0];
  EXPECT_GE(*score, 50);
}

}  // namespace
}  // namespace noveltygrid
