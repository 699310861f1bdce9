// The in-process simulated scorers: the same numbers as serve-sim's pure functions, in input order,
// always delivered through the executor.
#include "worker/sim/sim_scorers.h"

#include <deque>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/executor.h"
#include "gtest/gtest.h"
#include "tests/worker/partition/fake_models.h"
#include "worker/sim/sim_scoring.h"

namespace noveltygrid {
namespace {

using ::noveltygrid::nbtest::ManualExecutor;  // a reply delivered inline would be caught

const std::vector<TextPair> kPairs = {
    {"Use the brick as a doorstop.", "Use the brick as a doorstop."},
    {"Use the brick as a doorstop.", "Paint it and keep it as a paperweight on your desk."},
    {"", ""},
    {"A red sunset over the sea.", ""},
};

// The reply `ask(callback)` gets from a scorer on `executor`: not inline, but from the one task it
// leaves on the executor.
template <typename Reply, typename Ask>
absl::StatusOr<Reply> ReplyThroughExecutor(ManualExecutor& executor, Ask ask) {
  std::optional<absl::StatusOr<Reply>> reply;
  ask([&reply](absl::StatusOr<Reply> r) { reply = std::move(r); });
  EXPECT_FALSE(reply.has_value()) << "delivered inline";
  EXPECT_EQ(executor.pending(), 1u);
  executor.RunAll();
  if (!reply.has_value()) return absl::InternalError("no reply");
  return *std::move(reply);
}

absl::StatusOr<ScoredPairs> Classify(ManualExecutor& executor, PairClassifier& classifier,
                                     const std::vector<TextPair>& pairs) {
  return ReplyThroughExecutor<ScoredPairs>(executor,
                                           [&](ClassifyCallback done) { classifier.Classify(pairs, std::move(done)); });
}

TEST(SimPairClassifierTest, ProbabilitiesAreSimSameIdeaProbabilityInOrder) {
  ManualExecutor executor;
  SimPairClassifier classifier(&executor);
  EXPECT_EQ(classifier.id(), "sim:classifier");
  const absl::StatusOr<ScoredPairs> reply = Classify(executor, classifier, kPairs);
  ASSERT_TRUE(reply.ok()) << reply.status();
  ASSERT_EQ(reply->same_probability.size(), kPairs.size());
  for (size_t i = 0; i < kPairs.size(); ++i) {
    EXPECT_EQ(reply->same_probability[i], SimSameIdeaProbability(kPairs[i].first, kPairs[i].second)) << i;
  }
  EXPECT_GT(reply->same_probability[0], 0.9);  // identical texts
  EXPECT_LT(reply->same_probability[1], 0.5);  // different ideas
  EXPECT_EQ(reply->call.requests, 0);          // no HTTP
}

TEST(SimPairClassifierTest, EmptyCallStillGoesThroughTheExecutor) {
  ManualExecutor executor;
  SimPairClassifier classifier(&executor);
  const absl::StatusOr<ScoredPairs> reply = Classify(executor, classifier, {});
  ASSERT_TRUE(reply.ok()) << reply.status();
  EXPECT_TRUE(reply->same_probability.empty());
}

TEST(SimRewardModelTest, ScoresAreSimRewardInOrder) {
  ManualExecutor executor;
  SimRewardModel reward(&executor);
  EXPECT_EQ(reward.id(), "sim:reward");
  const std::vector<RewardItem> items = {
      {"Name one unusual use for a brick.", "Use it as a doorstop: it is heavy and does not slide on tiles."},
      {"Name one unusual use for a brick.", "brick the of of purple the"},
      {"Invent a name for a new color.", ""},
  };
  const absl::StatusOr<RewardScores> reply =
      ReplyThroughExecutor<RewardScores>(executor, [&](RewardCallback done) { reward.Score(items, std::move(done)); });
  ASSERT_TRUE(reply.ok()) << reply.status();
  ASSERT_EQ(reply->scores.size(), items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    EXPECT_EQ(reply->scores[i], SimReward(items[i].prompt, items[i].response)) << i;
  }
}

}  // namespace
}  // namespace noveltygrid
