#include "bench/coordinator_load/scheduler.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace noveltygrid::load {
namespace {

using ::testing::ElementsAre;

// The names of the tasks that ran, in order.
class Ran {
 public:
  void Add(const std::string& name) {
    absl::MutexLock lock(&mu_);
    names_.push_back(name);
  }
  std::vector<std::string> names() const {
    absl::MutexLock lock(&mu_);
    return names_;
  }

 private:
  mutable absl::Mutex mu_;
  std::vector<std::string> names_ ABSL_GUARDED_BY(mu_);
};

TEST(SchedulerTest, RunsTasksByTheirTimesNotTheOrderGiven) {
  Ran ran;
  absl::Notification queued, last;
  Scheduler scheduler;
  const absl::Time now = absl::Now();
  // The thread is held until every task is queued, so that their order cannot depend on how fast
  // they were given.
  scheduler.At(now, [&] { queued.WaitForNotification(); });
  scheduler.At(now + absl::Milliseconds(30), [&] { ran.Add("c"); });
  scheduler.At(now + absl::Milliseconds(10), [&] { ran.Add("a"); });
  scheduler.At(now + absl::Milliseconds(40), [&] {
    ran.Add("d");
    last.Notify();
  });
  scheduler.At(now + absl::Milliseconds(20), [&] { ran.Add("b"); });
  queued.Notify();
  last.WaitForNotification();
  EXPECT_THAT(ran.names(), ElementsAre("a", "b", "c", "d"));
}

TEST(SchedulerTest, TasksOfOneTimeRunInTheOrderGivenAndPastTimesAtOnce) {
  Ran ran;
  absl::Notification last;
  Scheduler scheduler;
  const absl::Time past = absl::Now() - absl::Seconds(1);
  for (const char* name : {"1", "2", "3"}) scheduler.At(past, [&ran, name] { ran.Add(name); });
  scheduler.At(past, [&] { last.Notify(); });
  last.WaitForNotification();
  EXPECT_THAT(ran.names(), ElementsAre("1", "2", "3"));
}

TEST(SchedulerTest, ATaskMayScheduleAnotherAndAnEarlierTaskWakesTheThread) {
  Ran ran;
  absl::Notification done;
  Scheduler scheduler;
  // A task far off first: the thread waits for it (or is about to), and must still run the ones given
  // after it -- a lost wake-up fails the wait below instead of hanging the test.
  scheduler.At(absl::InfiniteFuture(), [&] { ran.Add("never"); });
  scheduler.At(absl::Now(), [&] {
    ran.Add("first");
    scheduler.At(absl::Now() + absl::Milliseconds(5), [&] {
      ran.Add("second");
      done.Notify();
    });
  });
  ASSERT_TRUE(done.WaitForNotificationWithTimeout(absl::Seconds(30)));
  EXPECT_THAT(ran.names(), ElementsAre("first", "second"));
}

TEST(SchedulerTest, DestructionDropsTheTasksNotRunWithoutRunningThem) {
  auto held = std::make_shared<int>(7);
  bool ran = false;
  {
    Scheduler scheduler;
    scheduler.At(absl::InfiniteFuture(), [held, &ran] { ran = true; });
    EXPECT_EQ(held.use_count(), 2);
  }
  EXPECT_FALSE(ran);
  EXPECT_EQ(held.use_count(), 1);  // the task, and what it held, went with the scheduler
}

TEST(SchedulerTest, LatenessIsKeptOnlyWhileRecording) {
  absl::Notification first, second;
  Scheduler scheduler;
  scheduler.At(absl::Now() - absl::Milliseconds(5), [&] { first.Notify(); });  // 5 ms late at least
  first.WaitForNotification();
  EXPECT_EQ(scheduler.Lateness().calls, 0);
  scheduler.SetRecording(true);
  scheduler.At(absl::Now() - absl::Milliseconds(7), [&] { second.Notify(); });
  second.WaitForNotification();
  scheduler.SetRecording(false);
  const LatencySummary late = scheduler.Lateness();
  EXPECT_EQ(late.calls, 1);
  EXPECT_GE(late.max_us, 7000);
}

}  // namespace
}  // namespace noveltygrid::load
