// Hedged requests in ProviderChannel (hedge_after_ms): a fake HttpClient that holds every request and
// timer until the test answers or fires it, so each interleaving of original, duplicates and hedge timers
// is written out step by step -- no sleeps, no real time.
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "tests/worker/limits/inline_executor.h"
#include "worker/http/json_reader.h"
#include "worker/http/provider_channel.h"

namespace noveltygrid {
namespace {

// Requests and timers wait here until the test replies to or fires them.
class HeldHttpClient : public HttpClient {
 public:
  struct Held {
    std::shared_ptr<const HttpRequest> request;
    HttpCallback done;
  };
  void Send(std::shared_ptr<const HttpRequest> request, HttpCallback done) override {
    sent.push_back(Held{std::move(request), std::move(done)});
  }
  void RunAfter(absl::Duration delay, Task task) override { timers.push_back({delay, std::move(task)}); }
  HttpClientStats Stats() const override { return {}; }

  // Answers request `i` (in sending order) with `status` and `body`.
  void Reply(size_t i, int status, std::string body = kOk) {
    ASSERT_LT(i, sent.size());
    ASSERT_TRUE(sent[i].done) << "request " << i << " was answered already";
    HttpResponse response;
    response.status = status;
    response.body = std::move(body);
    std::move(sent[i].done)(std::move(response));
    sent[i].done = nullptr;
  }
  void Fail(size_t i, absl::Status error) {
    ASSERT_LT(i, sent.size());
    std::move(sent[i].done)(std::move(error));
    sent[i].done = nullptr;
  }
  // Runs timer `i` (in arming order).
  void Fire(size_t i) {
    ASSERT_LT(i, timers.size());
    ASSERT_TRUE(timers[i].second) << "timer " << i << " ran already";
    std::move(timers[i].second)();
    timers[i].second = nullptr;
  }

  static constexpr char kOk[] = R"({"choices":[{"message":{"content":"same answer"}}],"usage":{"total_tokens":42}})";
  std::vector<Held> sent;
  std::vector<std::pair<absl::Duration, Task>> timers;
};

constexpr char kOverloaded[] = R"({"error":{"message":"overloaded","type":"server_error"}})";

// Grants at once and records what each request reserved and released.
class CountingLimiter : public ProviderLimiter {
 public:
  using ProviderLimiter::Acquire;
  void Acquire(absl::AnyInvocable<void(TokenReservation) &&> go, int64_t reserve_tokens) override {
    ++acquired;
    std::move(go)(TokenReservation{reserve_tokens, 7});
  }
  void Release(int64_t tokens, TokenReservation) override { released.push_back(tokens); }
  ProviderLimiterStats Stats() const override { return {}; }
  void Pump() override {}
  int acquired = 0;
  std::vector<int64_t> released;
};

struct Delivered {
  int count = 0;
  absl::StatusOr<Json> reply = absl::UnknownError("none");
  CallInfo info;
};

class HedgeTest : public ::testing::Test {
 protected:
  std::unique_ptr<ProviderChannel> Make(absl::Duration hedge_after, int max_retries = 3) {
    ProviderConfig config;
    config.name = "test";
    config.base_url = "http://127.0.0.1:1/v1";
    config.max_retries = max_retries;
    config.hedge_after = hedge_after;
    config.timeout = absl::Seconds(30);
    auto channel = ProviderChannel::Create(config, &http_, &limiter_, &executor_);
    EXPECT_TRUE(channel.ok()) << channel.status();
    return channel.ok() ? *std::move(channel) : nullptr;
  }

  void Post(ProviderChannel& channel) {
    channel.PostJson("/chat/completions", Json{{"model", "m"}}, [this](absl::StatusOr<Json> reply, CallInfo info) {
      ++delivered_.count;
      delivered_.reply = std::move(reply);
      delivered_.info = info;
    });
  }

  testing::InlineExecutor executor_;
  HeldHttpClient http_;
  CountingLimiter limiter_;
  Delivered delivered_;
};

TEST_F(HedgeTest, OffByDefaultNoTimerNoDuplicate) {
  auto channel = Make(absl::ZeroDuration());
  Post(*channel);
  EXPECT_EQ(http_.sent.size(), 1u);
  EXPECT_TRUE(http_.timers.empty());
  http_.Reply(0, 200);
  EXPECT_EQ(delivered_.count, 1);
  EXPECT_EQ(delivered_.info.hedges, 0);
}

TEST_F(HedgeTest, ADuplicateAfterTheWaitAnswersOnceAndTheLateOriginalIsIgnored) {
  auto channel = Make(absl::Milliseconds(400));
  Post(*channel);
  ASSERT_EQ(http_.timers.size(), 1u);
  EXPECT_EQ(http_.timers[0].first, absl::Milliseconds(400));
  http_.Fire(0);
  ASSERT_EQ(http_.sent.size(), 2u);
  EXPECT_EQ(http_.sent[1].request, http_.sent[0].request);  // the same request, sent again
  EXPECT_EQ(limiter_.acquired, 2);                          // the duplicate went through the limiter too

  http_.Reply(1, 200);  // the duplicate answers first
  EXPECT_EQ(delivered_.count, 1);
  ASSERT_TRUE(delivered_.reply.ok()) << delivered_.reply.status();
  EXPECT_EQ((*delivered_.reply)["choices"][0]["message"]["content"], "same answer");
  EXPECT_EQ(delivered_.info.attempts, 1);
  EXPECT_EQ(delivered_.info.hedges, 1);
  EXPECT_EQ(delivered_.info.retries(), 0);  // a hedge is not a retry

  http_.Reply(0, 200);  // the original, late: not delivered again, its tokens still released
  EXPECT_EQ(delivered_.count, 1);
  EXPECT_EQ(limiter_.released, (std::vector<int64_t>{42, 42}));
  const ProviderChannelStats stats = channel->Stats();
  EXPECT_EQ(stats.calls, 1);
  EXPECT_EQ(stats.attempts, 1);
  EXPECT_EQ(stats.hedges, 1);
  EXPECT_EQ(stats.hedge_wins, 1);
  EXPECT_EQ(stats.retries, 0);
  EXPECT_EQ(stats.failures, 0);
  EXPECT_EQ(channel->Waits().in_flight, 0);
}

// PostRead: each reply of the attempt is read until one is accepted; a late one is not read at all
// (its usage still charged, from the channel's own check).
class HedgeReadTest : public HedgeTest {
 protected:
  void PostRead(ProviderChannel& channel, std::string body = R"({"model":"m"})") {
    PostParsed<std::string>(
        channel, "/chat/completions", std::move(body),
        [this](absl::string_view body, BodyScan* scan) -> absl::StatusOr<std::string> {
          ++reads_;
          JsonReader r(body);
          WalkBody(r, scan, [&](absl::string_view, JsonReader&) { r.Skip(); });
          return std::string(body);
        },
        [this](absl::StatusOr<std::string> reply, CallInfo info) {
          ++read_delivered_.count;
          read_delivered_.info = info;
          text_ = std::move(reply);
        });
  }
  int reads_ = 0;
  Delivered read_delivered_;
  absl::StatusOr<std::string> text_ = absl::UnknownError("none");
};

TEST_F(HedgeReadTest, TheLateReplyIsNotReadButItsTokensAreReleased) {
  auto channel = Make(absl::Milliseconds(400));
  PostRead(*channel);
  http_.Fire(0);
  http_.Reply(1, 200);  // the duplicate first: read and delivered
  EXPECT_EQ(reads_, 1);
  EXPECT_EQ(read_delivered_.count, 1);
  EXPECT_EQ(read_delivered_.info.hedges, 1);
  ASSERT_TRUE(text_.ok()) << text_.status();
  EXPECT_EQ(*text_, HeldHttpClient::kOk);
  http_.Reply(0, 200);  // the original, late
  EXPECT_EQ(reads_, 1);
  EXPECT_EQ(read_delivered_.count, 1);
  EXPECT_EQ(limiter_.released, (std::vector<int64_t>{42, 42}));
}

// A body's buffer goes back to the channel (BodyBuffer) only once every holder of the request -- the
// original and its duplicate here -- has let go of it; until then the channel hands out another one.
TEST_F(HedgeReadTest, TheBodysBufferComesBackOnlyWhenTheLastHolderLetsGo) {
  auto channel = Make(absl::Milliseconds(400));
  std::string body = channel->BodyBuffer(8192);
  ASSERT_GE(body.capacity(), 8192u);
  const char* const buffer = body.data();
  body.append(R"({"model":"m"})");
  PostRead(*channel, std::move(body));
  ASSERT_EQ(http_.sent.size(), 1u);
  EXPECT_EQ(http_.sent[0].request->body.data(), buffer);  // sent as built, not copied
  http_.Fire(0);
  ASSERT_EQ(http_.sent.size(), 2u);
  EXPECT_EQ(http_.sent[1].request, http_.sent[0].request);  // the duplicate sends the same request
  http_.Reply(1, 200);
  EXPECT_EQ(read_delivered_.count, 1);
  EXPECT_NE(channel->BodyBuffer(8192).data(), buffer);  // the original is still out
  http_.sent[1].request.reset();
  EXPECT_NE(channel->BodyBuffer(8192).data(), buffer);
  http_.Reply(0, 200);  // late: not read
  http_.sent[0].request.reset();
  EXPECT_EQ(channel->BodyBuffer(8192).data(), buffer);
  EXPECT_EQ(read_delivered_.count, 1);
}

TEST_F(HedgeReadTest, AMalformedReplyIsReadThenTheOtherOneDecides) {
  auto channel = Make(absl::Milliseconds(400));
  PostRead(*channel);
  http_.Fire(0);
  http_.Reply(1, 200, R"({"choices":[)");  // malformed: read, refused, and the original still awaited
  EXPECT_EQ(reads_, 1);
  EXPECT_EQ(read_delivered_.count, 0);
  http_.Reply(0, 200);
  EXPECT_EQ(reads_, 2);
  EXPECT_EQ(read_delivered_.count, 1);
  EXPECT_EQ(read_delivered_.info.attempts, 1);  // one attempt, two requests: no retry
  ASSERT_TRUE(text_.ok()) << text_.status();
  EXPECT_EQ(*text_, HeldHttpClient::kOk);
}

TEST_F(HedgeTest, TheOriginalMayStillWinAfterTheDuplicateWasSent) {
  auto channel = Make(absl::Milliseconds(400));
  Post(*channel);
  http_.Fire(0);
  http_.Reply(0, 200);
  http_.Reply(1, 200);
  EXPECT_EQ(delivered_.count, 1);
  EXPECT_EQ(delivered_.info.hedges, 1);
  EXPECT_EQ(channel->Stats().hedge_wins, 0);
}

TEST_F(HedgeTest, AReplyBeforeTheWaitSendsNoDuplicate) {
  auto channel = Make(absl::Milliseconds(400));
  Post(*channel);
  http_.Reply(0, 200);
  http_.Fire(0);  // the timer of an ended call does nothing
  EXPECT_EQ(http_.sent.size(), 1u);
  EXPECT_EQ(delivered_.count, 1);
  EXPECT_EQ(delivered_.info.hedges, 0);
  EXPECT_EQ(channel->Stats().hedges, 0);
}

TEST_F(HedgeTest, ATimedOutOriginalWaitsForItsDuplicateInsteadOfRetrying) {
  auto channel = Make(absl::Milliseconds(400));
  Post(*channel);
  http_.Fire(0);
  http_.Fail(0, absl::DeadlineExceededError("POST http://127.0.0.1:1/v1/chat/completions: timed out"));
  EXPECT_EQ(delivered_.count, 0);
  EXPECT_EQ(http_.timers.size(), 2u);  // the two hedge timers, no retry timer
  http_.Reply(1, 200);
  EXPECT_EQ(delivered_.count, 1);
  ASSERT_TRUE(delivered_.reply.ok());
  EXPECT_EQ(delivered_.info.attempts, 1);
  EXPECT_EQ(channel->Stats().retries, 0);
}

TEST_F(HedgeTest, WhenBothFailTheAttemptIsRetriedAndTheRetryMayBeHedgedAgain) {
  auto channel = Make(absl::Milliseconds(400));
  Post(*channel);
  http_.Fire(0);
  http_.Reply(0, 503, kOverloaded);
  http_.Reply(1, 503, kOverloaded);
  EXPECT_EQ(delivered_.count, 0);
  ASSERT_EQ(http_.timers.size(), 3u);  // hedge, second hedge, the retry's backoff
  http_.Fire(1);                       // the second hedge timer of the attempt that failed: nothing
  EXPECT_EQ(http_.sent.size(), 2u);
  http_.Fire(2);
  ASSERT_EQ(http_.sent.size(), 3u);
  ASSERT_EQ(http_.timers.size(), 4u);  // the retry's hedge timer
  http_.Fire(3);
  ASSERT_EQ(http_.sent.size(), 4u);
  http_.Reply(3, 200);
  EXPECT_EQ(delivered_.count, 1);
  EXPECT_EQ(delivered_.info.attempts, 2);
  EXPECT_EQ(delivered_.info.hedges, 2);
  EXPECT_EQ(delivered_.info.retries(), 1);
  http_.Reply(2, 200);
  EXPECT_EQ(delivered_.count, 1);
}

TEST_F(HedgeTest, AnEarlierAttemptsTimerDoesNotHedgeItsRetry) {
  auto channel = Make(absl::Milliseconds(400));
  Post(*channel);
  http_.Reply(0, 503, kOverloaded);  // fails before its hedge timer
  ASSERT_EQ(http_.timers.size(), 2u);
  http_.Fire(1);  // the backoff: attempt 2 is sent
  ASSERT_EQ(http_.sent.size(), 2u);
  http_.Fire(0);  // attempt 1's hedge timer, late
  EXPECT_EQ(http_.sent.size(), 2u);
  http_.Reply(1, 200);
  EXPECT_EQ(delivered_.info.attempts, 2);
  EXPECT_EQ(delivered_.info.hedges, 0);
}

TEST_F(HedgeTest, AnErrorThatIsNotRetriedEndsTheCallAtOnce) {
  auto channel = Make(absl::Milliseconds(400));
  Post(*channel);
  http_.Fire(0);
  http_.Reply(1, 400, R"({"error":{"message":"bad request"}})");
  EXPECT_EQ(delivered_.count, 1);
  EXPECT_EQ(delivered_.reply.status().code(), absl::StatusCode::kInvalidArgument);
  http_.Reply(0, 200);
  EXPECT_EQ(delivered_.count, 1);
  EXPECT_EQ(channel->Stats().failures, 1);
}

TEST_F(HedgeTest, GivingUpCountsTheOriginalsOnly) {
  auto channel = Make(absl::Milliseconds(400), /*max_retries=*/0);
  Post(*channel);
  http_.Fire(0);
  http_.Reply(0, 503, kOverloaded);
  http_.Reply(1, 503, kOverloaded);
  EXPECT_EQ(delivered_.count, 1);
  EXPECT_EQ(delivered_.reply.status().message(), "provider 'test': gave up after 1 attempts: HTTP 503: overloaded");
  EXPECT_EQ(delivered_.info.hedges, 1);
}

// Re-armed hedging: when neither the original nor the first duplicate has answered after another wait,
// a second duplicate goes; no third (HedgePolicy::kMaxDuplicates).
TEST_F(HedgeTest, WhenNeitherAnswersAfterAnotherWaitASecondDuplicateGoesAndNoThird) {
  auto channel = Make(absl::Milliseconds(400));
  Post(*channel);
  http_.Fire(0);
  ASSERT_EQ(http_.sent.size(), 2u);
  ASSERT_EQ(http_.timers.size(), 2u);  // re-armed when the duplicate was sent
  EXPECT_EQ(http_.timers[1].first, absl::Milliseconds(400));
  http_.Fire(1);
  ASSERT_EQ(http_.sent.size(), 3u);
  EXPECT_EQ(http_.sent[2].request, http_.sent[0].request);
  EXPECT_EQ(http_.timers.size(), 2u);  // the cap: no timer for a third duplicate
  EXPECT_EQ(limiter_.acquired, 3);

  http_.Reply(2, 200);  // the second duplicate answers
  EXPECT_EQ(delivered_.count, 1);
  ASSERT_TRUE(delivered_.reply.ok()) << delivered_.reply.status();
  EXPECT_EQ(delivered_.info.attempts, 1);
  EXPECT_EQ(delivered_.info.hedges, 2);
  EXPECT_EQ(delivered_.info.retries(), 0);
  http_.Reply(0, 200);  // the hung ones, late: ignored
  http_.Fail(1, absl::DeadlineExceededError("timed out"));
  EXPECT_EQ(delivered_.count, 1);
  EXPECT_EQ(limiter_.released, (std::vector<int64_t>{42, 42, 0}));
  const ProviderChannelStats stats = channel->Stats();
  EXPECT_EQ(stats.attempts, 1);
  EXPECT_EQ(stats.hedges, 2);
  EXPECT_EQ(stats.hedge_wins, 1);
  EXPECT_EQ(stats.retries, 0);
  EXPECT_EQ(stats.failures, 0);
  EXPECT_EQ(channel->Waits().in_flight, 0);
}

TEST_F(HedgeTest, AReplyBeforeTheSecondWaitSendsNoSecondDuplicate) {
  auto channel = Make(absl::Milliseconds(400));
  Post(*channel);
  http_.Fire(0);
  http_.Reply(0, 200);  // the original, after its duplicate went
  http_.Fire(1);        // the re-armed timer of an ended call
  EXPECT_EQ(http_.sent.size(), 2u);
  EXPECT_EQ(delivered_.count, 1);
  EXPECT_EQ(delivered_.info.hedges, 1);
  EXPECT_EQ(channel->Stats().hedges, 1);
}

TEST_F(HedgeTest, TheAttemptWaitsForAllThreeBeforeItIsRetried) {
  auto channel = Make(absl::Milliseconds(400));
  Post(*channel);
  http_.Fire(0);
  http_.Fire(1);
  http_.Reply(0, 503, kOverloaded);
  http_.Fail(1, absl::DeadlineExceededError("timed out"));
  EXPECT_EQ(delivered_.count, 0);
  EXPECT_EQ(http_.timers.size(), 2u);  // no retry yet: the second duplicate may still answer
  http_.Reply(2, 503, kOverloaded);
  EXPECT_EQ(delivered_.count, 0);
  ASSERT_EQ(http_.timers.size(), 3u);  // now the retry's backoff
  EXPECT_EQ(channel->Stats().retries, 1);
  http_.Fire(2);
  ASSERT_EQ(http_.sent.size(), 4u);
  http_.Reply(3, 200);
  EXPECT_EQ(delivered_.count, 1);
  EXPECT_EQ(delivered_.info.attempts, 2);
  EXPECT_EQ(delivered_.info.hedges, 2);
  EXPECT_EQ(delivered_.info.retries(), 1);
}

TEST_F(HedgeTest, AnOriginalThatFailedWhileItsDuplicateHangsStillGetsTheSecondDuplicate) {
  auto channel = Make(absl::Milliseconds(400));
  Post(*channel);
  http_.Fire(0);
  http_.Reply(0, 503, kOverloaded);  // the duplicate still out: no retry
  http_.Fire(1);                     // and nothing answered after another wait
  ASSERT_EQ(http_.sent.size(), 3u);
  http_.Reply(2, 200);
  EXPECT_EQ(delivered_.count, 1);
  ASSERT_TRUE(delivered_.reply.ok());
  EXPECT_EQ(delivered_.info.attempts, 1);
  EXPECT_EQ(delivered_.info.hedges, 2);
  EXPECT_EQ(channel->Stats().retries, 0);
}

TEST_F(HedgeTest, ARearmedTimerOfAnEarlierAttemptDoesNotHedgeItsRetry) {
  auto channel = Make(absl::Milliseconds(400));
  Post(*channel);
  http_.Fire(0);  // attempt 1's duplicate; its second hedge timer is timer 1
  http_.Reply(0, 503, kOverloaded);
  http_.Reply(1, 503, kOverloaded);
  ASSERT_EQ(http_.timers.size(), 3u);
  http_.Fire(2);  // the backoff: attempt 2 is sent, with its hedge timer 3
  ASSERT_EQ(http_.sent.size(), 3u);
  ASSERT_EQ(http_.timers.size(), 4u);
  http_.Fire(1);  // attempt 1's second hedge timer, late: nothing
  EXPECT_EQ(http_.sent.size(), 3u);
  http_.Fire(3);  // attempt 2's own: its first duplicate
  ASSERT_EQ(http_.sent.size(), 4u);
  ASSERT_EQ(http_.timers.size(), 5u);
  http_.Fire(4);  // and its second
  ASSERT_EQ(http_.sent.size(), 5u);
  EXPECT_EQ(http_.timers.size(), 5u);
  http_.Reply(4, 200);
  EXPECT_EQ(delivered_.count, 1);
  EXPECT_EQ(delivered_.info.attempts, 2);
  EXPECT_EQ(delivered_.info.hedges, 3);
  EXPECT_EQ(delivered_.info.retries(), 1);
}

}  // namespace
}  // namespace noveltygrid
