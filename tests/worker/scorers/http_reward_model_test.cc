// HttpRewardModel over real loopback HTTP: against the in-process SimServer's /v1/reward (scores must
// be exactly SimReward's) and against a canned server for the reply shapes serve-sim never sends.
#include "worker/scorers/http_reward_model.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "sim_server/sim_server.h"
#include "tests/worker/scorers/scorer_test_env.h"
#include "worker/sim/sim_scoring.h"

namespace noveltygrid::testing {
namespace {

std::vector<RewardItem> MakeItems(int count) {
  const std::vector<std::string> prompts = {"Name one unusual use for a brick.", "Invent a name for a new color.",
                                            "Suggest a gift for a retired astronaut."};
  const std::vector<std::string> responses = {
      "Use it as a doorstop: it is heavy, stable and does not slide on tiles.",
      "brick brick purple the the of of",
      "",
      "Sunset Ember -- the orange that glows at the edge of a campfire.",
      "A framed star chart of the night sky on the day of their first launch.",
  };
  std::vector<RewardItem> items;
  for (int i = 0; i < count; ++i) {
    items.push_back({prompts[i % prompts.size()], absl::StrCat(responses[i % responses.size()], i % 2 ? "" : " Yes.")});
  }
  return items;
}

std::unique_ptr<HttpRewardModel> MakeRewardModel(ChannelStack& stack, int max_batch = 32, std::string model = "") {
  HttpRewardModelOptions options;
  options.id = "sim-reward";
  options.model = std::move(model);
  options.max_batch = max_batch;
  return CreateOnStack<HttpRewardModel>(options, stack);
}

absl::StatusOr<RewardScores> Score(RewardModel& model, std::vector<RewardItem> items) {
  Waiter<RewardScores> waiter;
  model.Score(std::move(items), waiter.Callback());
  return waiter.Wait();
}

TEST(HttpRewardModelTest, ScoresAreSimRewardInOrderAcrossBatches) {
  SimServer server;
  absl::StatusOr<int> port = server.Start({.api_key = "reward-key"});
  ASSERT_TRUE(port.ok()) << port.status();
  // serve-sim's /v1/reward, reached the way an OpenAI-style base URL is configured.
  ChannelStack stack(absl::StrCat("http://127.0.0.1:", *port, "/v1"), "reward-key");
  ASSERT_NE(stack.channel(), nullptr);
  std::unique_ptr<HttpRewardModel> reward = MakeRewardModel(stack, /*max_batch=*/16, "sim:reward");
  ASSERT_NE(reward, nullptr);
  EXPECT_EQ(reward->id(), "sim-reward");

  const std::vector<RewardItem> items = MakeItems(40);
  absl::StatusOr<RewardScores> scored = Score(*reward, items);
  ASSERT_TRUE(scored.ok()) << scored.status();
  ASSERT_EQ(scored->scores.size(), items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    EXPECT_EQ(scored->scores[i], SimReward(items[i].prompt, items[i].response)) << "item " << i;
  }
  EXPECT_EQ(server.stats().reward, 3);  // 16 + 16 + 8
  EXPECT_EQ(scored->call.requests, 3);
  EXPECT_EQ(scored->call.attempts, 3);

  scored = Score(*reward, {});
  ASSERT_TRUE(scored.ok()) << scored.status();
  EXPECT_TRUE(scored->scores.empty());
  EXPECT_EQ(server.stats().reward, 3);
}

TEST(HttpRewardModelTest, SendsInputsAndTheModelOnlyWhenSet) {
  CannedServer canned;
  canned.Answer("/reward", 200, R"({"scores":[-1.5, 2]})");
  ChannelStack stack(canned.base_url());
  ASSERT_NE(stack.channel(), nullptr);
  const std::vector<RewardItem> items = {{"p1", "r1"}, {"p2", "r2"}};

  std::unique_ptr<HttpRewardModel> named = MakeRewardModel(stack, 32, "skywork");
  ASSERT_NE(named, nullptr);
  absl::StatusOr<RewardScores> scored = Score(*named, items);
  ASSERT_TRUE(scored.ok()) << scored.status();
  EXPECT_EQ(scored->scores, (std::vector<double>{-1.5, 2.0}));
  EXPECT_EQ(nlohmann::json::parse(canned.last_body()),
            nlohmann::json::parse(
                R"({"inputs":[{"prompt":"p1","response":"r1"},{"prompt":"p2","response":"r2"}],"model":"skywork"})"));

  std::unique_ptr<HttpRewardModel> unnamed = MakeRewardModel(stack);
  ASSERT_NE(unnamed, nullptr);
  ASSERT_TRUE(Score(*unnamed, items).ok());
  EXPECT_FALSE(nlohmann::json::parse(canned.last_body()).contains("model"));
}

TEST(HttpRewardModelTest, RejectsMalformedRepliesNamingTheEndpoint) {
  CannedServer canned;
  ChannelStack stack(canned.base_url());
  ASSERT_NE(stack.channel(), nullptr);
  std::unique_ptr<HttpRewardModel> reward = MakeRewardModel(stack);
  ASSERT_NE(reward, nullptr);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"model":"m"})", "no 'scores' array"},
      {R"({"scores":{"0":1.0}})", "no 'scores' array"},
      {R"({"scores":[1.0]})", "1 scores for 2 items"},
      {R"({"scores":[1.0, 2.0, 3.0]})", "3 scores for 2 items"},
      {R"({"scores":[1.0, "2.0"]})", "score 1 is string, not a number"},
      {R"({"scores":[null, 2.0]})", "score 0 is null, not a number"},
      {R"({"scores":[1.0, [2.0]]})", "score 1 is array, not a number"},
  };
  ExpectRepliesRejected(canned, "/reward", "reward model 'sim-reward'", cases, [&] {
    return Score(*reward, {{"p1", "r1"}, {"p2", "r2"}});
  });
}

}  // namespace
}  // namespace noveltygrid::testing
