#include "worker/models/model_factory.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim_test_util.h"
#include "worker/sim/sim_models.h"

namespace noveltygrid {
namespace {

using simtest::QueueExecutor;
using ::testing::HasSubstr;

TEST(ModelFactoryTest, MakesEverySimulatedModel) {
  const BuiltinModels sim = SimBuiltinModels();
  QueueExecutor executor;
  const ModelContext context{&executor, nullptr, &sim};
  for (const char* id : {"sim:explorer", "sim:steady", "sim:collapse", "sim:chaotic", "sim:judge", "sim:judge-flaky"}) {
    auto model = MakeChatModel(id, context);
    ASSERT_TRUE(model.ok()) << id << ": " << model.status();
    EXPECT_EQ((*model)->id(), id);
  }
}

TEST(ModelFactoryTest, UnknownPersonalityListsKnownOnes) {
  const BuiltinModels sim = SimBuiltinModels();
  QueueExecutor executor;
  auto model = MakeChatModel("sim:genius", ModelContext{&executor, nullptr, &sim});
  ASSERT_EQ(model.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(model.status().message(), HasSubstr("sim:genius"));
  for (const char* known : {"sim:explorer", "sim:steady", "sim:collapse", "sim:chaotic", "sim:judge"}) {
    EXPECT_THAT(model.status().message(), HasSubstr(known));
  }
}

TEST(ModelFactoryTest, UnknownIdsWithoutAnEndpointAreRefused) {
  const BuiltinModels sim = SimBuiltinModels();
  QueueExecutor executor;
  auto chat = MakeChatModel("openai/gpt-4o", ModelContext{&executor, nullptr, &sim});
  ASSERT_EQ(chat.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(chat.status().message(), HasSubstr("'openai/gpt-4o'"));
  EXPECT_THAT(chat.status().message(), HasSubstr("no provider endpoint"));
  auto embedder = MakeEmbedder("text-embedding-3-large", ModelContext{&executor, nullptr, &sim});
  EXPECT_EQ(embedder.status().code(), absl::StatusCode::kInvalidArgument);
  // An embedder id is not a chat model and vice versa.
  EXPECT_EQ(MakeChatModel("lexical", ModelContext{&executor, nullptr, &sim}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(MakeEmbedder("sim:explorer", ModelContext{&executor, nullptr, &sim}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(ModelFactoryTest, AnEndpointNeedsAProviderHub) {
  const BuiltinModels sim = SimBuiltinModels();
  QueueExecutor executor;
  ModelEndpoint endpoint;
  endpoint.name = "openai:gpt-4o";
  endpoint.remote_model = "gpt-4o";
  endpoint.provider = *KnownProviderDefaults("openai");
  auto chat = MakeChatModel(endpoint.name, ModelContext{&executor, nullptr, &sim}, &endpoint);
  EXPECT_EQ(chat.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(chat.status().message(), HasSubstr("cannot reach HTTP providers"));
}

TEST(ModelFactoryTest, MakesLexicalEmbedders) {
  const BuiltinModels sim = SimBuiltinModels();
  QueueExecutor executor;
  auto plain = MakeEmbedder("lexical", ModelContext{&executor, nullptr, &sim});
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ((*plain)->dimensions(), 256);
  auto sized = MakeEmbedder("lexical-96", ModelContext{&executor, nullptr, &sim});
  ASSERT_TRUE(sized.ok());
  EXPECT_EQ((*sized)->dimensions(), 96);
  EXPECT_EQ(MakeEmbedder("lexical-x", ModelContext{&executor, nullptr, &sim}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(ModelFactoryTest, RequiresAnExecutor) {
  const BuiltinModels sim = SimBuiltinModels();
  EXPECT_EQ(MakeChatModel("sim:steady", ModelContext{nullptr, nullptr, &sim}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(MakeChatModel("sim:judge", ModelContext{nullptr, nullptr, &sim}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(MakeEmbedder("lexical", ModelContext{nullptr, nullptr, &sim}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(ModelFactoryTest, TheRefusalNamesTheRegisteredFamilies) {
  const BuiltinModels sim = SimBuiltinModels();
  QueueExecutor executor;
  EXPECT_EQ(
      MakeChatModel("openai/gpt-4o", ModelContext{&executor, nullptr, &sim}).status().message(),
      "model 'openai/gpt-4o': not a built-in model (sim:NAME, lexical) and no provider endpoint was given for it");
  // Without the simulated family registered, "sim:..." ids are ordinary unknown ids.
  auto chat = MakeChatModel("sim:steady", ModelContext{&executor});
  EXPECT_EQ(chat.status().message(),
            "model 'sim:steady': not a built-in model (lexical) and no provider endpoint was given for it");
}

}  // namespace
}  // namespace noveltygrid
