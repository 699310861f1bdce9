// BufferPool: keeps the buffers of large, short-lived strings for the next string of about their
// size, up to a byte budget. A worker builds a request body of up to tens of kilobytes for every model
// call and frees it when the call ends. Freed, such a buffer's pages go back to the kernel soon after
// (jemalloc's dirty_decay_ms, cli/malloc_tuning.h), each return a madvise whose TLB flush is expensive
// under a hypervisor, and the next body faults fresh pages in; kept in a pool, the buffer keeps its
// pages. A provider channel owns one for its request bodies (worker/http/provider_channel.cc); what it
// saves is in BENCHMARKS.md (one worker, 2,048 loops).
//
// Buffers are sorted into power-of-two capacity classes from `min_capacity`; Take looks in the class of
// the size asked for and the next one up, so the buffer it hands out is less than 4x that size. What
// the budget cannot hold is freed as before. Thread-safe.
#ifndef NOVELTYGRID_COMMON_BUFFER_POOL_H_
#define NOVELTYGRID_COMMON_BUFFER_POOL_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace noveltygrid {

struct BufferPoolOptions {
  size_t min_capacity = 4096;     // smaller buffers live in the allocator's slabs: not pooled (at least 16)
  size_t max_capacity = 1 << 20;  // larger ones are rare (an embedding batch): not pooled (at most 2^40)
  size_t max_bytes = 2 << 20;     // the capacity the pool may hold in all
};

class BufferPool {
 public:
  explicit BufferPool(BufferPoolOptions options = {});
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;

  // An empty string whose capacity is at least `capacity`: a pooled buffer when one fits, else new.
  std::string Take(size_t capacity);
  // Keeps `s`'s buffer for a later Take when its capacity is in range and the budget and the buffer's
  // class have room (a class holds up to 1,024), else frees it. Never throws: it runs in destructors.
  void Give(std::string s) noexcept;

  size_t pooled_bytes() const;
  size_t pooled_buffers() const;

 private:
  // The class of a capacity in [min_capacity, max_capacity]: floor(log2(capacity / min_capacity)).
  size_t ClassOf(size_t capacity) const;
  // Removes and returns buffer `at` of class `c`.
  std::string TakeLocked(size_t c, size_t at) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const BufferPoolOptions options_;
  mutable absl::Mutex mu_;
  std::vector<std::vector<std::string>> classes_ ABSL_GUARDED_BY(mu_);
  size_t bytes_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COMMON_BUFFER_POOL_H_
