// ThreadSanitizer annotations for Debian's prebuilt Abseil synchronization library.
//
// TSan sees a lock only when the locking code is instrumented or annotated. libabsl_synchronization is
// built without TSan, so its Mutex, CondVar, Notification and BlockingCounter synchronise nothing in
// TSan's eyes, and every access our code guards with them would be reported as a race. This file is
// linked into the test executables of the TSan build only (NOVELTYGRID_SANITIZE=thread). It defines
// the entry points our code calls; the dynamic linker binds those calls (and the library's own
// calls through its PLT) here. Each one tells TSan what it does with the __tsan_mutex_* annotations
// (the same ones Abseil makes when it is itself built with TSan) and calls the library's definition,
// found with dlsym(RTLD_NEXT). Memory accesses inside the library call, such as a Condition evaluated
// while the mutex is held, run between pre and post annotations, where TSan ignores them.
#include <dlfcn.h>
#include <sanitizer/tsan_interface.h>

#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "absl/synchronization/blocking_counter.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"

namespace {

// The library's definition of a symbol this file overrides (the next one after the executable).
template <typename Fn>
Fn Next(const char* mangled) {
  void* symbol = dlsym(RTLD_NEXT, mangled);
  if (symbol == nullptr) {
    std::fprintf(stderr, "absl_sync_annotations: %s not found in libabsl_synchronization\n", mangled);
    std::abort();
  }
  return reinterpret_cast<Fn>(symbol);
}

// Mangled names carry Abseil's inline namespace; Debian 12 builds it as absl::debian3.
#define NG_ABSL "4absl7debian3"
#define NG_STRING(x) #x
#define NG_EXPANDED_STRING(x) NG_STRING(x)
static_assert(std::string_view(NG_EXPANDED_STRING(ABSL_OPTION_INLINE_NAMESPACE_NAME)) == "debian3",
              "update NG_ABSL to this Abseil's inline namespace");

// Depth of wrapped calls on this thread. The library calls its own entry points from inside them
// (LockWhenWithTimeout calls LockWhenWithDeadline, Notification::Notify locks its own mutex); only the
// outermost call, the one our code made, is annotated, since the rest run inside its annotation.
thread_local int tls_depth = 0;

class Outermost {
 public:
  Outermost() : outer_(tls_depth++ == 0) {}
  ~Outermost() { --tls_depth; }
  Outermost(const Outermost&) = delete;
  Outermost& operator=(const Outermost&) = delete;
  explicit operator bool() const { return outer_; }

 private:
  const bool outer_;
};

// A lock taken inside the library call; `failed` tells from the call's result whether a try failed.
template <typename Call, typename Failed>
auto Locking(void* mu, unsigned flags, Call&& call, Failed&& failed) {
  Outermost outer;
  if (!outer) return call();
  __tsan_mutex_pre_lock(mu, flags);
  auto result = call();
  __tsan_mutex_post_lock(mu, failed(result) ? flags | __tsan_mutex_try_lock_failed : flags, 0);
  return result;
}

template <typename Call>
auto Locking(void* mu, unsigned flags, Call&& call) {
  return Locking(mu, flags, call, [](const auto&) { return false; });
}

template <typename Call>
void Unlocking(void* mu, unsigned flags, Call&& call) {
  Outermost outer;
  if (outer) __tsan_mutex_pre_unlock(mu, flags);
  call();
  if (outer) __tsan_mutex_post_unlock(mu, flags);
}

// Waits that release `mu` and hold it again when they return (Await, CondVar::Wait).
template <typename Call>
auto ReleasingWhileWaiting(void* mu, Call&& call) {
  Outermost outer;
  if (!outer) return call();
  __tsan_mutex_pre_unlock(mu, 0);
  __tsan_mutex_post_unlock(mu, 0);
  __tsan_mutex_pre_lock(mu, 0);
  auto result = call();
  __tsan_mutex_post_lock(mu, 0, 0);
  return result;
}

// What happens before a release happens before the matching acquire (Notification, BlockingCounter).
// The library call itself is ignored, as a condition variable's signal is: Notify's unlock evaluates the
// waiter's condition (an inline, instrumented read of the object) after the release, and the waiter
// may return and destroy the object then -- unordered in TSan's eyes, though the library orders it.
template <typename Call>
auto Releasing(void* object, Call&& call) {
  Outermost outer;
  if (!outer) return call();
  __tsan_release(object);
  __tsan_mutex_pre_signal(object, 0);
  auto result = call();
  __tsan_mutex_post_signal(object, 0);
  return result;
}

template <typename Call, typename Acquired>
auto Acquiring(const void* object, Call&& call, Acquired&& acquired) {
  Outermost outer;
  auto result = call();
  if (outer && acquired(result)) __tsan_acquire(const_cast<void*>(object));
  return result;
}

template <typename Call>
auto Acquiring(const void* object, Call&& call) {
  return Acquiring(object, call, [](const auto&) { return true; });
}

struct Unit {};

}  // namespace

namespace absl {
ABSL_NAMESPACE_BEGIN

void Mutex::Lock() {
  static const auto next = Next<void (*)(Mutex*)>("_ZN" NG_ABSL "5Mutex4LockEv");
  Locking(this, 0, [&] { return next(this), Unit{}; });
}

void Mutex::ReaderLock() {
  static const auto next = Next<void (*)(Mutex*)>("_ZN" NG_ABSL "5Mutex10ReaderLockEv");
  Locking(this, __tsan_mutex_read_lock, [&] { return next(this), Unit{}; });
}

bool Mutex::TryLock() {
  static const auto next = Next<bool (*)(Mutex*)>("_ZN" NG_ABSL "5Mutex7TryLockEv");
  return Locking(
      this, __tsan_mutex_try_lock, [&] { return next(this); }, [](bool locked) { return !locked; });
}

bool Mutex::ReaderTryLock() {
  static const auto next = Next<bool (*)(Mutex*)>("_ZN" NG_ABSL "5Mutex13ReaderTryLockEv");
  return Locking(
      this, __tsan_mutex_try_read_lock, [&] { return next(this); }, [](bool locked) { return !locked; });
}

void Mutex::Unlock() {
  static const auto next = Next<void (*)(Mutex*)>("_ZN" NG_ABSL "5Mutex6UnlockEv");
  Unlocking(this, 0, [&] { next(this); });
}

void Mutex::ReaderUnlock() {
  static const auto next = Next<void (*)(Mutex*)>("_ZN" NG_ABSL "5Mutex12ReaderUnlockEv");
  Unlocking(this, __tsan_mutex_read_lock, [&] { next(this); });
}

void Mutex::LockWhen(const Condition& cond) {
  static const auto next = Next<void (*)(Mutex*, const Condition&)>("_ZN" NG_ABSL "5Mutex8LockWhenERKNS0_9ConditionE");
  Locking(this, 0, [&] { return next(this, cond), Unit{}; });
}

bool Mutex::LockWhenWithTimeout(const Condition& cond, Duration timeout) {
  static const auto next = Next<bool (*)(Mutex*, const Condition&, Duration)>(
      "_ZN" NG_ABSL "5Mutex19LockWhenWithTimeoutERKNS0_9ConditionENS0_8DurationE");
  return Locking(this, 0, [&] { return next(this, cond, timeout); });
}

bool Mutex::LockWhenWithDeadline(const Condition& cond, Time deadline) {
  static const auto next = Next<bool (*)(Mutex*, const Condition&, Time)>(
      "_ZN" NG_ABSL "5Mutex20LockWhenWithDeadlineERKNS0_9ConditionENS0_4TimeE");
  return Locking(this, 0, [&] { return next(this, cond, deadline); });
}

void Mutex::Await(const Condition& cond) {
  static const auto next = Next<void (*)(Mutex*, const Condition&)>("_ZN" NG_ABSL "5Mutex5AwaitERKNS0_9ConditionE");
  ReleasingWhileWaiting(this, [&] { return next(this, cond), Unit{}; });
}

bool Mutex::AwaitWithTimeout(const Condition& cond, Duration timeout) {
  static const auto next = Next<bool (*)(Mutex*, const Condition&, Duration)>(
      "_ZN" NG_ABSL "5Mutex16AwaitWithTimeoutERKNS0_9ConditionENS0_8DurationE");
  return ReleasingWhileWaiting(this, [&] { return next(this, cond, timeout); });
}

bool Mutex::AwaitWithDeadline(const Condition& cond, Time deadline) {
  static const auto next = Next<bool (*)(Mutex*, const Condition&, Time)>(
      "_ZN" NG_ABSL "5Mutex17AwaitWithDeadlineERKNS0_9ConditionENS0_4TimeE");
  return ReleasingWhileWaiting(this, [&] { return next(this, cond, deadline); });
}

void CondVar::Wait(Mutex* mu) {
  static const auto next = Next<void (*)(CondVar*, Mutex*)>("_ZN" NG_ABSL "7CondVar4WaitEPNS0_5MutexE");
  ReleasingWhileWaiting(mu, [&] { return next(this, mu), Unit{}; });
}

bool CondVar::WaitWithTimeout(Mutex* mu, Duration timeout) {
  static const auto next =
      Next<bool (*)(CondVar*, Mutex*, Duration)>("_ZN" NG_ABSL "7CondVar15WaitWithTimeoutEPNS0_5MutexENS0_8DurationE");
  return ReleasingWhileWaiting(mu, [&] { return next(this, mu, timeout); });
}

bool CondVar::WaitWithDeadline(Mutex* mu, Time deadline) {
  static const auto next =
      Next<bool (*)(CondVar*, Mutex*, Time)>("_ZN" NG_ABSL "7CondVar16WaitWithDeadlineEPNS0_5MutexENS0_4TimeE");
  return ReleasingWhileWaiting(mu, [&] { return next(this, mu, deadline); });
}

// Notification and BlockingCounter: what happens before Notify / DecrementCount happens before the
// waits return.
void Notification::Notify() {
  static const auto next = Next<void (*)(Notification*)>("_ZN" NG_ABSL "12Notification6NotifyEv");
  Releasing(this, [&] { return next(this), Unit{}; });
}

void Notification::WaitForNotification() const {
  static const auto next = Next<void (*)(const Notification*)>("_ZNK" NG_ABSL "12Notification19WaitForNotificationEv");
  Acquiring(this, [&] { return next(this), Unit{}; });
}

bool Notification::WaitForNotificationWithTimeout(Duration timeout) const {
  static const auto next = Next<bool (*)(const Notification*, Duration)>(
      "_ZNK" NG_ABSL "12Notification30WaitForNotificationWithTimeoutENS0_8DurationE");
  return Acquiring(
      this, [&] { return next(this, timeout); }, [](bool notified) { return notified; });
}

bool BlockingCounter::DecrementCount() {
  static const auto next = Next<bool (*)(BlockingCounter*)>("_ZN" NG_ABSL "15BlockingCounter14DecrementCountEv");
  return Releasing(this, [&] { return next(this); });
}

void BlockingCounter::Wait() {
  static const auto next = Next<void (*)(BlockingCounter*)>("_ZN" NG_ABSL "15BlockingCounter4WaitEv");
  Acquiring(this, [&] { return next(this), Unit{}; });
}

ABSL_NAMESPACE_END
}  // namespace absl
