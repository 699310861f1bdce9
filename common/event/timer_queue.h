// TimerQueue: callbacks due at given times, fired in due order (FIFO among equal times), any of them
// cancellable. The timer half of EventLoop (event_loop.h), usable on its own with a caller-driven clock.
//
// An indexed binary heap over a slab of timer slots: scheduling, cancelling and firing are O(log n)
// and allocate nothing once the slab and heap have grown to the peak number of pending timers (a
// callback small enough for AnyInvocable's inline storage -- two pointers' worth of captures -- is
// stored in place). A cancelled timer leaves no stale entry behind.
//
// Not thread-safe: one thread (the event loop's) owns it. Callbacks may schedule and cancel timers,
// including from inside RunDue.
#ifndef NOVELTYGRID_COMMON_EVENT_TIMER_QUEUE_H_
#define NOVELTYGRID_COMMON_EVENT_TIMER_QUEUE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "absl/time/time.h"

namespace noveltygrid::event {

// Names one scheduled timer; stays valid (and harmless to cancel) after the timer fired or was
// cancelled. A default-constructed id names no timer.
struct TimerId {
  uint32_t slot = 0;
  uint64_t seq = 0;  // 0: no timer
  explicit operator bool() const { return seq != 0; }
};

class TimerQueue {
 public:
  using Callback = absl::AnyInvocable<void() &&>;

  TimerQueue() = default;
  TimerQueue(const TimerQueue&) = delete;
  TimerQueue& operator=(const TimerQueue&) = delete;

  TimerId At(absl::Time due, Callback callback);
  // False when `id` had already fired or been cancelled.
  bool Cancel(TimerId id);

  // When the earliest pending timer is due; nullopt when none is pending.
  std::optional<absl::Time> NextDue() const;
  // Fires every timer due at or before `now`, earliest first. Timers a callback schedules for `now`
  // or earlier fire in this call too. Returns how many fired.
  size_t RunDue(absl::Time now);
  // Fires every pending timer at once in due order (shutting down: nothing is left waiting).
  size_t RunAll() { return RunDue(absl::InfiniteFuture()); }
  size_t size() const { return heap_.size(); }
  bool empty() const { return heap_.empty(); }

 private:
  struct Slot {
    absl::Time due;
    uint64_t seq = 0;  // 0: free
    size_t heap_index = 0;
    Callback callback;
  };

  bool Earlier(uint32_t a, uint32_t b) const {
    const Slot& x = slots_[a];
    const Slot& y = slots_[b];
    return x.due != y.due ? x.due < y.due : x.seq < y.seq;
  }
  void Place(size_t index, uint32_t slot) {
    heap_[index] = slot;
    slots_[slot].heap_index = index;
  }
  void SiftUp(size_t index);
  void SiftDown(size_t index);
  // Takes the slot out of the heap and frees it; returns its callback.
  Callback Remove(uint32_t slot);

  std::vector<Slot> slots_;
  std::vector<uint32_t> free_slots_;
  std::vector<uint32_t> heap_;  // slot numbers, a min-heap by (due, seq)
  uint64_t next_seq_ = 1;
};

}  // namespace noveltygrid::event

#endif  // NOVELTYGRID_COMMON_EVENT_TIMER_QUEUE_H_
