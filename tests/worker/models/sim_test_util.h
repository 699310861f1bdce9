// Test helpers for the model tests: an executor that queues tasks until the test runs them, blocking
// wrappers over the async model calls, the AidanBench prompt wording and a small AidanBench loop.
#ifndef NOVELTYGRID_TESTS_WORKER_SIM_SIM_TEST_UTIL_H_
#define NOVELTYGRID_TESTS_WORKER_SIM_SIM_TEST_UTIL_H_

#include <cmath>
#include <deque>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "common/executor.h"
#include "common/text.h"
#include "worker/models/model.h"

namespace noveltygrid::simtest {

// Single-threaded: holds scheduled tasks until RunAll().
class QueueExecutor : public Executor {
 public:
  void Schedule(Task task) override { tasks_.push_back(std::move(task)); }
  size_t pending() const { return tasks_.size(); }
  void RunAll() {
    while (!tasks_.empty()) {
      Task task = std::move(tasks_.front());
      tasks_.pop_front();
      std::move(task)();
    }
  }

 private:
  std::deque<Task> tasks_;
};

inline absl::StatusOr<ChatReply> CompleteSync(ChatModel& model, QueueExecutor& executor, ChatRequest request) {
  std::optional<absl::StatusOr<ChatReply>> result;
  model.Complete(std::move(request), [&result](absl::StatusOr<ChatReply> reply) { result = std::move(reply); });
  executor.RunAll();
  return std::move(*result);
}

inline Embedding EmbedSync(Embedder& embedder, QueueExecutor& executor, std::string text) {
  std::vector<Embedding> out;
  embedder.Embed({std::move(text)}, [&out](absl::StatusOr<EmbedReply> reply) { out = std::move(reply->vectors); });
  executor.RunAll();
  return out.at(0);
}

// Whitespace-separated words, counted independently of the code under test.
inline int64_t WordCount(const std::string& text) {
  int64_t words = 0;
  bool in_word = false;
  for (char c : text) {
    const bool space = c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
    words += !space && !in_word;
    in_word = !space;
  }
  return words;
}

inline ChatRequest UserRequest(std::string content, double temperature = 0.7, uint64_t seed = 0) {
  ChatRequest request;
  request.messages.push_back({"user", std::move(content)});
  request.temperature = temperature;
  request.seed = seed;
  return request;
}

// The AidanBench reference wording (data/aidanbench/prompts-reference.json).
inline std::string AidanPrompt(const std::string& question, const std::vector<std::string>& previous) {
  std::string prompt =
      absl::StrCat("Answer the following question:.\n<question>", question,
                   "</question>\nProvide your answer in <answer></answer> XML tags.\n",
                   "Your response should be one direct answer. Only provide one answer. DO NOT list multiple "
                   "answers. Please try to be concise.\n");
  if (!previous.empty()) {
    absl::StrAppend(&prompt,
                    "IMPORTANT: Provide an answer you *HAVE NOT* given previously.\nYour previous "
                    "answers are inside of <previous_answers></previous_answers> XML tags.\n"
                    "<previous_answers>\n");
    for (size_t i = 0; i < previous.size(); ++i) {
      if (i > 0) prompt += "\n\n";
      absl::StrAppend(&prompt, "<previous_answer id='", i + 1, "'>\n", previous[i], "\n</previous_answer>");
    }
    prompt += "\n</previous_answers>";
  }
  return prompt;
}

inline std::string CoherencePrompt(const std::string& question, const std::string& answer, bool ten_point = false) {
  return absl::StrCat(
      "Your task is to evaluate the coherence and plausibility of an answer to a given question.\n\n"
      "Question: <question>",
      question, "</question>\nAnswer: <answer>", answer,
      "</answer>\n\nBased on the following criteria, provide a Coherence and Plausibility Score on "
      "a scale of ",
      ten_point ? "1 to 10" : "0 - 100",
      ":\n\n0-20: INCOHERENT/NONSENSICAL\n81-100: HIGHLY COHERENT\n\nIMPORTANT: Provide your final "
      "score as a single integer, enclosed in <coherence_score></coherence_score> XML tags. For "
      "example:\n<coherence_score>75</coherence_score>\n");
}

inline double Cosine(const Embedding& a, const Embedding& b) { return CosineSimilarity(a, b); }

// Judges `answer` with `judge` on the 0-100 scale; -1 when the reply does not parse.
inline int JudgeCoherence(ChatModel& judge, QueueExecutor& executor, const std::string& question,
                          const std::string& answer) {
  absl::StatusOr<ChatReply> reply = CompleteSync(judge, executor, UserRequest(CoherencePrompt(question, answer), 0.0));
  if (!reply.ok()) return -1;
  std::optional<std::string> tag = ExtractLastTag(reply->choices.at(0), "coherence_score");
  std::optional<long long> score = tag ? ParsePythonInt(*tag) : std::nullopt;
  return score ? static_cast<int>(*score) : -1;
}

struct LoopResult {
  int valid = 0;  // answers before the first with novelty < 0.15 or coherence <= 15
  std::vector<std::string> answers;
};

// The AidanBench loop of the reference, capped at `max_answers`.
inline LoopResult RunAidanLoop(ChatModel& model, ChatModel& judge, Embedder& embedder, QueueExecutor& executor,
                               const std::string& question, double temperature, uint64_t seed, int max_answers = 150) {
  LoopResult result;
  std::vector<Embedding> embeddings;
  while (result.valid < max_answers) {
    absl::StatusOr<ChatReply> reply =
        CompleteSync(model, executor, UserRequest(AidanPrompt(question, result.answers), temperature, seed));
    if (!reply.ok()) break;
    const std::string& text = reply->choices.at(0);
    std::string answer = ExtractLastTag(text, "answer").value_or(std::string(StripWhitespace(text)));
    const int coherence = JudgeCoherence(judge, executor, question, answer);
    Embedding embedding = EmbedSync(embedder, executor, answer);
    double max_similarity = 0;
    for (const Embedding& e : embeddings) max_similarity = std::max(max_similarity, Cosine(e, embedding));
    const double novelty = 1.0 - max_similarity;
    result.answers.push_back(std::move(answer));
    embeddings.push_back(std::move(embedding));
    if (coherence <= 15 || novelty < 0.15) break;
    ++result.valid;
  }
  return result;
}

inline const std::vector<std::string>& TestQuestions() {
  static const auto* const questions = new std::vector<std::string>{
      "Provide an explanation for Japan's Lost Decades.",
      "What is a cause of World War 1?",
      "Why might the United States government nationalize ASI development?",
      "How might you use a brick and a blanket?",
      "What architectural design features should be included in a tasteful home?",
      "What are some potential applications of quantum computing?",
      "How could we reduce plastic waste in the oceans?",
      "What might be a surprising use for a paperclip?",
      "What would happen if the moon disappeared?",
      "How can a small town attract young residents?",
  };
  return *questions;
}

}  // namespace noveltygrid::simtest

#endif  // NOVELTYGRID_TESTS_WORKER_SIM_SIM_TEST_UTIL_H_
