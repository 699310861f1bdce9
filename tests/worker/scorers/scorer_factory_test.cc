// The scorer factory: simulated scorers in process, HTTP scorers over the hub's provider channel (here
// against the in-process SimServer), and clear refusals otherwise.
#include "worker/scorers/scorer_factory.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/executor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim_server/sim_server.h"
#include "tests/worker/scorers/scorer_test_env.h"
#include "worker/models/provider_hub.h"
#include "worker/sim/sim_models.h"
#include "worker/sim/sim_scoring.h"

namespace noveltygrid {
namespace {

using ::noveltygrid::testing::Waiter;
using ::testing::HasSubstr;

ModelEndpoint SimEndpoint(const std::string& name, const std::string& base_url) {
  ModelEndpoint endpoint;
  endpoint.name = name;
  endpoint.remote_model = name;
  endpoint.provider.name = absl::StrCat("sim-", base_url);
  endpoint.provider.base_url = base_url;
  endpoint.provider.max_retries = 0;
  return endpoint;
}

TEST(ScorerFactoryTest, SimulatedScorersNeedNoEndpoint) {
  const BuiltinModels sim = SimBuiltinModels();
  ThreadPool pool(1);
  const ModelContext context{&pool, nullptr, &sim};
  absl::StatusOr<std::unique_ptr<PairClassifier>> classifier = MakePairClassifier("sim:classifier", context);
  ASSERT_TRUE(classifier.ok()) << classifier.status();
  EXPECT_EQ((*classifier)->id(), "sim:classifier");
  absl::StatusOr<std::unique_ptr<RewardModel>> reward = MakeRewardModel("sim:reward", context);
  ASSERT_TRUE(reward.ok()) << reward.status();
  EXPECT_EQ((*reward)->id(), "sim:reward");

  Waiter<ScoredPairs> waiter;
  (*classifier)->Classify({{"a b c d e f g", "a b c d e f g"}}, waiter.Callback());
  absl::StatusOr<ScoredPairs> scored = waiter.Wait();
  ASSERT_TRUE(scored.ok());
  EXPECT_EQ(scored->same_probability, std::vector<double>{SimSameIdeaProbability("a b c d e f g", "a b c d e f g")});
}

TEST(ScorerFactoryTest, UnknownIdsAreRefusedByName) {
  const BuiltinModels sim = SimBuiltinModels();
  ThreadPool pool(1);
  const ModelContext context{&pool, nullptr, &sim};
  absl::StatusOr<std::unique_ptr<PairClassifier>> classifier = MakePairClassifier("deberta-similarity", context);
  ASSERT_EQ(classifier.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(classifier.status().message(), HasSubstr("'deberta-similarity'"));
  EXPECT_THAT(classifier.status().message(), HasSubstr("no provider endpoint"));
  absl::StatusOr<std::unique_ptr<RewardModel>> reward = MakeRewardModel("skywork", context);
  ASSERT_EQ(reward.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(reward.status().message(), HasSubstr("'skywork'"));
  // A scorer id of the other role is not accepted either.
  EXPECT_EQ(MakePairClassifier("sim:reward", context).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(MakeRewardModel("sim:classifier", context).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(ScorerFactoryTest, RequiresAnExecutorAndForEndpointsAHub) {
  const BuiltinModels sim = SimBuiltinModels();
  EXPECT_EQ(MakePairClassifier("sim:classifier", ModelContext{nullptr, nullptr, &sim}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(MakeRewardModel("sim:reward", ModelContext{nullptr, nullptr, &sim}).status().code(),
            absl::StatusCode::kInvalidArgument);
  ThreadPool pool(1);
  const ModelEndpoint endpoint = SimEndpoint("tei-classifier", "http://127.0.0.1:1");
  absl::StatusOr<std::unique_ptr<PairClassifier>> classifier =
      MakePairClassifier("tei-classifier", ModelContext{&pool, nullptr, &sim}, &endpoint);
  EXPECT_EQ(classifier.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(classifier.status().message(), HasSubstr("cannot reach HTTP providers"));
}

TEST(ScorerFactoryTest, EndpointsGiveHttpScorersOnTheProviderChannel) {
  const BuiltinModels sim = SimBuiltinModels();
  SimServer server;
  absl::StatusOr<int> port = server.Start(SimServerOptions{});
  ASSERT_TRUE(port.ok()) << port.status();
  ThreadPool pool(2);
  ProviderHubOptions hub_options;
  hub_options.executor = &pool;
  ProviderHub hub(hub_options);
  const ModelContext context{&pool, &hub, &sim};
  // serve-sim answers POST /predict at its root and POST /v1/reward under the OpenAI-style base.
  const ModelEndpoint classifier_endpoint = SimEndpoint("tei:similarity", absl::StrCat("http://127.0.0.1:", *port));
  const ModelEndpoint reward_endpoint = SimEndpoint("sim:reward", absl::StrCat("http://127.0.0.1:", *port, "/v1"));

  absl::StatusOr<std::unique_ptr<PairClassifier>> classifier =
      MakePairClassifier("tei:similarity", context, &classifier_endpoint);
  ASSERT_TRUE(classifier.ok()) << classifier.status();
  EXPECT_EQ((*classifier)->id(), "tei:similarity");
  absl::StatusOr<std::unique_ptr<RewardModel>> reward = MakeRewardModel("sim:reward", context, &reward_endpoint);
  ASSERT_TRUE(reward.ok()) << reward.status();

  const TextPair pair = {"Use the brick as a doorstop.", "Paint the brick and use it as a paperweight."};
  Waiter<ScoredPairs> classified;
  (*classifier)->Classify({pair}, classified.Callback());
  absl::StatusOr<ScoredPairs> scored = classified.Wait();
  ASSERT_TRUE(scored.ok()) << scored.status();
  EXPECT_EQ(scored->same_probability, std::vector<double>{SimSameIdeaProbability(pair.first, pair.second)});
  EXPECT_EQ(scored->call.requests, 1);

  Waiter<RewardScores> rewarded;
  (*reward)->Score({{"Name a use for a brick.", pair.first}}, rewarded.Callback());
  absl::StatusOr<RewardScores> rewards = rewarded.Wait();
  ASSERT_TRUE(rewards.ok()) << rewards.status();
  EXPECT_EQ(rewards->scores, std::vector<double>{SimReward("Name a use for a brick.", pair.first)});
  EXPECT_EQ(server.stats().classify, 1);
  EXPECT_EQ(server.stats().reward, 1);
  hub.Close();
}

}  // namespace
}  // namespace noveltygrid
