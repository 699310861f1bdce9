// Drives the AidanBench loop over the simulated family (generate, judge, embed, novelty) and checks
// that the personalities rank as documented.
#include <string>

#include "gtest/gtest.h"
#include "tests/worker/models/sim_test_util.h"
#include "worker/models/lexical_embedder.h"
#include "worker/sim/sim_chat_model.h"
#include "worker/sim/sim_judge_model.h"

namespace noveltygrid {
namespace {

using simtest::QueueExecutor;
using simtest::RunAidanLoop;
using simtest::TestQuestions;

double MeanValidAnswers(const std::string& id, double temperature) {
  QueueExecutor executor;
  auto model = *SimChatModel::Create(id, &executor);
  auto judge = *SimJudgeModel::Create("sim:judge", &executor);
  LexicalEmbedder embedder(256, &executor);
  double total = 0;
  for (const std::string& question : TestQuestions()) {
    total += RunAidanLoop(*model, *judge, embedder, executor, question, temperature, /*seed=*/0).valid;
  }
  return total / TestQuestions().size();
}

TEST(SimLoopTest, PersonalitiesRankExplorerSteadyCollapse) {
  const double explorer = MeanValidAnswers("sim:explorer", 0.7);
  const double steady = MeanValidAnswers("sim:steady", 0.7);
  const double collapse = MeanValidAnswers("sim:collapse", 0.7);
  EXPECT_GT(explorer, steady);
  EXPECT_GT(steady, collapse);
  EXPECT_LT(collapse, 6);
  EXPECT_GE(explorer, 20);
  EXPECT_LE(explorer, 60);
  EXPECT_GE(steady, 8);
  EXPECT_LE(steady, 20);
}

TEST(SimLoopTest, ChaoticLosesCoherenceAtHighTemperature) {
  EXPECT_GT(MeanValidAnswers("sim:chaotic", 0.2), MeanValidAnswers("sim:chaotic", 1.2));
}

TEST(SimLoopTest, LoopIsReproducible) {
  QueueExecutor executor;
  auto model = *SimChatModel::Create("sim:steady", &executor);
  auto judge = *SimJudgeModel::Create("sim:judge", &executor);
  LexicalEmbedder embedder(256, &executor);
  auto a = RunAidanLoop(*model, *judge, embedder, executor, TestQuestions()[6], 0.7, 5);
  auto b = RunAidanLoop(*model, *judge, embedder, executor, TestQuestions()[6], 0.7, 5);
  EXPECT_EQ(a.answers, b.answers);
  auto c = RunAidanLoop(*model, *judge, embedder, executor, TestQuestions()[6], 0.7, 6);
  EXPECT_NE(a.answers, c.answers);
}

}  // namespace
}  // namespace noveltygrid
