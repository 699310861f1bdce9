#include "worker/models/model_factory.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim_test_util.h"

namespace noveltygrid {
namespace {

using simtest::QueueExecutor;
using ::testing::HasSubstr;

TEST(ModelFactoryTest, MakesEverySimulatedModel) {
  QueueExecutor executor;
  const ModelContext context{&executor};
  for (const char* id : {"sim:explorer", "sim:steady", "sim:collapse", "sim:chaotic", "sim:judge", "sim:judge-flaky"}) {
    auto model = MakeChatModel(id, context);
    ASSERT_TRUE(model.ok()) << id << ": " << model.status();
    EXPECT_EQ((*model)->id(), id);
  }
}

TEST(ModelFactoryTest, UnknownPersonalityListsKnownOnes) {
  QueueExecutor executor;
  auto model = MakeChatModel("sim:genius", ModelContext{&executor});
  ASSERT_EQ(model.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(model.status().message(), HasSubstr("sim:genius"));
  for (const char* known : {"sim:explorer", "sim:steady", "sim:collapse", "sim:chaotic", "sim:judge"}) {
    EXPECT_THAT(model.status().message(), HasSubstr(known));
  }
}

TEST(ModelFactoryTest, UnknownIdsWithoutAnEndpointAreRefused) {
  QueueExecutor executor;
  auto chat = MakeChatModel("openai/gpt-4o", ModelContext{&executor});
  ASSERT_EQ(chat.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(chat.status().message(), HasSubstr("'openai/gpt-4o'"));
  EXPECT_THAT(chat.status().message(), HasSubstr("no provider endpoint"));
  auto embedder = MakeEmbedder("text-embedding-3-large", ModelContext{&executor});
  EXPECT_EQ(embedder.status().code(), absl::StatusCode::kInvalidArgument);
  // An embedder id is not a chat model and vice versa.
  EXPECT_EQ(MakeChatModel("lexical", ModelContext{&executor}).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(MakeEmbedder("sim:explorer", ModelContext{&executor}).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(ModelFactoryTest, AnEndpointNeedsAProviderHub) {
  QueueExecutor executor;
  ModelEndpoint endpoint;
  endpoint.name = "openai:gpt-4o";
  endpoint.remote_model = "gpt-4o";
  endpoint.provider = *KnownProviderDefaults("openai");
  auto chat = MakeChatModel(endpoint.name, ModelContext{&executor}, &endpoint);
  EXPECT_EQ(chat.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(chat.status().message(), HasSubstr("cannot reach HTTP providers"));
}

TEST(ModelFactoryTest, MakesLexicalEmbedders) {
  QueueExecutor executor;
  auto plain = MakeEmbedder("lexical", ModelContext{&executor});
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ((*plain)->dimensions(), 256);
  auto sized = MakeEmbedder("lexical-96", ModelContext{&executor});
  ASSERT_TRUE(sized.ok());
  EXPECT_EQ((*sized)->dimensions(), 96);
  EXPECT_EQ(MakeEmbedder("lexical-x", ModelContext{&executor}).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(ModelFactoryTest, RequiresAnExecutor) {
  EXPECT_EQ(MakeChatModel("sim:steady", ModelContext{}).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(MakeChatModel("sim:judge", ModelContext{}).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(MakeEmbedder("lexical", ModelContext{}).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace noveltygrid
