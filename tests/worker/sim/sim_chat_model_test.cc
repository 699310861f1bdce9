#include "worker/sim/sim_chat_model.h"

#include <set>
#include <string>

#include "absl/synchronization/blocking_counter.h"
#include "absl/synchronization/mutex.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/worker/models/sim_test_util.h"
#include "worker/models/lexical_embedder.h"
#include "worker/sim/sim_judge_model.h"

namespace noveltygrid {
namespace {

using simtest::AidanPrompt;
using simtest::CompleteSync;
using simtest::Cosine;
using simtest::QueueExecutor;
using simtest::TestQuestions;
using simtest::UserRequest;
using ::testing::HasSubstr;
using ::testing::Not;

std::unique_ptr<SimChatModel> Make(const std::string& id, Executor* executor) {
  auto model = SimChatModel::Create(id, executor);
  EXPECT_TRUE(model.ok()) << model.status();
  return std::move(*model);
}

std::string Answer(const std::string& text) {
  return ExtractLastTag(text, "answer").value_or(std::string(StripWhitespace(text)));
}

// Greedy classes of texts sharing most content words (lexical cosine > 0.5), like NoveltyBench's
// partition with a lexical equivalence test.
size_t DistinctIdeas(const std::vector<std::string>& texts) {
  LexicalEmbedder embedder(1024, nullptr);
  std::vector<Embedding> classes;
  for (const std::string& text : texts) {
    Embedding e = embedder.EmbedOne(text);
    bool found = false;
    for (const Embedding& c : classes) found |= Cosine(c, e) > 0.5;
    if (!found) classes.push_back(e);
  }
  return classes.size();
}

TEST(SimChatModelTest, DeterministicForTheSameRequest) {
  QueueExecutor executor;
  auto model = Make("sim:explorer", &executor);
  const ChatRequest request = UserRequest(AidanPrompt(TestQuestions()[0], {}), 0.7, 42);
  auto first = model->Generate(request);
  auto second = model->Generate(request);
  ASSERT_TRUE(first.ok());
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(first->choices, second->choices);
  // A second instance agrees too: nothing depends on instance state.
  EXPECT_EQ(Make("sim:explorer", &executor)->Generate(request)->choices, first->choices);
}

TEST(SimChatModelTest, SeedModelAndTemperatureChangeTheAnswer) {
  QueueExecutor executor;
  auto explorer = Make("sim:explorer", &executor);
  const std::string prompt = AidanPrompt(TestQuestions()[1], {});
  std::set<std::string> by_seed;
  for (uint64_t seed = 0; seed < 8; ++seed) {
    by_seed.insert(explorer->Generate(UserRequest(prompt, 0.7, seed))->choices[0]);
  }
  EXPECT_GE(by_seed.size(), 6u);
  EXPECT_NE(explorer->Generate(UserRequest(prompt, 0.7, 1))->choices[0],
            explorer->Generate(UserRequest(prompt, 0.7, 2))->choices[0]);
  EXPECT_NE(explorer->Generate(UserRequest(prompt, 0.7, 1))->choices[0],
            Make("sim:steady", &executor)->Generate(UserRequest(prompt, 0.7, 1))->choices[0]);
}

TEST(SimChatModelTest, CallbackRunsOnlyThroughTheExecutor) {
  QueueExecutor executor;
  auto model = Make("sim:steady", &executor);
  bool called = false;
  model->Complete(UserRequest(AidanPrompt(TestQuestions()[2], {})), [&called](absl::StatusOr<ChatReply> reply) {
    EXPECT_TRUE(reply.ok());
    called = true;
  });
  EXPECT_FALSE(called);
  EXPECT_EQ(executor.pending(), 1u);
  executor.RunAll();
  EXPECT_TRUE(called);

  // Errors take the same path.
  bool error_called = false;
  model->Complete(ChatRequest{}, [&error_called](absl::StatusOr<ChatReply> reply) {
    EXPECT_EQ(reply.status().code(), absl::StatusCode::kInvalidArgument);
    error_called = true;
  });
  EXPECT_FALSE(error_called);
  executor.RunAll();
  EXPECT_TRUE(error_called);
}

TEST(SimChatModelTest, ConcurrentCallsGiveTheSequentialAnswers) {
  ThreadPool pool(4);
  auto model = Make("sim:explorer", &pool);
  constexpr int kCalls = 200;
  std::vector<ChatRequest> requests;
  for (int i = 0; i < kCalls; ++i) {
    const std::string& question = TestQuestions()[i % TestQuestions().size()];
    requests.push_back(UserRequest(AidanPrompt(question, {"An earlier answer about the topic."}), 0.1 * (i % 12), i));
  }
  absl::Mutex mu;
  std::vector<std::string> got(kCalls);
  absl::BlockingCounter done(kCalls);
  for (int i = 0; i < kCalls; ++i) {
    // Call from pool threads so that many Generate calls overlap.
    pool.Schedule([&, i] {
      model->Complete(requests[i], [&, i](absl::StatusOr<ChatReply> reply) {
        EXPECT_TRUE(reply.ok()) << reply.status();
        absl::MutexLock lock(&mu);
        if (reply.ok()) got[i] = reply->choices[0];
        done.DecrementCount();
      });
    });
  }
  done.Wait();
  for (int i = 0; i < kCalls; ++i) {
    absl::MutexLock lock(&mu);
    EXPECT_EQ(got[i], model->Generate(requests[i])->choices[0]) << i;
  }
}

TEST(SimChatModelTest, RejectsBadRequests) {
  QueueExecutor executor;
  auto model = Make("sim:steady", &executor);
  ChatRequest no_user;
  no_user.messages.push_back({"system", "You are helpful."});
  EXPECT_EQ(model->Generate(no_user).status().code(), absl::StatusCode::kInvalidArgument);
  ChatRequest zero_n = UserRequest("Name a color");
  zero_n.n = 0;
  EXPECT_EQ(model->Generate(zero_n).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(model->Generate(UserRequest("Name a color", 3.0)).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(SimChatModelTest, AnswersInTagsWhenAskedAndPlainTextOtherwise) {
  QueueExecutor executor;
  auto model = Make("sim:explorer", &executor);
  for (uint64_t seed = 0; seed < 20; ++seed) {
    auto tagged = model->Generate(UserRequest(AidanPrompt(TestQuestions()[3], {}), 0.7, seed));
    ASSERT_TRUE(tagged.ok());
    ASSERT_TRUE(ExtractLastTag(tagged->choices[0], "answer").has_value()) << tagged->choices[0];
    // On topic: the question's content words appear in the answer.
    const std::string answer = Answer(tagged->choices[0]);
    EXPECT_TRUE(answer.find("brick") != std::string::npos || answer.find("blanket") != std::string::npos) << answer;

    auto story = model->Generate(UserRequest("Tell me a story in five sentences about a girl and her dog.", 1.0, seed));
    ASSERT_TRUE(story.ok());
    EXPECT_THAT(story->choices[0], Not(HasSubstr("<answer>")));
    EXPECT_GE(simtest::WordCount(story->choices[0]), 10);
  }
  auto short_reply = model->Generate(UserRequest("Name a color.", 1.0));
  ASSERT_TRUE(short_reply.ok());
  EXPECT_LE(simtest::WordCount(short_reply->choices[0]), 3) << short_reply->choices[0];
}

TEST(SimChatModelTest, NChoicesAreIndependentSamples) {
  QueueExecutor executor;
  const std::string prompt = "Tell me a story in five sentences about a boy and his dog.";
  ChatRequest request = UserRequest(prompt, 1.0, 7);
  request.n = 10;
  auto explorer = Make("sim:explorer", &executor)->Generate(request);
  auto collapse = Make("sim:collapse", &executor)->Generate(request);
  ASSERT_TRUE(explorer.ok());
  ASSERT_TRUE(collapse.ok());
  ASSERT_EQ(explorer->choices.size(), 10u);
  ASSERT_EQ(collapse->choices.size(), 10u);
  EXPECT_GE(DistinctIdeas(explorer->choices), 6u);
  EXPECT_LE(DistinctIdeas(collapse->choices), 4u);
  // Choice 0 of an n=10 request is the n=1 answer.
  request.n = 1;
  EXPECT_EQ(Make("sim:explorer", &executor)->Generate(request)->choices[0], explorer->choices[0]);
}

TEST(SimChatModelTest, ParaphrasesOfAPromptShareIdeas) {
  // NoveltyBench's paraphrase mode: one generation per paraphrase (curated-0).
  const std::vector<std::string> paraphrases = {
      "Create a five-sentence story involving a girl and her dog.",
      "Write a short story in five sentences that includes a girl and her pet dog.",
      "Can you craft a five-sentence tale about a girl and the adventures she has with her dog?",
      "Compose a brief narrative, only five sentences long, featuring a girl and her dog.",
      "Please construct a story in five sentences that centers on a girl and her canine companion.",
      "In five sentences, tell a story about the bond between a girl and her dog.",
      "Draft a five-sentence story about a girl and her loyal dog.",
      "Imagine a scenario involving a girl and her dog, and describe it in five sentences.",
      "Illustrate a story in five sentences where a girl and her dog are the main characters.",
      "Narrate a story in just five sentences focusing on a girl and her dog.",
  };
  QueueExecutor executor;
  size_t explorer_total = 0, collapse_total = 0;
  for (uint64_t seed = 0; seed < 10; ++seed) {
    std::vector<std::string> explorer, collapse;
    for (const std::string& prompt : paraphrases) {
      explorer.push_back(Make("sim:explorer", &executor)->Generate(UserRequest(prompt, 1.0, seed))->choices[0]);
      collapse.push_back(Make("sim:collapse", &executor)->Generate(UserRequest(prompt, 1.0, seed))->choices[0]);
    }
    explorer_total += DistinctIdeas(explorer);
    collapse_total += DistinctIdeas(collapse);
  }
  RecordProperty("explorer_distinct_per_10", std::to_string(explorer_total / 10.0));
  RecordProperty("collapse_distinct_per_10", std::to_string(collapse_total / 10.0));
  EXPECT_LT(collapse_total, explorer_total);
  EXPECT_LE(collapse_total, 75u);  // out of 100 generations: paraphrases do not make every idea new
}

TEST(SimChatModelTest, AvoidsAnIdeaItAlreadyGave) {
  QueueExecutor executor;
  auto model = Make("sim:explorer", &executor);
  LexicalEmbedder embedder(256, &executor);
  int avoided = 0, trials = 0;
  for (const std::string& question : TestQuestions()) {
    // At temperature 0 the first answer is the most salient idea; asked again with it as a previous
    // answer, the model should move on.
    const std::string first = Answer(model->Generate(UserRequest(AidanPrompt(question, {}), 0.0))->choices[0]);
    const std::string second = Answer(model->Generate(UserRequest(AidanPrompt(question, {first}), 0.0))->choices[0]);
    ++trials;
    avoided += Cosine(embedder.EmbedOne(first), embedder.EmbedOne(second)) < 0.5;
  }
  EXPECT_GE(avoided, trials - 1);
}

TEST(SimChatModelTest, InContextSamplingReadsEarlierAssistantTurns) {
  QueueExecutor executor;
  auto model = Make("sim:steady", &executor);
  const std::string prompt = "Tell me a story in five sentences about a girl and her dog.";
  const std::string first = model->Generate(UserRequest(prompt, 0.0))->choices[0];
  ChatRequest request = UserRequest(prompt, 0.0);
  request.messages.push_back({"assistant", first});
  request.messages.push_back({"user", "Can you generate a different answer?"});
  auto second = model->Generate(request);
  ASSERT_TRUE(second.ok());
  EXPECT_NE(second->choices[0], first);
  // Still about the original prompt, not about "generate a different answer".
  EXPECT_TRUE(second->choices[0].find("girl") != std::string::npos ||
              second->choices[0].find("dog") != std::string::npos ||
              second->choices[0].find("story") != std::string::npos)
      << second->choices[0];
}

TEST(SimChatModelTest, HigherTemperatureMeansMoreIncoherentAnswers) {
  QueueExecutor executor;
  for (const char* id : {"sim:chaotic", "sim:steady"}) {
    auto model = Make(id, &executor);
    int incoherent_low = 0, incoherent_high = 0;
    for (uint64_t seed = 0; seed < 40; ++seed) {
      for (const std::string& question : TestQuestions()) {
        const std::string prompt = AidanPrompt(question, {});
        auto low = model->Generate(UserRequest(prompt, 0.2, seed));
        auto high = model->Generate(UserRequest(prompt, 1.2, seed));
        incoherent_low += SimJudgeModel::ScoreCoherence(question, Answer(low->choices[0])) <= 15;
        incoherent_high += SimJudgeModel::ScoreCoherence(question, Answer(high->choices[0])) <= 15;
      }
    }
    EXPECT_GT(incoherent_high, 2 * incoherent_low + 2) << id;
  }
}

TEST(SimChatModelTest, OutputIsValidUtf8EvenForBrokenInput) {
  QueueExecutor executor;
  auto model = Make("sim:chaotic", &executor);
  const std::string question = "Why is Caf\xC3\xA9 \xE2\x80\x9Cna\xC3\xAFve\xE2\x80\x9D \xFF\xFE broken\xC3?";
  std::vector<std::string> previous = {"bad \xF0\x28\x8C\x28 bytes", "caf\xC3\xA9 ok"};
  for (uint64_t seed = 0; seed < 50; ++seed) {
    for (const std::string& prompt : {AidanPrompt(question, previous), question}) {
      ChatRequest request = UserRequest(prompt, 1.5, seed);
      request.n = 3;
      auto reply = model->Generate(request);
      ASSERT_TRUE(reply.ok());
      for (const std::string& choice : reply->choices) EXPECT_EQ(SanitizeUtf8(choice), choice);
    }
  }
}

TEST(SimChatModelTest, CountsTokensAndHonoursMaxTokens) {
  QueueExecutor executor;
  auto model = Make("sim:explorer", &executor);
  ChatRequest request = UserRequest(AidanPrompt(TestQuestions()[4], {"one two three"}), 0.7, 3);
  request.messages.insert(request.messages.begin(), {"system", "Be brief."});
  auto reply = model->Generate(request);
  ASSERT_TRUE(reply.ok());
  EXPECT_EQ(reply->prompt_tokens, 2 + simtest::WordCount(request.messages[1].content));
  EXPECT_EQ(reply->completion_tokens, simtest::WordCount(reply->choices[0]));
  request.max_tokens = 5;
  auto truncated = model->Generate(request);
  ASSERT_TRUE(truncated.ok());
  EXPECT_EQ(simtest::WordCount(truncated->choices[0]), 5);
  EXPECT_EQ(truncated->completion_tokens, 5);
  EXPECT_EQ(reply->choices[0].rfind(truncated->choices[0], 0), 0u);  // a prefix
}

}  // namespace
}  // namespace noveltygrid
