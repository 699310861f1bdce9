// UnitActivity and TrackedModels: a unit's calls are noted as they start and end, named by role and
// model, with their provider's timeout; the unit is forgotten when its models go.
#include "worker/activity/unit_activity.h"

#include <optional>
#include <string>

#include "gtest/gtest.h"
#include "tests/worker/models/sim_test_util.h"
#include "tests/worker/partition/fake_models.h"

namespace noveltygrid {
namespace {

using nbtest::FakeChat;
using nbtest::FakeEmbedder;
using simtest::QueueExecutor;

TEST(UnitActivityTest, TrackedCallsShowWhatAUnitWaitsOnUntilTheyEnd) {
  FakeClock clock;
  UnitActivity board(&clock);
  QueueExecutor executor;
  FakeChat chat("model-a", &executor, [](const ChatRequest&, int) { return "reply"; });
  FakeEmbedder embedder(&executor);
  ModelEndpoint endpoint;
  endpoint.provider.timeout = absl::Seconds(7);
  {
    TrackedModels tracked(&board, "u1");
    ChatModel* judge = tracked.Chat(&chat, "judge", &endpoint);
    Embedder* embed = tracked.Embedding(&embedder, "embed", nullptr);
    EXPECT_EQ(tracked.Chat(nullptr, "none", nullptr), nullptr);
    EXPECT_FALSE(board.Waiting("u1").has_value()) << "no call made yet";

    const absl::Time asked = clock.Now();
    judge->Complete(ChatRequest(), [](absl::StatusOr<ChatReply>) {});
    clock.Advance(absl::Seconds(3));
    std::optional<WaitingCall> waiting = board.Waiting("u1");
    ASSERT_TRUE(waiting.has_value());
    EXPECT_EQ(waiting->call, "judge by model-a");
    EXPECT_EQ(waiting->since, asked);
    EXPECT_EQ(waiting->timeout, absl::Seconds(7));
    EXPECT_EQ(waiting->in_flight, 1);

    embed->Embed({"text"}, [](absl::StatusOr<EmbedReply>) {});
    waiting = board.Waiting("u1");
    ASSERT_TRUE(waiting.has_value());
    EXPECT_EQ(waiting->call, "embed by " + embedder.id());
    EXPECT_EQ(waiting->timeout, CallTimeout(nullptr)) << "an in-process model: the default provider timeout";
    EXPECT_EQ(waiting->in_flight, 2);

    executor.RunAll();  // both replies arrive
    EXPECT_EQ(board.Waiting("u1")->in_flight, 0);
    EXPECT_FALSE(board.Waiting("u2").has_value());
  }
  EXPECT_FALSE(board.Waiting("u1").has_value()) << "the unit ended: forgotten";
}

}  // namespace
}  // namespace noveltygrid
