#include "common/event/event_loop.h"

#include <sys/epoll.h>
#include <unistd.h>

#include <atomic>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"

namespace noveltygrid::event {
namespace {

// Records what the loop hands it; the loop thread writes, the test reads under mu.
class RecordingHandler : public EventLoop::Handler {
 public:
  void OnReady(uint64_t tag, uint32_t events) override {
    absl::MutexLock lock(&mu);
    ready.emplace_back(tag, events);
    if (on_ready) on_ready(tag);
  }
  void BeforeWait() override { before_wait.fetch_add(1); }

  absl::Mutex mu;
  std::vector<std::pair<uint64_t, uint32_t>> ready ABSL_GUARDED_BY(mu);
  std::function<void(uint64_t)> on_ready;
  std::atomic<int> before_wait{0};
};

// A loop running on its own thread for the length of a test.
struct RunningLoop {
  explicit RunningLoop(RecordingHandler* handler, EventLoop::Options options = {}) {
    auto created = EventLoop::Create(handler, options);
    EXPECT_TRUE(created.ok()) << created.status();
    loop = std::move(*created);
    thread = std::thread([this] { loop->Run(); });
  }
  ~RunningLoop() {
    loop->Quit();
    thread.join();
  }
  std::unique_ptr<EventLoop> loop;
  std::thread thread;
};

TEST(EventLoopTest, PostedTasksRunOnTheLoopThreadInOrder) {
  RecordingHandler handler;
  RunningLoop running(&handler);
  std::vector<int> order;  // written on the loop thread only
  std::thread::id loop_thread;
  absl::Notification done;
  for (int i = 0; i < 100; ++i) running.loop->Post([&order, i] { order.push_back(i); });
  running.loop->Post([&] {
    loop_thread = std::this_thread::get_id();
    done.Notify();
  });
  ASSERT_TRUE(done.WaitForNotificationWithTimeout(absl::Seconds(10)));
  EXPECT_EQ(loop_thread, running.thread.get_id());
  ASSERT_EQ(order.size(), 100u);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(order[i], i);
}

TEST(EventLoopTest, PostsFromManyThreadsAllRun) {
  RecordingHandler handler;
  RunningLoop running(&handler, {.batch_window = absl::Microseconds(250)});
  constexpr int kThreads = 4;
  constexpr int kPosts = 2000;
  std::atomic<int> ran{0};
  absl::Notification all_ran;
  std::vector<std::thread> posters;
  for (int t = 0; t < kThreads; ++t) {
    posters.emplace_back([&] {
      for (int i = 0; i < kPosts; ++i) {
        running.loop->Post([&] {
          if (ran.fetch_add(1) + 1 == kThreads * kPosts) all_ran.Notify();
        });
      }
    });
  }
  for (std::thread& t : posters) t.join();
  ASSERT_TRUE(all_ran.WaitForNotificationWithTimeout(absl::Seconds(10))) << ran.load() << " ran";
}

TEST(EventLoopTest, WakeStartsARound) {
  RecordingHandler handler;
  RunningLoop running(&handler);
  absl::Notification first;
  running.loop->Post([&] { first.Notify(); });
  ASSERT_TRUE(first.WaitForNotificationWithTimeout(absl::Seconds(10)));
  const int rounds = handler.before_wait.load();
  running.loop->Wake();
  const absl::Time give_up = absl::Now() + absl::Seconds(10);
  while (handler.before_wait.load() == rounds && absl::Now() < give_up) absl::SleepFor(absl::Milliseconds(1));
  EXPECT_GT(handler.before_wait.load(), rounds) << "no timer and no descriptor: only the wake-up starts a round";
}

TEST(EventLoopTest, TimersFireInDueOrderAndCancelledOnesDoNot) {
  RecordingHandler handler;
  RunningLoop running(&handler);
  std::string fired;  // loop thread only until `done`
  absl::Notification done;
  const absl::Time start = absl::Now();
  absl::Duration elapsed;
  running.loop->Post([&] {
    EventLoop& loop = *running.loop;
    loop.After(absl::Milliseconds(30), [&] { fired += 'c'; });
    loop.After(absl::Milliseconds(10), [&] { fired += 'a'; });
    const TimerId cancelled = loop.After(absl::Milliseconds(20), [&] { fired += 'x'; });
    loop.After(absl::Milliseconds(20), [&] { fired += 'b'; });
    loop.Cancel(cancelled);
    loop.After(absl::Milliseconds(40), [&] {
      elapsed = absl::Now() - start;
      done.Notify();
    });
  });
  ASSERT_TRUE(done.WaitForNotificationWithTimeout(absl::Seconds(10)));
  EXPECT_EQ(fired, "abc");
  EXPECT_GE(elapsed, absl::Milliseconds(40)) << "a timer fired early";
}

TEST(EventLoopTest, WatchedDescriptorReportsItsTag) {
  RecordingHandler handler;
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  absl::Notification readable;
  handler.on_ready = [&](uint64_t tag) {
    char byte;
    [[maybe_unused]] ssize_t n = read(pipe_fds[0], &byte, 1);
    if (tag == 42) readable.Notify();
  };
  RunningLoop running(&handler);
  absl::Notification watched;
  running.loop->Post([&] {
    EXPECT_TRUE(running.loop->Watch(pipe_fds[0], EPOLLIN, 42));
    watched.Notify();
  });
  ASSERT_TRUE(watched.WaitForNotificationWithTimeout(absl::Seconds(10)));
  ASSERT_EQ(write(pipe_fds[1], "x", 1), 1);
  ASSERT_TRUE(readable.WaitForNotificationWithTimeout(absl::Seconds(10)));
  {
    absl::MutexLock lock(&handler.mu);
    ASSERT_EQ(handler.ready.size(), 1u);
    EXPECT_EQ(handler.ready[0].first, 42u);
    EXPECT_TRUE(handler.ready[0].second & EPOLLIN);
  }
  absl::Notification unwatched;
  running.loop->Post([&] {
    running.loop->Unwatch(pipe_fds[0]);
    unwatched.Notify();
  });
  ASSERT_TRUE(unwatched.WaitForNotificationWithTimeout(absl::Seconds(10)));
  ASSERT_EQ(write(pipe_fds[1], "y", 1), 1);
  absl::SleepFor(absl::Milliseconds(20));
  absl::MutexLock lock(&handler.mu);
  EXPECT_EQ(handler.ready.size(), 1u) << "an unwatched descriptor still reported";
  close(pipe_fds[0]);
  close(pipe_fds[1]);
}

TEST(EventLoopTest, QuitEndsRunAndLeavesTimersUnfired) {
  RecordingHandler handler;
  auto loop = EventLoop::Create(&handler, {});
  ASSERT_TRUE(loop.ok()) << loop.status();
  bool fired = false;
  (*loop)->After(absl::Hours(1), [&] { fired = true; });
  std::thread thread([&] { (*loop)->Run(); });
  (*loop)->Quit();
  thread.join();
  EXPECT_FALSE(fired);
  EXPECT_EQ((*loop)->timers().RunAll(), 1u) << "the owner fires what is left after Run";
  EXPECT_TRUE(fired);
}

}  // namespace
}  // namespace noveltygrid::event
