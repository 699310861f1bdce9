// ProviderLimiter without Redis, driven by a FakeClock and an executor that runs `go` at once (on the
// limiter thread). Pump() returns once its admission round has scheduled everything it admitted, so
// every check after it is deterministic; nothing sleeps.
#include "worker/limits/provider_limiter.h"

#include <atomic>
#include <memory>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "gtest/gtest.h"
#include "tests/worker/limits/inline_executor.h"

namespace noveltygrid {
namespace {

using ::noveltygrid::testing::InlineExecutor;

// Records which requests went, in order.
class Recorder {
 public:
  absl::AnyInvocable<void() &&> Go(int id) {
    return [this, id] {
      absl::MutexLock lock(&mu_);
      went_.push_back(id);
    };
  }
  std::vector<int> went() const {
    absl::MutexLock lock(&mu_);
    return went_;
  }

 private:
  mutable absl::Mutex mu_;
  std::vector<int> went_ ABSL_GUARDED_BY(mu_);
};

// {admitted, in_flight, waiting, delayed}: a limiter's counts, to check in one comparison.
std::vector<int64_t> Counts(const ProviderLimiterStats& stats) {
  return {stats.admitted, stats.in_flight, stats.waiting, stats.delayed};
}

class ProviderLimiterTest : public ::testing::Test {
 protected:
  std::unique_ptr<ProviderLimiter> Make(ProviderLimits limits) {
    ProviderLimiterOptions options;
    options.provider = "test";
    options.limits = limits;
    options.executor = &executor_;
    options.clock = &clock_;
    absl::StatusOr<std::unique_ptr<ProviderLimiter>> limiter = MakeProviderLimiter(options);
    EXPECT_TRUE(limiter.ok()) << limiter.status();
    return limiter.ok() ? std::move(*limiter) : nullptr;
  }
  void AcquireAll(ProviderLimiter& limiter, int first, int n) {
    for (int i = first; i < first + n; ++i) limiter.Acquire(recorder_.Go(i));
  }
  std::vector<int> Ids(int first, int n) {
    std::vector<int> ids;
    for (int i = first; i < first + n; ++i) ids.push_back(i);
    return ids;
  }
  // Advances the clock to `seconds` into the next calendar minute.
  void ToNextMinute(int seconds = 0) {
    const int64_t now = absl::ToUnixSeconds(clock_.Now());
    clock_.Advance(absl::Seconds((now / 60 + 1) * 60 + seconds - now));
  }

  InlineExecutor executor_;
  FakeClock clock_;  // starts 20 s into a minute
  Recorder recorder_;
};

TEST_F(ProviderLimiterTest, UnlimitedRunsEveryRequestAtOnce) {
  std::unique_ptr<ProviderLimiter> limiter = Make({});
  AcquireAll(*limiter, 0, 100);
  EXPECT_EQ(recorder_.went(), Ids(0, 100));  // no Pump: nothing waits
  EXPECT_EQ(Counts(limiter->Stats()), (std::vector<int64_t>{100, 100, 0, 0}));
  for (int i = 0; i < 100; ++i) limiter->Release(0);
  EXPECT_EQ(limiter->Stats().in_flight, 0);
}

TEST_F(ProviderLimiterTest, AcquireNowGrantsOnlyWithoutLimits) {
  std::unique_ptr<ProviderLimiter> unlimited = Make({});
  EXPECT_TRUE(unlimited->AcquireNow());
  EXPECT_TRUE(unlimited->AcquireNow());
  EXPECT_EQ(unlimited->Stats().admitted, 2);
  EXPECT_EQ(unlimited->Stats().in_flight, 2);
  unlimited->Release(0);
  EXPECT_EQ(unlimited->Stats().in_flight, 1);

  std::unique_ptr<ProviderLimiter> limited = Make({.max_in_flight = 3});
  EXPECT_FALSE(limited->AcquireNow());  // a limit is only enforced through Acquire's queue
  EXPECT_EQ(limited->Stats().admitted, 0);
  EXPECT_EQ(limited->Stats().in_flight, 0);
}

TEST_F(ProviderLimiterTest, MaxInFlightHoldsTheNextUntilARelease) {
  std::unique_ptr<ProviderLimiter> limiter = Make({.max_in_flight = 3});
  AcquireAll(*limiter, 0, 4);
  limiter->Pump();
  EXPECT_EQ(recorder_.went(), Ids(0, 3));
  EXPECT_EQ(Counts(limiter->Stats()), (std::vector<int64_t>{3, 3, 1, 1}));

  clock_.Advance(absl::Hours(1));  // time alone frees no slot
  limiter->Pump();
  EXPECT_EQ(recorder_.went().size(), 3u);

  limiter->Release(10);
  limiter->Pump();
  EXPECT_EQ(recorder_.went(), Ids(0, 4));
  // The delay is counted once, however many rounds it waited.
  EXPECT_EQ(Counts(limiter->Stats()), (std::vector<int64_t>{4, 3, 0, 1}));
}

TEST_F(ProviderLimiterTest, WaitersGoInArrivalOrder) {
  std::unique_ptr<ProviderLimiter> limiter = Make({.max_in_flight = 1});
  AcquireAll(*limiter, 0, 8);
  limiter->Pump();
  for (int released = 1; released < 8; ++released) {
    EXPECT_EQ(recorder_.went(), Ids(0, released));
    // Newcomers queue behind the waiters.
    limiter->Acquire(recorder_.Go(100 + released));
    limiter->Release(0);
    limiter->Pump();
  }
  std::vector<int> expected = Ids(0, 8);
  EXPECT_EQ(recorder_.went(), expected);
  for (int i = 1; i < 8; ++i) {
    limiter->Release(0);
    limiter->Pump();
    expected.push_back(100 + i);
  }
  EXPECT_EQ(recorder_.went(), expected);
}

TEST_F(ProviderLimiterTest, RequestsPerMinuteAdmitsExactlyTheLimitThenWaitsForTheNextMinute) {
  std::unique_ptr<ProviderLimiter> limiter = Make({.requests_per_minute = 5});
  AcquireAll(*limiter, 0, 12);
  limiter->Pump();
  EXPECT_EQ(recorder_.went(), Ids(0, 5));
  EXPECT_EQ(limiter->Stats().delayed, 7);
  AcquireAll(*limiter, 12, 1);  // behind the blocked ones: delayed at once
  EXPECT_EQ(limiter->Stats().delayed, 8);
  for (int i = 0; i < 5; ++i) limiter->Release(0);  // releases do not refill the minute
  clock_.Advance(absl::Seconds(39));                // 59 s into the same minute
  limiter->Pump();
  EXPECT_EQ(recorder_.went(), Ids(0, 5));
  EXPECT_EQ(limiter->Stats().waiting, 8);
  EXPECT_EQ(limiter->Stats().delayed, 8);

  ToNextMinute();
  limiter->Pump();
  EXPECT_EQ(recorder_.went(), Ids(0, 10));
  ToNextMinute(30);
  limiter->Pump();
  EXPECT_EQ(recorder_.went(), Ids(0, 13));
  ProviderLimiterStats stats = limiter->Stats();
  EXPECT_EQ(stats.admitted, 13);
  EXPECT_EQ(stats.delayed, 8);
  EXPECT_EQ(stats.waiting, 0);
}

TEST_F(ProviderLimiterTest, TokensPerMinuteStopAdmissionUntilTheNextMinute) {
  std::unique_ptr<ProviderLimiter> limiter = Make({.tokens_per_minute = 1000});
  AcquireAll(*limiter, 0, 2);
  limiter->Pump();
  EXPECT_EQ(recorder_.went(), Ids(0, 2));
  limiter->Release(600);
  AcquireAll(*limiter, 2, 1);
  limiter->Pump();
  EXPECT_EQ(recorder_.went(), Ids(0, 3));  // 600 < 1000: still open

  limiter->Release(400);  // 1000 charged: closed
  AcquireAll(*limiter, 3, 2);
  limiter->Pump();
  EXPECT_EQ(recorder_.went(), Ids(0, 3));
  limiter->Release(0);  // a release frees a slot but no tokens
  limiter->Pump();
  EXPECT_EQ(recorder_.went(), Ids(0, 3));

  ToNextMinute();
  limiter->Pump();
  EXPECT_EQ(recorder_.went(), Ids(0, 5));
}

TEST_F(ProviderLimiterTest, ReservationsCountBeforeTheRepliesAndAreSettledInTheirMinute) {
  std::unique_ptr<ProviderLimiter> limiter = Make({.tokens_per_minute = 1000});
  std::vector<TokenReservation> reserved;  // as each `go` received it
  auto go = [&](int id) {
    return [this, &reserved, id](TokenReservation r) {
      reserved.push_back(r);
      std::move(recorder_.Go(id))();
    };
  };
  for (int i = 0; i < 4; ++i) limiter->Acquire(go(i), 400);
  limiter->Pump();
  // 0, 400, 800 < 1000 go; then 1200 charged before any reply: the fourth waits.
  EXPECT_EQ(recorder_.went(), Ids(0, 3));
  ASSERT_EQ(reserved.size(), 3u);
  const int64_t minute = absl::ToUnixSeconds(clock_.Now()) / 60;
  for (const TokenReservation& r : reserved) {
    EXPECT_EQ(r.tokens, 400);
    EXPECT_EQ(r.minute, minute);
  }
  limiter->Release(100, reserved[0]);  // used 100 of 400: 300 refunded, 900 charged
  limiter->Pump();
  EXPECT_EQ(recorder_.went(), Ids(0, 4));  // 900 < 1000

  // In the next minute the reservations stay charged to theirs: only usage beyond them counts.
  ToNextMinute();
  limiter->Release(50, reserved[1]);   // under its reservation: nothing for the new minute
  limiter->Release(900, reserved[2]);  // 500 beyond it: charged now
  limiter->Acquire(go(4), 499);
  limiter->Acquire(go(5), 1);
  limiter->Pump();
  EXPECT_EQ(recorder_.went(), Ids(0, 6));  // 500 < 1000, then 999 < 1000
  EXPECT_EQ(reserved.back().minute, minute + 1);
  limiter->Acquire(go(6), 1);
  limiter->Pump();
  EXPECT_EQ(recorder_.went(), Ids(0, 6));  // 1000: closed until the next minute
}

TEST_F(ProviderLimiterTest, AllLimitsTogether) {
  std::unique_ptr<ProviderLimiter> limiter =
      Make({.max_in_flight = 2, .requests_per_minute = 3, .tokens_per_minute = 50});
  AcquireAll(*limiter, 0, 6);
  limiter->Pump();
  EXPECT_EQ(recorder_.went(), Ids(0, 2));  // in flight
  limiter->Release(10);
  limiter->Pump();
  EXPECT_EQ(recorder_.went(), Ids(0, 3));  // requests per minute
  limiter->Release(10);
  limiter->Release(40);
  ToNextMinute();
  limiter->Pump();
  EXPECT_EQ(recorder_.went(), Ids(0, 5));  // a fresh minute, 2 in flight
}

TEST_F(ProviderLimiterTest, DestructorDropsWaitersWithoutRunningThem) {
  auto alive = std::make_shared<int>(0);
  {
    std::unique_ptr<ProviderLimiter> limiter = Make({.max_in_flight = 1});
    for (int i = 0; i < 5; ++i) {
      limiter->Acquire([this, i, alive] { std::move(recorder_.Go(i))(); });
    }
    limiter->Pump();
    EXPECT_EQ(recorder_.went(), Ids(0, 1));
    EXPECT_EQ(alive.use_count(), 1 + 4);  // the waiters' copies
  }
  EXPECT_EQ(recorder_.went(), Ids(0, 1));
  EXPECT_EQ(alive.use_count(), 1);
}

TEST_F(ProviderLimiterTest, ExtraReleasesFreeNothing) {
  std::unique_ptr<ProviderLimiter> limiter = Make({.max_in_flight = 1});
  limiter->Release(0);
  limiter->Release(0);
  AcquireAll(*limiter, 0, 3);
  limiter->Pump();
  EXPECT_EQ(recorder_.went(), Ids(0, 1));
  EXPECT_EQ(limiter->Stats().in_flight, 1);
}

TEST(ProviderLimiterOptionsTest, RejectsBadOptionsAndMasksThePassword) {
  InlineExecutor executor;
  ProviderLimiterOptions options;
  options.provider = "openai";
  options.limits.max_in_flight = 1;
  EXPECT_EQ(MakeProviderLimiter(options).status().code(), absl::StatusCode::kInvalidArgument);
  options.executor = &executor;
  options.limits.requests_per_minute = -1;
  EXPECT_EQ(MakeProviderLimiter(options).status().code(), absl::StatusCode::kInvalidArgument);
  options.limits.requests_per_minute = 0;
  options.redis_url = "redis://:s3cret@host:notaport/0";
  absl::Status status = MakeProviderLimiter(options).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message().find("s3cret"), absl::string_view::npos) << status;
  // `--redis memory` (the in-process store) means one process: limits are counted locally.
  options.redis_url = "memory";
  EXPECT_TRUE(MakeProviderLimiter(options).ok());
}

// The real thing: a thread pool, the system clock, releases from inside `go` -- and no Pump(): the
// limiter thread admits on its own when a slot frees up.
TEST(ProviderLimiterThreadTest, NeverMoreThanMaxInFlightUnderLoad) {
  constexpr int kRequests = 400;
  constexpr int kMaxInFlight = 4;
  ThreadPool pool(4);
  ProviderLimiterOptions options;
  options.provider = "load";
  options.limits.max_in_flight = kMaxInFlight;
  options.executor = &pool;
  absl::StatusOr<std::unique_ptr<ProviderLimiter>> limiter = MakeProviderLimiter(options);
  ASSERT_TRUE(limiter.ok()) << limiter.status();

  std::atomic<int> now_in_flight{0};
  std::atomic<int> peak{0};
  absl::Mutex mu;
  int done = 0;
  for (int i = 0; i < kRequests; ++i) {
    (*limiter)->Acquire([&] {
      const int n = ++now_in_flight;
      int seen = peak.load();
      while (n > seen && !peak.compare_exchange_weak(seen, n)) {
      }
      --now_in_flight;
      (*limiter)->Release(1);
      absl::MutexLock lock(&mu);
      ++done;
    });
  }
  {
    absl::MutexLock lock(&mu);
    EXPECT_TRUE(mu.AwaitWithTimeout(absl::Condition(
                                        +[](int* d) { return *d == kRequests; }, &done),
                                    absl::Seconds(60)));
  }
  EXPECT_LE(peak.load(), kMaxInFlight);
  EXPECT_GE(peak.load(), 1);
  ProviderLimiterStats stats = (*limiter)->Stats();
  EXPECT_EQ(stats.admitted, kRequests);
  EXPECT_EQ(stats.waiting, 0);
  limiter->reset();  // before the pool: no task refers to it any more
}

}  // namespace
}  // namespace noveltygrid
