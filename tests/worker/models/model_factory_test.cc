#include "worker/models/model_factory.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim_test_util.h"
#include "worker/sim/sim_models.h"

namespace noveltygrid {
namespace {

using simtest::QueueExecutor;
using ::testing::HasSubstr;

// The simulated family registered, and a context with (context_) or without (no_executor_) an executor.
class ModelFactoryTest : public ::testing::Test {
 protected:
  const BuiltinModels sim_ = SimBuiltinModels();
  QueueExecutor executor_;
  const ModelContext context_{&executor_, nullptr, &sim_};
  const ModelContext no_executor_{nullptr, nullptr, &sim_};
};

TEST_F(ModelFactoryTest, MakesEverySimulatedModel) {
  for (const char* id : {"sim:explorer", "sim:steady", "sim:collapse", "sim:chaotic", "sim:judge", "sim:judge-flaky"}) {
    auto model = MakeChatModel(id, context_);
    ASSERT_TRUE(model.ok()) << id << ": " << model.status();
    EXPECT_EQ((*model)->id(), id);
  }
}

TEST_F(ModelFactoryTest, UnknownPersonalityListsKnownOnes) {
  auto model = MakeChatModel("sim:genius", context_);
  ASSERT_EQ(model.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(model.status().message(), HasSubstr("sim:genius"));
  for (const char* known : {"sim:explorer", "sim:steady", "sim:collapse", "sim:chaotic", "sim:judge"}) {
    EXPECT_THAT(model.status().message(), HasSubstr(known));
  }
}

TEST_F(ModelFactoryTest, UnknownIdsWithoutAnEndpointAreRefused) {
  auto chat = MakeChatModel("openai/gpt-4o", context_);
  ASSERT_EQ(chat.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(chat.status().message(), HasSubstr("'openai/gpt-4o'"));
  EXPECT_THAT(chat.status().message(), HasSubstr("no provider endpoint"));
  auto embedder = MakeEmbedder("text-embedding-3-large", context_);
  EXPECT_EQ(embedder.status().code(), absl::StatusCode::kInvalidArgument);
  // An embedder id is not a chat model and vice versa.
  EXPECT_EQ(MakeChatModel("lexical", context_).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(MakeEmbedder("sim:explorer", context_).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(ModelFactoryTest, AnEndpointNeedsAProviderHub) {
  ModelEndpoint endpoint;
  endpoint.name = "openai:gpt-4o";
  endpoint.remote_model = "gpt-4o";
  endpoint.provider = *KnownProviderDefaults("openai");
  auto chat = MakeChatModel(endpoint.name, context_, &endpoint);
  EXPECT_EQ(chat.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(chat.status().message(), HasSubstr("cannot reach HTTP providers"));
}

TEST_F(ModelFactoryTest, MakesLexicalEmbedders) {
  auto plain = MakeEmbedder("lexical", context_);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ((*plain)->dimensions(), 256);
  auto sized = MakeEmbedder("lexical-96", context_);
  ASSERT_TRUE(sized.ok());
  EXPECT_EQ((*sized)->dimensions(), 96);
  EXPECT_EQ(MakeEmbedder("lexical-x", context_).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(ModelFactoryTest, RequiresAnExecutor) {
  EXPECT_EQ(MakeChatModel("sim:steady", no_executor_).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(MakeChatModel("sim:judge", no_executor_).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(MakeEmbedder("lexical", no_executor_).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(ModelFactoryTest, TheRefusalNamesTheRegisteredFamilies) {
  EXPECT_EQ(
      MakeChatModel("openai/gpt-4o", context_).status().message(),
      "model 'openai/gpt-4o': not a built-in model (sim:NAME, lexical) and no provider endpoint was given for it");
  // Without the simulated family registered, "sim:..." ids are ordinary unknown ids.
  auto chat = MakeChatModel("sim:steady", ModelContext{&executor_});
  EXPECT_EQ(chat.status().message(),
            "model 'sim:steady': not a built-in model (lexical) and no provider endpoint was given for it");
}

}  // namespace
}  // namespace noveltygrid
