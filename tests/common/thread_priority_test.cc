// common/thread_priority.h: what runs at a lower priority, and the threads it starts, have the caller's
// nice value plus the difference; the caller's own is unchanged.
#include "common/thread_priority.h"

#include <thread>

#include "gtest/gtest.h"

namespace noveltygrid {
namespace {

TEST(ThreadPriorityTest, ThreadsStartedAtALowerPriorityInheritIt) {
  const int before = ThreadNice();
  ASSERT_LT(before, 15) << "the test needs room below the caller's priority";
  int inside = -100;
  int started = -100;
  RunAtLowerPriority(3, [&] {
    inside = ThreadNice();
    std::thread child([&] { started = ThreadNice(); });
    child.join();
  });
  EXPECT_EQ(inside, before + 3);
  EXPECT_EQ(started, before + 3);
  EXPECT_EQ(ThreadNice(), before);
}

TEST(ThreadPriorityTest, TheNiceValueStopsAtNineteen) {
  int inside = -100;
  RunAtLowerPriority(100, [&] { inside = ThreadNice(); });
  EXPECT_EQ(inside, 19);
}

}  // namespace
}  // namespace noveltygrid
