// EventLoop: one thread's epoll loop -- descriptor readiness, timers, tasks posted from other threads
// and wake-ups -- shared by the worker's HTTP client (worker/http/http_client.cc; curl_multi.cc wires
// curl's socket and timer callbacks onto it) and serve-sim's HTTP server (sim_server/epoll_http_server.cc).
//
//   auto loop = EventLoop::Create(&handler, {});
//   std::thread thread([&] { (*loop)->Run(); });          // this thread is now the loop thread
//   (*loop)->Post([&] { (*loop)->Watch(fd, EPOLLIN, 7); });  // handler.OnReady(7, events) from now on
//   (*loop)->Quit();
//   thread.join();
//
// Each round: run posted tasks, call Handler::BeforeWait, wait in epoll_pwait2 (until the next timer,
// to the nanosecond; epoll_wait's milliseconds where the kernel refuses it, or an event), call Handler::OnReady per
// ready descriptor, fire the due timers, call Handler::AfterReady. A descriptor is registered with a 64-bit tag that
// OnReady gets back, so a registration allocates nothing; the handler maps tags to its own state.
//
// Wake-ups are batched: Wake(), Post() and Quit() write the eventfd only when no wake-up is pending
// already, so a burst of requests from other threads costs one write and one loop wake-up. With
// Options::batch_window set, a loop woken again soon after its previous wake-up pauses until
// batch_window after this one (senders skip the eventfd write meanwhile), so one round serves
// everything that came due -- see HttpClientOptions::batch_window and BENCHMARKS.md.
//
// Threading: Run() on one thread, the loop thread, once. Post, Wake and Quit from any thread. Everything
// else (Watch, Unwatch, At, After, Cancel, timers()) on the loop thread only -- from the handler, a timer
// or a posted task -- or while no thread runs the loop. Destroy the loop after Run returned; posted
// tasks and timers still pending then are destroyed without running.
#ifndef NOVELTYGRID_COMMON_EVENT_EVENT_LOOP_H_
#define NOVELTYGRID_COMMON_EVENT_EVENT_LOOP_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/functional/any_invocable.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/event/timer_queue.h"

struct epoll_event;

namespace noveltygrid::event {

class EventLoop {
 public:
  using Task = absl::AnyInvocable<void() &&>;

  // Implemented by the loop's owner; every method runs on the loop thread.
  class Handler {
   public:
    virtual ~Handler() = default;
    // A descriptor registered with `tag` is ready; `events` as epoll reports them (EPOLLIN, ...).
    virtual void OnReady(uint64_t tag, uint32_t events) = 0;
    // Every round, before the loop waits: take what other threads queued before their Wake().
    virtual void BeforeWait() {}
    // Every round, after the ready descriptors and the due timers.
    virtual void AfterReady() {}
  };

  struct Options {
    int max_events = 256;  // epoll_wait's batch
    // Wake-up batching while busy (see the file comment); zero turns it off.
    absl::Duration batch_window = absl::ZeroDuration();
  };

  // The tag of the loop's own eventfd; handlers' tags must differ from it.
  static constexpr uint64_t kReservedTag = ~uint64_t{0};

  // `handler` must outlive the loop.
  static absl::StatusOr<std::unique_ptr<EventLoop>> Create(Handler* handler, const Options& options);
  ~EventLoop();
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  // Runs rounds on the calling thread until Quit(); returns at the top of the round that sees it.
  void Run();
  // Makes Run return soon. Thread-safe; cannot be undone.
  void Quit();
  // Runs `task` on the loop thread at the start of its next round. Thread-safe.
  void Post(Task task);
  // Makes the loop start a round soon (BeforeWait runs) -- for owners that keep their own queues.
  // Thread-safe; costs a system call only when no wake-up is pending.
  void Wake();

  // epoll registration of `fd` with `events` (EPOLLIN, EPOLLOUT, EPOLLET, ...). Watch adds, Rewatch
  // changes a registration (both: false with errno set on failure); Unwatch removes one (closing the
  // descriptor does too).
  bool Watch(int fd, uint32_t events, uint64_t tag);
  bool Rewatch(int fd, uint32_t events, uint64_t tag);
  void Unwatch(int fd);

  // Timers, fired on the loop thread in due order (FIFO among equal times).
  TimerId At(absl::Time due, TimerQueue::Callback callback) { return timers_.At(due, std::move(callback)); }
  TimerId After(absl::Duration delay, TimerQueue::Callback callback) {
    return timers_.At(absl::Now() + delay, std::move(callback));
  }
  bool Cancel(TimerId id) { return timers_.Cancel(id); }
  TimerQueue& timers() { return timers_; }

 private:
  EventLoop(Handler* handler, const Options& options);
  bool Control(int op, int fd, uint32_t events, uint64_t tag);
  void RunPosted();
  void Pause(absl::Time woke, absl::Time previous);

  // Constant after construction.
  Handler* const handler_;
  const Options options_;
  int epoll_fd_ = -1;
  int wake_fd_ = -1;

  // Owned by the loop thread.
  TimerQueue timers_;
  std::vector<epoll_event> events_;
  std::vector<Task> running_;  // the posted tasks of this round

  // Shared with other threads. wake_pending_: a wake-up is under way (eventfd written or the loop
  // about to look at its queues anyway), so Wake need not write; the loop clears it at the top of a
  // round, before it reads the queues.
  std::atomic<bool> wake_pending_{false};
  std::atomic<bool> quit_{false};
  std::atomic<bool> posted_{false};  // posted_tasks_ may be non-empty: spares the lock when not
  absl::Mutex mu_;
  std::vector<Task> posted_tasks_ ABSL_GUARDED_BY(mu_);
};

}  // namespace noveltygrid::event

#endif  // NOVELTYGRID_COMMON_EVENT_EVENT_LOOP_H_
