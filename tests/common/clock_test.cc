// FakeClock: waiters wake when time is advanced to their deadline, or when their condition holds.
#include "common/clock.h"

#include <thread>

#include "gtest/gtest.h"

namespace noveltygrid {
namespace {

TEST(FakeClockTest, AdvancingToTheDeadlineWakesTheWaiter) {
  FakeClock clock;
  absl::Mutex mu;
  bool stop = false;
  bool returned = true;
  const absl::Time deadline = clock.Now() + absl::Seconds(2);
  std::thread waiter([&] {
    absl::MutexLock lock(&mu);
    returned = clock.AwaitWithDeadline(mu, absl::Condition(&stop), deadline);
  });
  clock.AwaitDeadline(deadline);
  EXPECT_EQ(clock.waiters(), 1);
  clock.Advance(absl::Seconds(1));  // not there yet
  EXPECT_EQ(clock.waiters(), 1);
  clock.Advance(absl::Seconds(1));
  waiter.join();
  EXPECT_FALSE(returned);  // timed out: the condition does not hold
  EXPECT_EQ(clock.waiters(), 0);
  EXPECT_EQ(clock.Now(), deadline);
}

TEST(FakeClockTest, TheConditionWakesTheWaiterWithoutTimeMoving) {
  FakeClock clock;
  absl::Mutex mu;
  bool stop = false;
  bool returned = false;
  std::thread waiter([&] {
    absl::MutexLock lock(&mu);
    returned = clock.AwaitWithDeadline(mu, absl::Condition(&stop), clock.Now() + absl::Hours(1));
  });
  clock.AwaitWaiters(1);
  {
    absl::MutexLock lock(&mu);
    stop = true;
  }
  waiter.join();
  EXPECT_TRUE(returned);
}

TEST(SystemClockTest, AnExpiredDeadlineReturnsAtOnce) {
  SystemClock clock;
  absl::Mutex mu;
  bool stop = false;
  absl::MutexLock lock(&mu);
  EXPECT_FALSE(clock.AwaitWithDeadline(mu, absl::Condition(&stop), clock.Now() - absl::Seconds(1)));
}

}  // namespace
}  // namespace noveltygrid
