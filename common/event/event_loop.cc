#include "common/event/event_loop.h"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace noveltygrid::event {
namespace {

// Milliseconds epoll_wait may sleep for a deadline `left` away: rounded up, so the loop does not
// spin on a timer that is almost due. Only where epoll_pwait2 is missing (Linux before 5.11).
int WaitMillis(absl::Duration left) {
  if (left <= absl::ZeroDuration()) return 0;
  const int64_t ms = absl::ToInt64Milliseconds(absl::Ceil(left, absl::Milliseconds(1)));
  return static_cast<int>(std::clamp<int64_t>(ms, 1, 0x7fffffff));
}

// epoll_pwait2 (a timespec timeout) where the kernel has it, so a timer fires at its time and not up to
// a millisecond after it (WaitMillis rounds epoll_wait's timeout up to whole milliseconds).
// Falls back to epoll_wait's milliseconds for good when the call is refused.
int WaitForEvents(int epoll_fd, epoll_event* events, int max_events, std::optional<absl::Time> due) {
  static std::atomic<bool> nanosecond_timeouts{true};
  if (due.has_value() && nanosecond_timeouts.load(std::memory_order_relaxed)) {
    const absl::Duration left = std::max(*due - absl::Now(), absl::ZeroDuration());
    const timespec timeout = absl::ToTimespec(left);
    const int n = epoll_pwait2(epoll_fd, events, max_events, &timeout, nullptr);
    // ENOSYS: an older kernel; EPERM: a seccomp profile that predates the call (epoll_pwait2 itself
    // never fails with it).
    if (n >= 0 || (errno != ENOSYS && errno != EPERM)) return n;
    nanosecond_timeouts.store(false, std::memory_order_relaxed);
  }
  return epoll_wait(epoll_fd, events, max_events, due.has_value() ? WaitMillis(*due - absl::Now()) : -1);
}

}  // namespace

absl::StatusOr<std::unique_ptr<EventLoop>> EventLoop::Create(Handler* handler, const Options& options) {
  if (handler == nullptr) return absl::InvalidArgumentError("EventLoop needs a handler");
  std::unique_ptr<EventLoop> loop(new EventLoop(handler, options));
  loop->epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  loop->wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (loop->epoll_fd_ < 0 || loop->wake_fd_ < 0 || !loop->Watch(loop->wake_fd_, EPOLLIN, kReservedTag)) {
    return absl::InternalError(
        absl::StrCat("cannot set up an event loop (epoll_create1/eventfd/epoll_ctl): ", std::strerror(errno)));
  }
  return loop;
}

EventLoop::EventLoop(Handler* handler, const Options& options)
    : handler_(handler), options_(options), events_(std::max(options.max_events, 1)) {}

EventLoop::~EventLoop() {
  if (wake_fd_ >= 0) close(wake_fd_);
  if (epoll_fd_ >= 0) close(epoll_fd_);
}

void EventLoop::Run() {
  absl::Time last_wake = absl::InfinitePast();  // when epoll_wait last returned events
  for (;;) {
    // Cleared before the queues are read: a Wake() after this point writes the eventfd, so nothing
    // queued after the owner looked is left waiting.
    wake_pending_.store(false);
    if (posted_.load()) RunPosted();
    handler_->BeforeWait();
    if (quit_.load()) return;

    const std::optional<absl::Time> due = timers_.NextDue();
    const int n = WaitForEvents(epoll_fd_, events_.data(), static_cast<int>(events_.size()), due);
    if (n < 0 && errno != EINTR) return;  // the epoll set is gone: nothing more can arrive
    const absl::Time woke = n > 0 ? absl::Now() : absl::InfinitePast();
    for (int i = 0; i < n; ++i) {
      const epoll_event& ev = events_[i];
      if (ev.data.u64 == kReservedTag) {
        uint64_t count;
        [[maybe_unused]] ssize_t r = read(wake_fd_, &count, sizeof count);  // one read resets the counter
        continue;
      }
      handler_->OnReady(ev.data.u64, ev.events);
    }
    if (!timers_.empty()) timers_.RunDue(absl::Now());
    handler_->AfterReady();
    if (n > 0) {
      Pause(woke, last_wake);
      last_wake = woke;
    }
  }
}

void EventLoop::Quit() {
  quit_.store(true);
  // Written even with a wake-up pending: the loop may be pausing (Pause) with the flag set.
  const uint64_t one = 1;
  [[maybe_unused]] ssize_t r = write(wake_fd_, &one, sizeof one);
}

void EventLoop::Post(Task task) {
  {
    absl::MutexLock lock(&mu_);
    posted_tasks_.push_back(std::move(task));
    posted_.store(true);
  }
  Wake();
}

void EventLoop::Wake() {
  if (wake_pending_.exchange(true)) return;
  const uint64_t one = 1;
  [[maybe_unused]] ssize_t r = write(wake_fd_, &one, sizeof one);  // EAGAIN: a wake-up is pending anyway
}

void EventLoop::RunPosted() {
  {
    absl::MutexLock lock(&mu_);
    running_.swap(posted_tasks_);
    posted_.store(false);
  }
  for (Task& task : running_) std::move(task)();
  running_.clear();
}

// Wake-up batching: after a wake-up at `woke` that came soon after the one at `previous`, sleep until
// woke + batch_window. Meanwhile Wake and Post only queue (wake_pending_ is set: no eventfd write);
// the next round takes everything that came due at once.
void EventLoop::Pause(absl::Time woke, absl::Time previous) {
  const absl::Duration window = options_.batch_window;
  if (window <= absl::ZeroDuration() || woke - previous >= 2 * window) return;
  const absl::Duration left = woke + window - absl::Now();
  if (left <= absl::ZeroDuration() || quit_.load()) return;
  wake_pending_.store(true);  // cleared at the top of the next round, which reads the queues
  absl::SleepFor(left);
}

bool EventLoop::Watch(int fd, uint32_t events, uint64_t tag) { return Control(EPOLL_CTL_ADD, fd, events, tag); }

bool EventLoop::Rewatch(int fd, uint32_t events, uint64_t tag) { return Control(EPOLL_CTL_MOD, fd, events, tag); }

void EventLoop::Unwatch(int fd) { epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr); }

bool EventLoop::Control(int op, int fd, uint32_t events, uint64_t tag) {
  epoll_event ev{};
  ev.events = events;
  ev.data.u64 = tag;
  return epoll_ctl(epoll_fd_, op, fd, &ev) == 0;
}

}  // namespace noveltygrid::event
