#include "common/event/timer_queue.h"

#include <utility>

namespace noveltygrid::event {

TimerId TimerQueue::At(absl::Time due, Callback callback) {
  uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = static_cast<uint32_t>(slots_.size());
    slots_.emplace_back();
  }
  Slot& s = slots_[slot];
  s.due = due;
  s.seq = next_seq_++;
  s.callback = std::move(callback);
  heap_.push_back(slot);
  s.heap_index = heap_.size() - 1;
  SiftUp(s.heap_index);
  return TimerId{slot, s.seq};
}

bool TimerQueue::Cancel(TimerId id) {
  if (!id || id.slot >= slots_.size() || slots_[id.slot].seq != id.seq) return false;
  Callback dropped = Remove(id.slot);  // destroyed here, after the queue is consistent again
  return true;
}

std::optional<absl::Time> TimerQueue::NextDue() const {
  if (heap_.empty()) return std::nullopt;
  return slots_[heap_.front()].due;
}

size_t TimerQueue::RunDue(absl::Time now) {
  size_t fired = 0;
  while (!heap_.empty() && slots_[heap_.front()].due <= now) {
    Callback callback = Remove(heap_.front());
    std::move(callback)();
    ++fired;
  }
  return fired;
}

TimerQueue::Callback TimerQueue::Remove(uint32_t slot) {
  Slot& s = slots_[slot];
  const size_t index = s.heap_index;
  const uint32_t last = heap_.back();
  heap_.pop_back();
  if (index < heap_.size()) {
    Place(index, last);
    SiftUp(index);
    SiftDown(slots_[last].heap_index);
  }
  s.seq = 0;
  free_slots_.push_back(slot);
  return std::move(s.callback);
}

void TimerQueue::SiftUp(size_t index) {
  const uint32_t slot = heap_[index];
  while (index > 0) {
    const size_t parent = (index - 1) / 2;
    if (!Earlier(slot, heap_[parent])) break;
    Place(index, heap_[parent]);
    index = parent;
  }
  Place(index, slot);
}

void TimerQueue::SiftDown(size_t index) {
  const uint32_t slot = heap_[index];
  const size_t n = heap_.size();
  for (;;) {
    size_t child = 2 * index + 1;
    if (child >= n) break;
    if (child + 1 < n && Earlier(heap_[child + 1], heap_[child])) ++child;
    if (!Earlier(heap_[child], slot)) break;
    Place(index, heap_[child]);
    index = child;
  }
  Place(index, slot);
}

}  // namespace noveltygrid::event
