// ProviderChannel::PostRead over real loopback HTTP: the caller's reader checks each 2xx body in its
// own pass (WalkBody), and the channel classifies the reply by those checks as it does
// by ScanBody's: malformed bodies and transient error objects retried, usage charged, one delivery.
#include <atomic>
#include <optional>
#include <string>

#include "absl/synchronization/notification.h"
#include "tests/worker/http/provider_channel_fixture.h"
#include "worker/http/json_reader.h"

namespace noveltygrid::provider_channel_testing {
namespace {

// A reader of bodies like {"text": "..."}: every other member is skipped.
absl::StatusOr<std::string> ReadText(absl::string_view body, BodyScan* scan) {
  JsonReader r(body);
  std::optional<std::string> text;
  WalkBody(r, scan, [&](absl::string_view key, JsonReader&) {
    if (key == "text" && r.Peek() == JsonReader::Type::kString) {
      r.ReadString(&text.emplace());
    } else {
      r.Skip();
    }
  });
  if (!text.has_value()) return absl::InvalidArgumentError("no text member");
  return *std::move(text);
}

struct ReadResult {
  absl::StatusOr<std::string> reply = absl::UnknownError("no reply");
  CallInfo info;
  int reads = 0;       // bodies the reader was given
  int deliveries = 0;  // times the caller was called back
};

class ProviderChannelReadTest : public ProviderChannelTest {
 protected:
  ReadResult Read(ProviderChannel& channel) {
    auto reads = std::make_shared<std::atomic<int>>(0);
    auto deliveries = std::make_shared<std::atomic<int>>(0);
    absl::Notification done;
    ReadResult result;
    PostParsed<std::string>(
        channel, "/chat/completions", R"({"model":"m"})",
        [reads](absl::string_view body, BodyScan* scan) {
          reads->fetch_add(1);
          return ReadText(body, scan);
        },
        [&, deliveries](absl::StatusOr<std::string> reply, CallInfo info) {
          deliveries->fetch_add(1);
          result.reply = std::move(reply);
          result.info = info;
          done.Notify();
        });
    done.WaitForNotification();  // no hedging: each reply was read before the one delivered
    result.reads = reads->load();
    result.deliveries = deliveries->load();
    return result;
  }
};

TEST_F(ProviderChannelReadTest, TheReadersPassDecidesAndItsResultIsDelivered) {
  server_.Push({200, R"({"id":"x","text":"first \u00e9","usage":{"prompt_tokens":5,"completion_tokens":2}})", {}});
  auto channel = Make(Config(server_.base_url()));
  ReadResult r = Read(*channel);
  ASSERT_TRUE(r.reply.ok()) << r.reply.status();
  EXPECT_EQ(*r.reply, "first \xC3\xA9");
  EXPECT_EQ(r.info.attempts, 1);
  EXPECT_EQ(r.reads, 1);
  EXPECT_EQ(r.deliveries, 1);
  EXPECT_EQ(limiter_.released(), (std::vector<int64_t>{7}));  // usage as the reader's pass found it
}

TEST_F(ProviderChannelReadTest, MalformedBodiesAndTransientErrorObjectsAreRetried) {
  server_.Push({200, R"({"text":"cut)", {}});              // truncated
  server_.Push({200, R"({"text":"bad \x escape"})", {}});  // not JSON
  server_.Push({200, R"({"text":"t"} trailing)", {}});     // data after the value
  server_.Push({200, R"({"text":"t","error":{"message":"busy","type":"server_error"}})", {}});
  server_.Push({200, R"({"text":"last"})", {}});
  auto channel = Make(Config(server_.base_url(), /*max_retries=*/5));
  ReadResult r = Read(*channel);
  ASSERT_TRUE(r.reply.ok()) << r.reply.status();
  EXPECT_EQ(*r.reply, "last");
  EXPECT_EQ(r.info.attempts, 5);
  EXPECT_EQ(r.reads, 5);
  EXPECT_EQ(r.deliveries, 1);
}

TEST_F(ProviderChannelReadTest, ARepliesOwnProblemIsDeliveredNotRetried) {
  server_.Push({200, R"({"other":1})", {}});  // valid JSON, but not what the reader wants
  auto channel = Make(Config(server_.base_url()));
  ReadResult r = Read(*channel);
  EXPECT_EQ(r.reply.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(r.reply.status().message(), ::testing::HasSubstr("no text member"));
  EXPECT_EQ(r.info.attempts, 1);
  EXPECT_EQ(r.deliveries, 1);
}

TEST_F(ProviderChannelReadTest, FailuresGoToTheCallerUnread) {
  server_.Push({400, R"({"error":{"message":"bad request body","type":"invalid_request_error"}})", {}});
  auto channel = Make(Config(server_.base_url()));
  ReadResult failed = Read(*channel);
  EXPECT_EQ(failed.reply.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(failed.reply.status().message(), ::testing::HasSubstr("bad request body"));
  EXPECT_EQ(failed.reads, 0);  // not a 2xx body: the reader never saw it
  EXPECT_EQ(failed.deliveries, 1);

  // A permanent error object inside a 200: read, then failed with the provider's words.
  server_.Push({200, R"({"text":"t","error":{"message":"model retired","type":"invalid_request_error"}})", {}});
  ReadResult refused = Read(*channel);
  EXPECT_THAT(refused.reply.status().message(), ::testing::HasSubstr("HTTP 200 with an error object: model retired"));
  EXPECT_EQ(refused.reads, 1);
  EXPECT_EQ(refused.info.attempts, 1);
}

}  // namespace
}  // namespace noveltygrid::provider_channel_testing
