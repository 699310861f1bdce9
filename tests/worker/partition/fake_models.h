// Fakes for the NoveltyBench partition and engine tests: an executor the test drives by hand, and
// models whose replies are functions the test sets, which record every call (and can fail on demand).
// Single-threaded: everything runs on the test's thread through ManualExecutor.
#ifndef NOVELTYGRID_TESTS_WORKER_PARTITION_FAKE_MODELS_H_
#define NOVELTYGRID_TESTS_WORKER_PARTITION_FAKE_MODELS_H_

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/executor.h"
#include "gtest/gtest.h"
#include "tests/worker/models/sim_test_util.h"
#include "worker/models/model.h"
#include "worker/partition/async_partition.h"
#include "worker/scorers/scorers.h"

namespace noveltygrid::nbtest {

// The prompt every partition and engine test asks about.
inline const std::string kPrompt = "Name one unusual use for a brick.";

// Runs tasks only when the test says so, so nothing is ever delivered inline by accident.
using ManualExecutor = simtest::QueueExecutor;

// Delivers a scorer's reply through `executor`: `failure` when set, else a `Reply` ({values, call})
// of value(item) per item.
template <typename Reply, typename Item, typename Value, typename Callback>
void ScheduleScores(Executor* executor, const absl::Status& failure, const std::vector<Item>& items, Value value,
                    Callback done) {
  absl::StatusOr<Reply> result;
  if (!failure.ok()) {
    result = failure;
  } else {
    std::vector<double> values;
    for (const Item& item : items) values.push_back(value(item));
    result = Reply{std::move(values), ScorerCallInfo{}};
  }
  executor->Schedule(
      [result = std::move(result), done = std::move(done)]() mutable { std::move(done)(std::move(result)); });
}

// A chat model: choice c of a request is reply(request, c), or the whole call fails with
// fail(request) when that returns an error. Records every request.
class FakeChat : public ChatModel {
 public:
  using ReplyFn = std::function<std::string(const ChatRequest&, int choice)>;
  using FailFn = std::function<absl::Status(const ChatRequest&)>;

  FakeChat(std::string id, Executor* executor, ReplyFn reply)
      : id_(std::move(id)), executor_(executor), reply_(std::move(reply)) {}
  const std::string& id() const override { return id_; }
  void Complete(ChatRequest request, ChatCallback done) override {
    requests.push_back(request);
    absl::StatusOr<ChatReply> result;
    absl::Status failure = fail ? fail(request) : absl::OkStatus();
    if (!failure.ok()) {
      result = failure;
    } else {
      ChatReply reply;
      for (int c = 0; c < request.n; ++c) reply.choices.push_back(reply_(request, c));
      reply.prompt_tokens = 10;
      reply.completion_tokens = 5 * request.n;
      result = std::move(reply);
    }
    executor_->Schedule(
        [result = std::move(result), done = std::move(done)]() mutable { std::move(done)(std::move(result)); });
  }

  std::vector<ChatRequest> requests;
  FailFn fail;

 private:
  std::string id_;
  Executor* executor_;
  ReplyFn reply_;
};

// A pair classifier: P(same) = probability(a, b); records every batch it is asked.
class FakeClassifier : public PairClassifier {
 public:
  using ProbabilityFn = std::function<double(const std::string&, const std::string&)>;
  FakeClassifier(std::string id, Executor* executor, ProbabilityFn probability)
      : id_(std::move(id)), executor_(executor), probability_(std::move(probability)) {}
  const std::string& id() const override { return id_; }
  void Classify(std::vector<TextPair> pairs, ClassifyCallback done) override {
    batches.push_back(pairs);
    ScheduleScores<ScoredPairs>(
        executor_, failure, pairs, [this](const TextPair& p) { return probability_(p.first, p.second); },
        std::move(done));
  }
  size_t pairs_asked() const {
    size_t n = 0;
    for (const auto& b : batches) n += b.size();
    return n;
  }

  std::vector<std::vector<TextPair>> batches;
  absl::Status failure;  // when set, every call fails with it

 private:
  std::string id_;
  Executor* executor_;
  ProbabilityFn probability_;
};

// An embedder from a table; a text not in the table gets a fresh axis. Records every call.
class FakeEmbedder : public Embedder {
 public:
  FakeEmbedder(Executor* executor, int dimensions = 8) : executor_(executor), dimensions_(dimensions) {}
  const std::string& id() const override { return id_; }
  int dimensions() const override { return dimensions_; }
  void Embed(std::vector<std::string> texts, EmbedCallback done) override {
    calls.push_back(texts);
    EmbedReply reply;
    for (const std::string& t : texts) {
      auto it = table.find(t);
      if (it == table.end()) {
        Embedding e(dimensions_, 0.0f);
        e[next_axis_++ % dimensions_] = 1.0f;
        it = table.emplace(t, std::move(e)).first;
      }
      reply.vectors.push_back(it->second);
    }
    reply.prompt_tokens = static_cast<int64_t>(texts.size());
    reply.hedges = hedges;
    executor_->Schedule(
        [reply = std::move(reply), done = std::move(done)]() mutable { std::move(done)(std::move(reply)); });
  }

  std::map<std::string, Embedding> table;
  std::vector<std::vector<std::string>> calls;
  int hedges = 0;  // reported with every reply

 private:
  std::string id_ = "fake-embedder";
  Executor* executor_;
  int dimensions_;
  int next_axis_ = 0;
};

// A reward model: reward(prompt, response); records every batch of items.
class FakeReward : public RewardModel {
 public:
  using RewardFn = std::function<double(const std::string&, const std::string&)>;
  FakeReward(std::string id, Executor* executor, RewardFn reward)
      : id_(std::move(id)), executor_(executor), reward_(std::move(reward)) {}
  const std::string& id() const override { return id_; }
  void Score(std::vector<RewardItem> items, RewardCallback done) override {
    batches.push_back(items);
    ScheduleScores<RewardScores>(
        executor_, failure, items, [this](const RewardItem& item) { return reward_(item.prompt, item.response); },
        std::move(done));
  }

  std::vector<std::vector<RewardItem>> batches;
  absl::Status failure;

 private:
  std::string id_;
  Executor* executor_;
  RewardFn reward_;
};

// Runs a partition of `generations` (answers to kPrompt) to its end on `executor`.
inline PartitionOutcome Partition(ManualExecutor& executor, const std::vector<std::string>& generations,
                                  EquivalenceDecider& decider, EquivalenceCache* cache = nullptr) {
  std::optional<PartitionOutcome> outcome;
  PartitionAsync(kPrompt, generations, &decider, cache, [&outcome](PartitionOutcome o) { outcome = std::move(o); });
  executor.RunAll();
  EXPECT_TRUE(outcome.has_value()) << "the partition never finished";
  return outcome.has_value() ? std::move(*outcome) : PartitionOutcome{absl::InternalError("unfinished"), {}};
}

}  // namespace noveltygrid::nbtest

#endif  // NOVELTYGRID_TESTS_WORKER_PARTITION_FAKE_MODELS_H_
