// ProviderLimiter on a real redis-server (started per test on a free loopback port, with a password):
// two limiters stand for two workers sharing one provider. Checked:
//   - together they never have more than max_in_flight requests admitted and unreleased;
//   - requests per minute are counted once for both (FakeClock: the scripts use its time);
//   - the slots of an instance destroyed without Release come back after slot_ttl;
//   - with Redis unreachable (or refusing the password) the limits hold locally, with one warning
//     that does not show the password.
// Synchronisation: Pump() (one admission round, done when it returns) and conditions awaited with a
// generous timeout; nothing sleeps, nothing asserts on timing.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "gtest/gtest.h"
#include "tests/common/storage/redis_server.h"
#include "tests/worker/limits/inline_executor.h"
#include "worker/limits/provider_limiter.h"

namespace noveltygrid {
namespace {

constexpr char kPassword[] = "s3cret-limits";
const absl::Time kFiveSecondsIntoAMinute = absl::FromUnixSeconds(1'700'000'040 + 5);

using ::noveltygrid::testing::InlineExecutor;

// Requests admitted, per limiter, and those not yet released (oldest first) -- filled by `go` tasks.
class Tally {
 public:
  absl::AnyInvocable<void() &&> Go(int limiter) {
    return [this, limiter] {
      absl::MutexLock lock(&mu_);
      ++admitted_[limiter];
      held_.push_back(limiter);
      peak_ = std::max(peak_, static_cast<int>(held_.size()));
    };
  }
  // Waits until `n` requests are held; false after the timeout.
  bool AwaitHeld(int n, absl::Duration timeout = absl::Seconds(30)) {
    absl::MutexLock lock(&mu_);
    const auto enough = [this, n]() ABSL_NO_THREAD_SAFETY_ANALYSIS { return static_cast<int>(held_.size()) >= n; };
    return mu_.AwaitWithTimeout(absl::Condition(&enough), timeout);
  }
  // Takes the oldest request held: the index of the limiter to Release it on.
  int PopOldest() {
    absl::MutexLock lock(&mu_);
    const int limiter = held_.front();
    held_.pop_front();
    return limiter;
  }
  int held() const {
    absl::MutexLock lock(&mu_);
    return static_cast<int>(held_.size());
  }
  int peak() const {
    absl::MutexLock lock(&mu_);
    return peak_;
  }
  int admitted(int limiter) const {
    absl::MutexLock lock(&mu_);
    return admitted_[limiter];
  }

 private:
  mutable absl::Mutex mu_;
  int admitted_[2] ABSL_GUARDED_BY(mu_) = {0, 0};
  std::deque<int> held_ ABSL_GUARDED_BY(mu_);
  int peak_ ABSL_GUARDED_BY(mu_) = 0;
};

class RedisLimiterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    testing_redis::RedisServer::Options options;
    options.password = kPassword;
    absl::StatusOr<std::unique_ptr<testing_redis::RedisServer>> redis = testing_redis::RedisServer::Start(options);
    ASSERT_TRUE(redis.ok()) << redis.status();
    redis_ = *std::move(redis);
    port_ = redis_->port();
  }

  // The same server again on the same port, after StopRedis (empty: nothing is saved).
  absl::Status StartRedis() { return redis_->Restart(); }
  void StopRedis() { EXPECT_TRUE(redis_->Stop().ok()); }

  std::string Url(const std::string& password = kPassword) const {
    return absl::StrCat("redis://:", password, "@127.0.0.1:", port_, "/0");
  }

  std::unique_ptr<ProviderLimiter> Make(const std::string& provider, ProviderLimits limits, Executor* executor,
                                        Clock* clock, const std::string& url) {
    ProviderLimiterOptions options;
    options.provider = provider;
    options.limits = limits;
    options.executor = executor;
    options.clock = clock;
    options.redis_url = url;
    options.slot_ttl = absl::Seconds(30);
    options.redis_poll = absl::Milliseconds(10);
    absl::StatusOr<std::unique_ptr<ProviderLimiter>> limiter = MakeProviderLimiter(options);
    EXPECT_TRUE(limiter.ok()) << limiter.status();
    return limiter.ok() ? std::move(*limiter) : nullptr;
  }

  // Two limiters for one provider on this test's Redis -- two workers sharing it -- on one fake clock,
  // with a tally of what each admitted (A counts as 0, B as 1).
  struct TwoWorkers {
    explicit TwoWorkers(absl::Time start) : clock(start) {}
    FakeClock clock;
    InlineExecutor executor;
    Tally tally;
    std::unique_ptr<ProviderLimiter> a;
    std::unique_ptr<ProviderLimiter> b;
  };
  std::unique_ptr<TwoWorkers> MakeTwo(const std::string& provider, ProviderLimits limits,
                                      absl::Time start = kFiveSecondsIntoAMinute) {
    auto workers = std::make_unique<TwoWorkers>(start);
    workers->a = Make(provider, limits, &workers->executor, &workers->clock, Url());
    workers->b = Make(provider, limits, &workers->executor, &workers->clock, Url());
    return workers;
  }

  // One command on the test's own connection, for looking at the keys; the reply as an integer
  // (a string reply parsed; nil is 0).
  long long Query(const std::vector<std::string>& args) {
    const absl::StatusOr<std::string> reply = redis_->Command(args);
    EXPECT_FALSE(absl::IsUnavailable(reply.status())) << reply.status();
    return reply.ok() ? std::atoll(reply->c_str()) : -1;
  }

  static std::string MinuteKey(const std::string& provider, const char* what, absl::Time t) {
    return absl::StrCat("ng:limit:", provider, ":", what, ":", absl::ToUnixSeconds(t) / 60);
  }

  int port_ = 0;
  std::unique_ptr<testing_redis::RedisServer> redis_;
};

// Two "workers" (real clock, so the scripts use Redis's TIME) with 20 requests each, max_in_flight 3
// in total; the test releases the oldest held request whenever all 3 slots are taken.
TEST_F(RedisLimiterTest, TwoInstancesNeverExceedMaxInFlightTogether) {
  constexpr int kMax = 3;
  constexpr int kEach = 20;
  ThreadPool pool(4);
  Tally tally;
  std::unique_ptr<ProviderLimiter> limiters[2] = {Make("shared", {.max_in_flight = kMax}, &pool, nullptr, Url()),
                                                  Make("shared", {.max_in_flight = kMax}, &pool, nullptr, Url())};
  ASSERT_NE(limiters[0], nullptr);
  ASSERT_NE(limiters[1], nullptr);
  for (int i = 0; i < kEach; ++i) {
    for (int k = 0; k < 2; ++k) limiters[k]->Acquire(tally.Go(k));
  }
  for (int released = 0; released < 2 * kEach; ++released) {
    ASSERT_TRUE(tally.AwaitHeld(std::min(kMax, 2 * kEach - released)))
        << "stuck after " << released << " releases, holding " << tally.held();
    // Every held request has its slot; a released one may not have been removed yet (the ZREM goes
    // with its limiter's next round).
    const long long slots = Query({"ZCARD", "ng:limit:shared:inflight"});
    EXPECT_LE(slots, kMax);
    EXPECT_GE(slots, tally.held());
    const int k = tally.PopOldest();
    limiters[k]->Release(0);
  }
  EXPECT_LE(tally.peak(), kMax);
  EXPECT_EQ(tally.admitted(0), kEach);
  EXPECT_EQ(tally.admitted(1), kEach);
  for (auto& limiter : limiters) {
    limiter->Pump();  // sends the last release
    EXPECT_EQ(limiter->Stats().in_flight, 0);
    EXPECT_EQ(limiter->Stats().waiting, 0);
  }
  EXPECT_EQ(Query({"ZCARD", "ng:limit:shared:inflight"}), 0);
  limiters[0].reset();
  limiters[1].reset();
}

TEST_F(RedisLimiterTest, RequestsPerMinuteAreCountedOnceForBothInstances) {
  std::unique_ptr<TwoWorkers> workers = MakeTwo("rpm", {.requests_per_minute = 5});  // 5 s into a minute
  auto& [clock, executor, tally, a, b] = *workers;
  for (int i = 0; i < 4; ++i) {
    a->Acquire(tally.Go(0));
    b->Acquire(tally.Go(1));
  }
  a->Pump();
  b->Pump();
  a->Pump();
  EXPECT_EQ(tally.admitted(0) + tally.admitted(1), 5);
  EXPECT_EQ(a->Stats().admitted + b->Stats().admitted, 5);
  EXPECT_EQ(a->Stats().waiting + b->Stats().waiting, 3);
  EXPECT_EQ(Query({"GET", MinuteKey("rpm", "rpm", clock.Now())}), 5);
  const long long ttl = Query({"TTL", MinuteKey("rpm", "rpm", clock.Now())});
  EXPECT_GT(ttl, 0);
  EXPECT_LE(ttl, 120);

  clock.Advance(absl::Seconds(54));  // the same minute's last second
  a->Pump();
  b->Pump();
  EXPECT_EQ(tally.admitted(0) + tally.admitted(1), 5);

  clock.Advance(absl::Seconds(1));  // the next minute
  a->Pump();
  b->Pump();
  EXPECT_EQ(tally.admitted(0), 4);
  EXPECT_EQ(tally.admitted(1), 4);
  EXPECT_EQ(Query({"GET", MinuteKey("rpm", "rpm", clock.Now())}), 3);
}

TEST_F(RedisLimiterTest, TokensPerMinuteAreChargedInRedis) {
  std::unique_ptr<TwoWorkers> workers = MakeTwo("tpm", {.tokens_per_minute = 100});
  auto& [clock, executor, tally, a, b] = *workers;
  a->Acquire(tally.Go(0));
  a->Pump();
  EXPECT_EQ(tally.admitted(0), 1);
  a->Release(120);
  a->Pump();  // sends the tokens
  EXPECT_EQ(Query({"GET", MinuteKey("tpm", "tpm", clock.Now())}), 120);
  b->Acquire(tally.Go(1));
  b->Pump();
  EXPECT_EQ(tally.admitted(1), 0);  // the other worker's tokens closed the minute
  clock.Advance(absl::Seconds(55));
  b->Pump();
  EXPECT_EQ(tally.admitted(1), 1);
}

TEST_F(RedisLimiterTest, ReservationsAreChargedInRedisAtAdmissionAndSettledAtRelease) {
  std::unique_ptr<TwoWorkers> workers = MakeTwo("rsv", {.tokens_per_minute = 100});
  auto& [clock, executor, tally, a, b] = *workers;
  std::vector<TokenReservation> reserved;
  auto go = [&, &tally = tally](int who) {  // a named capture: clang 14 cannot capture a structured binding
    return [&, who](TokenReservation r) {
      reserved.push_back(r);
      std::move(tally.Go(who))();
    };
  };
  a->Acquire(go(0), 70);
  a->Acquire(go(0), 70);
  a->Acquire(go(0), 70);
  a->Pump();
  EXPECT_EQ(tally.admitted(0), 2);  // 0 and 70 are below 100; 140 is not
  ASSERT_EQ(reserved.size(), 2u);
  EXPECT_EQ(reserved[0].minute, absl::ToUnixSeconds(clock.Now()) / 60) << "the minute Redis charged";
  const std::string key = MinuteKey("rsv", "tpm", clock.Now());
  EXPECT_EQ(Query({"GET", key}), 140) << "charged before any reply";
  b->Acquire(go(1), 1);
  b->Pump();
  EXPECT_EQ(tally.admitted(1), 0) << "the other worker's requests in flight closed the minute";

  a->Release(10, reserved[0]);
  a->Release(0, reserved[1]);  // failed: all 70 back
  a->Pump();
  EXPECT_EQ(Query({"GET", key}), 10 + 70);  // the third of A went in that round: 140 - 130 + 70
  EXPECT_EQ(tally.admitted(0), 3);
  b->Pump();
  EXPECT_EQ(tally.admitted(1), 1);  // 80 < 100
  EXPECT_EQ(Query({"GET", key}), 81);
  a->Release(0, reserved[2]);
  a->Release(0, TokenReservation{500, reserved[2].minute});  // more than was charged: stops at zero
  a->Pump();
  EXPECT_EQ(Query({"GET", key}), 0);

  // A minute that is over keeps its charge: a late refund is not taken from the next one.
  clock.Advance(absl::Seconds(60));
  b->Release(0, reserved[3]);          // B's request of 1, from the last minute
  b->Release(30, TokenReservation{});  // usage without a reservation: charged now
  b->Pump();
  EXPECT_EQ(Query({"GET", MinuteKey("rsv", "tpm", clock.Now())}), 30);
}

// Instance A takes both slots and vanishes without a Release; B gets them once slot_ttl (30 s of the
// FakeClock, which the scripts use) has passed.
TEST_F(RedisLimiterTest, SlotsOfADeadInstanceComeBackAfterTheirTtl) {
  std::unique_ptr<TwoWorkers> workers = MakeTwo("ttl", {.max_in_flight = 2}, absl::FromUnixSeconds(1'700'000'000));
  auto& [clock, executor, tally, a, b] = *workers;
  a->Acquire(tally.Go(0));
  a->Acquire(tally.Go(0));
  a->Pump();
  EXPECT_EQ(tally.admitted(0), 2);
  a.reset();  // "crashed": its slots stay taken
  EXPECT_EQ(Query({"ZCARD", "ng:limit:ttl:inflight"}), 2);

  b->Acquire(tally.Go(1));
  b->Pump();
  EXPECT_EQ(tally.admitted(1), 0);
  clock.Advance(absl::Seconds(29));
  b->Pump();
  EXPECT_EQ(tally.admitted(1), 0);
  clock.Advance(absl::Seconds(2));
  b->Pump();
  EXPECT_EQ(tally.admitted(1), 1);
  EXPECT_EQ(Query({"ZCARD", "ng:limit:ttl:inflight"}), 1);
}

// Garbage under the provider's keys -- a minute's count that is not a number, a string where the
// sorted set of slots belongs -- fails the scripts: the limiter keeps the limits locally, as during an
// outage, rather than crash or let everything through; the garbage is left alone.
TEST_F(RedisLimiterTest, GarbageUnderTheLimitKeysIsAnOutageNotACrash) {
  std::unique_ptr<TwoWorkers> workers = MakeTwo("junk", {.max_in_flight = 2, .requests_per_minute = 2});
  auto& [clock, executor, tally, a, b] = *workers;
  const std::string rpm_key = MinuteKey("junk", "rpm", clock.Now());
  ASSERT_TRUE(redis_->Command({"SET", rpm_key, "garbage"}).ok());
  ASSERT_TRUE(redis_->Command({"SET", "ng:limit:junk:inflight", "not a sorted set"}).ok());
  ::testing::internal::CaptureStderr();
  for (int i = 0; i < 3; ++i) a->Acquire(tally.Go(0));
  a->Pump();
  const std::string warning = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(tally.admitted(0), 2);
  EXPECT_EQ(a->Stats().waiting, 1);
  EXPECT_NE(warning.find("junk"), std::string::npos) << warning;
  EXPECT_EQ(redis_->Command({"GET", rpm_key}).value_or(""), "garbage");
}

// Redis goes away with a slot taken and comes back (empty): the limiter falls back to local limits
// with one warning, and after the cool-down uses Redis again, saying so once.
TEST_F(RedisLimiterTest, FallsBackDuringAnOutageAndReturnsToRedis) {
  FakeClock clock;
  InlineExecutor executor;
  Tally tally;
  ProviderLimiterOptions options;
  options.provider = "outage";
  options.limits = {.max_in_flight = 1};
  options.executor = &executor;
  options.clock = &clock;
  options.redis_url = Url();
  options.redis_cool_down = absl::Seconds(5);
  absl::StatusOr<std::unique_ptr<ProviderLimiter>> made = MakeProviderLimiter(options);
  ASSERT_TRUE(made.ok()) << made.status();
  ProviderLimiter& limiter = **made;

  limiter.Acquire(tally.Go(0));
  limiter.Pump();
  EXPECT_EQ(tally.admitted(0), 1);
  EXPECT_EQ(Query({"ZCARD", "ng:limit:outage:inflight"}), 1);

  ::testing::internal::CaptureStderr();
  StopRedis();
  limiter.Acquire(tally.Go(0));
  limiter.Pump();  // Redis fails: local limits, 1 in flight
  EXPECT_EQ(tally.admitted(0), 1);
  limiter.Release(0);
  limiter.Pump();
  EXPECT_EQ(tally.admitted(0), 2);
  limiter.Acquire(tally.Go(0));
  limiter.Pump();
  EXPECT_EQ(tally.admitted(0), 2);  // still 1 at most, locally

  ASSERT_TRUE(StartRedis().ok());
  limiter.Release(0);
  limiter.Pump();  // within the cool-down: local
  EXPECT_EQ(tally.admitted(0), 3);
  clock.Advance(absl::Seconds(6));
  limiter.Release(0);
  limiter.Acquire(tally.Go(0));
  limiter.Pump();  // Redis again
  EXPECT_EQ(tally.admitted(0), 4);
  EXPECT_EQ(Query({"ZCARD", "ng:limit:outage:inflight"}), 1);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 2) << err;  // the warning and the note
  EXPECT_TRUE(absl::StrContains(err, "answers again")) << err;
  EXPECT_FALSE(absl::StrContains(err, kPassword)) << err;
}

// The limits with Redis out of reach: `url` is a port nothing listens on, or the right server with
// the wrong password. They hold locally; one warning, without the password.
void ExpectLocalEnforcement(const std::string& url, const std::string& password,
                            std::unique_ptr<ProviderLimiter> (*make)(const std::string&, FakeClock*, Executor*)) {
  FakeClock clock(absl::FromUnixSeconds(1'700'000'040 + 5));
  InlineExecutor executor;
  Tally tally;
  ::testing::internal::CaptureStderr();
  {
    std::unique_ptr<ProviderLimiter> limiter = make(url, &clock, &executor);
    ASSERT_NE(limiter, nullptr);
    for (int i = 0; i < 6; ++i) limiter->Acquire(tally.Go(0));
    limiter->Pump();
    EXPECT_EQ(tally.admitted(0), 2);  // in flight
    limiter->Release(0);
    limiter->Pump();
    EXPECT_EQ(tally.admitted(0), 3);  // requests per minute
    limiter->Release(0);
    limiter->Release(0);
    clock.Advance(absl::Seconds(10));  // after the cool-down: Redis is tried (and fails) again
    limiter->Pump();
    EXPECT_EQ(tally.admitted(0), 3);
    clock.Advance(absl::Seconds(50));  // the next minute
    limiter->Pump();
    EXPECT_EQ(tally.admitted(0), 5);
  }
  const std::string err = ::testing::internal::GetCapturedStderr();
  std::vector<std::string> warnings;
  for (absl::string_view line : absl::StrSplit(err, '\n')) {
    if (absl::StrContains(line, "warning")) warnings.emplace_back(line);
  }
  ASSERT_EQ(warnings.size(), 1u) << err;
  EXPECT_TRUE(absl::StrContains(warnings[0], "local")) << warnings[0];
  EXPECT_FALSE(absl::StrContains(err, password)) << err;
}

std::unique_ptr<ProviderLimiter> MakeLocalFallback(const std::string& url, FakeClock* clock, Executor* executor) {
  ProviderLimiterOptions options;
  options.provider = "fallback";
  options.limits = {.max_in_flight = 2, .requests_per_minute = 3};
  options.executor = executor;
  options.clock = clock;
  options.redis_url = url;
  options.redis_cool_down = absl::Seconds(5);
  absl::StatusOr<std::unique_ptr<ProviderLimiter>> limiter = MakeProviderLimiter(options);
  EXPECT_TRUE(limiter.ok()) << limiter.status();
  return limiter.ok() ? std::move(*limiter) : nullptr;
}

TEST(RedisLimiterFallbackTest, RedisUnreachableEnforcesTheLimitsLocally) {
  const std::string password = "unreachable-pw";
  ExpectLocalEnforcement(absl::StrCat("redis://:", password, "@127.0.0.1:", testing_redis::FreeLoopbackPort(), "/0"),
                         password, &MakeLocalFallback);
}

TEST_F(RedisLimiterTest, WrongPasswordEnforcesTheLimitsLocally) {
  const std::string password = "not-the-password";
  ExpectLocalEnforcement(Url(password), password, &MakeLocalFallback);
  EXPECT_EQ(Query({"EXISTS", "ng:limit:fallback:inflight"}), 0);
}

}  // namespace
}  // namespace noveltygrid
