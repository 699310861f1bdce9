#include "common/event/timer_queue.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace noveltygrid::event {
namespace {

const absl::Time kStart = absl::FromUnixSeconds(1'700'000'000);

absl::Time T(int ms) { return kStart + absl::Milliseconds(ms); }

TEST(TimerQueueTest, FiresInDueOrderAndFifoAmongEqualTimes) {
  TimerQueue timers;
  std::string fired;
  for (const auto& [ms, name] : std::vector<std::pair<int, char>>{{30, 'd'}, {10, 'a'}, {20, 'b'}, {20, 'c'}}) {
    timers.At(T(ms), [&fired, name = name] { fired += name; });
  }
  EXPECT_EQ(timers.NextDue(), T(10));
  EXPECT_EQ(timers.RunDue(T(9)), 0u);
  EXPECT_EQ(timers.RunDue(T(20)), 3u);
  EXPECT_EQ(fired, "abc");
  EXPECT_EQ(timers.NextDue(), T(30));
  EXPECT_EQ(timers.RunDue(T(1000)), 1u);
  EXPECT_EQ(fired, "abcd");
  EXPECT_TRUE(timers.empty());
  EXPECT_EQ(timers.NextDue(), std::nullopt);
}

TEST(TimerQueueTest, CancelledTimersDoNotFireAndLeaveNothingBehind) {
  TimerQueue timers;
  std::string fired;
  const TimerId a = timers.At(T(10), [&] { fired += 'a'; });
  const TimerId b = timers.At(T(20), [&] { fired += 'b'; });
  timers.At(T(30), [&] { fired += 'c'; });
  EXPECT_TRUE(timers.Cancel(a));
  EXPECT_FALSE(timers.Cancel(a)) << "cancelled twice";
  EXPECT_FALSE(timers.Cancel(TimerId{})) << "names no timer";
  EXPECT_EQ(timers.size(), 2u);
  EXPECT_EQ(timers.NextDue(), T(20));
  timers.RunDue(T(25));
  EXPECT_FALSE(timers.Cancel(b)) << "already fired";
  timers.RunAll();
  EXPECT_EQ(fired, "bc");
}

TEST(TimerQueueTest, ReusedSlotDoesNotAnswerToTheOldId) {
  TimerQueue timers;
  bool second_fired = false;
  const TimerId first = timers.At(T(10), [] {});
  timers.Cancel(first);
  const TimerId second = timers.At(T(10), [&] { second_fired = true; });
  EXPECT_EQ(first.slot, second.slot);
  EXPECT_FALSE(timers.Cancel(first));
  timers.RunDue(T(10));
  EXPECT_TRUE(second_fired);
}

TEST(TimerQueueTest, CallbacksMayScheduleAndCancel) {
  TimerQueue timers;
  std::string fired;
  TimerId later = timers.At(T(50), [&] { fired += 'x'; });
  timers.At(T(10), [&] {
    fired += 'a';
    timers.Cancel(later);
    timers.At(T(15), [&] { fired += 'b'; });  // due by the time RunDue looks again
    timers.At(T(60), [&] { fired += 'c'; });
  });
  EXPECT_EQ(timers.RunDue(T(20)), 2u);
  EXPECT_EQ(fired, "ab");
  timers.RunAll();
  EXPECT_EQ(fired, "abc");
}

TEST(TimerQueueTest, ManyTimersComeOutSorted) {
  TimerQueue timers;
  std::vector<int> fired;
  std::vector<TimerId> ids;
  for (int i = 0; i < 500; ++i) {
    const int ms = (i * 7919) % 1000;  // a permutation of 0..999, every other one used
    ids.push_back(timers.At(T(ms), [&fired, ms] { fired.push_back(ms); }));
  }
  for (size_t i = 0; i < ids.size(); i += 3) timers.Cancel(ids[i]);
  timers.RunAll();
  EXPECT_EQ(fired.size(), 500u - 167u);
  EXPECT_TRUE(std::is_sorted(fired.begin(), fired.end()));
}

}  // namespace
}  // namespace noveltygrid::event
