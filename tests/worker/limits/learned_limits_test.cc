// Limits learned from the provider's rate-limit headers: which headers say what, and a LearningLimiter
// that starts unlimited, enforces a share of a reported limit once it has seen one, keeps configured
// limits, and releases each request to the limits that admitted it. FakeClock, Pump(); nothing sleeps.
#include "worker/limits/learned_limits.h"

#include <memory>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"
#include "tests/worker/limits/inline_executor.h"

namespace noveltygrid {
namespace {

using ::noveltygrid::testing::InlineExecutor;

TEST(LimitsFromHeadersTest, ReadsOpenAiAndAnthropicNames) {
  const ProviderLimits openai = LimitsFromHeaders({{"x-ratelimit-limit-requests", "600"},
                                                   {"x-ratelimit-remaining-requests", "599"},
                                                   {"x-ratelimit-reset-requests", "100ms"},
                                                   {"x-ratelimit-limit-tokens", "150000"}});
  EXPECT_EQ(openai.requests_per_minute, 600);
  EXPECT_EQ(openai.tokens_per_minute, 150000);
  const ProviderLimits anthropic = LimitsFromHeaders({{"anthropic-ratelimit-requests-limit", "50"},
                                                      {"anthropic-ratelimit-input-tokens-limit", "30000"},
                                                      {"anthropic-ratelimit-tokens-limit", "40000"}});
  EXPECT_EQ(anthropic.requests_per_minute, 50);
  EXPECT_EQ(anthropic.tokens_per_minute, 40000);
  EXPECT_EQ(LimitsFromHeaders({{"anthropic-ratelimit-input-tokens-limit", "30000"}}).tokens_per_minute, 30000);
  // Garbage is no limit.
  const ProviderLimits junk =
      LimitsFromHeaders({{"x-ratelimit-limit-requests", "-5"}, {"x-ratelimit-limit-tokens", "lots"}});
  EXPECT_TRUE(junk.unlimited());
}

TEST(PauseFromHeadersTest, NothingRemainingPausesUntilOneMoreRequestIsBack) {
  const absl::Time now = absl::FromUnixSeconds(1'700'000'000);
  // OpenAI: 600 a minute refill in "1m0s" from nothing, so one is back after 100 ms.
  EXPECT_EQ(PauseFromHeaders({{"x-ratelimit-limit-requests", "600"},
                              {"x-ratelimit-remaining-requests", "0"},
                              {"x-ratelimit-reset-requests", "1m0s"}},
                             now),
            absl::Milliseconds(100));
  // Something left: no pause, whatever the reset says.
  EXPECT_EQ(PauseFromHeaders({{"x-ratelimit-remaining-requests", "3"}, {"x-ratelimit-reset-requests", "6s"}}, now),
            absl::ZeroDuration());
  // No limit reported: the whole reset time.
  EXPECT_EQ(PauseFromHeaders({{"x-ratelimit-remaining-requests", "0"}, {"x-ratelimit-reset-requests", "6s"}}, now),
            absl::Seconds(6));
  // Tokens: until a request's worth (kHeldRequestTokens) is back; the longer of the two quotas wins.
  EXPECT_EQ(PauseFromHeaders({{"x-ratelimit-limit-tokens", "10000"},
                              {"x-ratelimit-remaining-tokens", "0"},
                              {"x-ratelimit-reset-tokens", "30s"},
                              {"x-ratelimit-remaining-requests", "0"},
                              {"x-ratelimit-reset-requests", "120ms"}},
                             now),
            absl::Seconds(3));
  // Anthropic: the reset is a time.
  EXPECT_EQ(PauseFromHeaders({{"anthropic-ratelimit-requests-limit", "50"},
                              {"anthropic-ratelimit-requests-remaining", "0"},
                              {"anthropic-ratelimit-requests-reset", "2023-11-14T22:13:30Z"}},
                             now),
            absl::Seconds(10) / 50);
  // Capped, and garbage is no pause.
  EXPECT_EQ(PauseFromHeaders({{"x-ratelimit-remaining-requests", "0"}, {"x-ratelimit-reset-requests", "10m0s"}}, now),
            kMaxHold);
  EXPECT_EQ(PauseFromHeaders({{"x-ratelimit-remaining-requests", "0"}, {"x-ratelimit-reset-requests", "soon"}}, now),
            absl::ZeroDuration());
}

class LearningLimiterTest : public ::testing::Test {
 protected:
  std::unique_ptr<LearningLimiter> Make(ProviderLimits configured) {
    ProviderLimiterOptions options;
    options.provider = "test";
    options.limits = configured;
    options.executor = &executor_;
    options.clock = &clock_;
    absl::StatusOr<std::unique_ptr<LearningLimiter>> limiter = LearningLimiter::Create(options);
    EXPECT_TRUE(limiter.ok()) << limiter.status();
    return limiter.ok() ? std::move(*limiter) : nullptr;
  }

  InlineExecutor executor_;
  FakeClock clock_;
};

TEST_F(LearningLimiterTest, EnforcesAShareOfAReportedLimitFromTheNextRequestOn) {
  std::unique_ptr<LearningLimiter> limiter = Make({});
  ASSERT_TRUE(limiter->AcquireNow());  // nothing learned yet: no limiter thread, no queue
  limiter->Release(0, {});
  limiter->Learn({.requests_per_minute = 100});
  EXPECT_EQ(limiter->limits().requests_per_minute, 90);  // kLearnedShare of what the provider allows
  EXPECT_FALSE(limiter->AcquireNow());
  int went = 0;
  std::vector<TokenReservation> reservations;
  for (int i = 0; i < 95; ++i) {
    limiter->Acquire(
        [&](TokenReservation r) {
          ++went;
          reservations.push_back(r);
        },
        0);
  }
  limiter->Pump();
  EXPECT_EQ(went, 90);  // the rest wait for the next minute
  EXPECT_EQ(limiter->Stats().waiting, 5);
  for (const TokenReservation& r : reservations) {
    EXPECT_EQ(r.epoch, 1);
    limiter->Release(0, r);
  }
  EXPECT_EQ(limiter->Stats().in_flight, 0);
  clock_.Advance(absl::Minutes(1));
  limiter->Pump();
  EXPECT_EQ(went, 95);
  // The same report again changes nothing; a new one starts new limits.
  limiter->Learn({.requests_per_minute = 100});
  EXPECT_EQ(limiter->limits().requests_per_minute, 90);
  limiter->Learn({.requests_per_minute = 1000});
  EXPECT_EQ(limiter->limits().requests_per_minute, 900);
}

TEST_F(LearningLimiterTest, ConfiguredLimitsWinAndOnlyMissingOnesAreLearned) {
  std::unique_ptr<LearningLimiter> limiter = Make({.requests_per_minute = 10});
  limiter->Learn({.requests_per_minute = 600, .tokens_per_minute = 20000});
  EXPECT_EQ(limiter->limits().requests_per_minute, 10);
  EXPECT_EQ(limiter->limits().tokens_per_minute, 18000);
  limiter->Learn({});  // no headers: nothing to learn
  EXPECT_EQ(limiter->limits().tokens_per_minute, 18000);
}

TEST_F(LearningLimiterTest, ARequestAdmittedBeforeLearningIsReleasedWhereItWasAdmitted) {
  std::unique_ptr<LearningLimiter> limiter = Make({.max_in_flight = 2});
  TokenReservation first;
  limiter->Acquire([&](TokenReservation r) { first = r; }, 0);
  limiter->Pump();
  EXPECT_EQ(first.epoch, 0);
  limiter->Learn({.requests_per_minute = 100});
  TokenReservation second;
  limiter->Acquire([&](TokenReservation r) { second = r; }, 0);
  limiter->Pump();
  EXPECT_EQ(second.epoch, 1);
  EXPECT_EQ(limiter->Stats().in_flight, 2);
  limiter->Release(0, first);
  limiter->Release(0, second);
  EXPECT_EQ(limiter->Stats().in_flight, 0);
}

TEST_F(LearningLimiterTest, AHoldKeepsNewRequestsBackUntilItEndsThenAdmitsThemInOrder) {
  std::unique_ptr<LearningLimiter> limiter = Make({});
  const absl::Time start = clock_.Now();
  limiter->HoldFor(absl::Seconds(2));
  EXPECT_FALSE(limiter->AcquireNow());
  absl::Mutex mu;
  std::vector<int> order;
  absl::Notification both;
  for (int i = 0; i < 2; ++i) {
    limiter->Acquire(
        [&, i](TokenReservation) {
          absl::MutexLock lock(&mu);
          order.push_back(i);
          if (order.size() == 2) both.Notify();
        },
        0);
  }
  EXPECT_EQ(limiter->Stats().waiting, 2);
  clock_.AwaitDeadline(start + absl::Seconds(2));  // the holder waits for the end of the hold
  clock_.Advance(absl::Seconds(1));
  limiter->HoldFor(absl::Milliseconds(500));  // ends within the hold: changes nothing
  limiter->HoldFor(absl::Seconds(3));         // ends after it: extends it to 4 s from the start
  clock_.Advance(absl::Seconds(1));
  clock_.AwaitDeadline(start + absl::Seconds(4));  // woke at 2 s, found the hold extended
  EXPECT_FALSE(limiter->AcquireNow());
  EXPECT_EQ(limiter->Stats().waiting, 2);
  {
    absl::MutexLock lock(&mu);
    EXPECT_TRUE(order.empty()) << "admitted during the hold";
  }
  clock_.Advance(absl::Seconds(2));
  both.WaitForNotification();  // the holder thread admits them once the clock passes the hold
  {
    absl::MutexLock lock(&mu);
    EXPECT_EQ(order, (std::vector<int>{0, 1}));
  }
  EXPECT_EQ(limiter->Stats().delayed, 2);
  // After the hold a request goes (straight, or behind the held ones while they are passed on).
  absl::Notification third;
  limiter->Acquire([&](TokenReservation) { third.Notify(); }, 0);
  third.WaitForNotification();
  EXPECT_EQ(limiter->Stats().waiting, 0);
}

}  // namespace
}  // namespace noveltygrid
