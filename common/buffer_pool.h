// BufferPool: keeps the buffers of large, short-lived strings for the next string of about their
// size, up to a byte budget. The worker builds a request body of up to tens of kilobytes for every
// model call and frees it when the call ends; with jemalloc returning freed pages to the kernel at
// once (cli/malloc_tuning.cc, which holds a worker's memory per loop down), each such body cost a
// madvise -- a TLB flush, expensive under a hypervisor -- and a page fault per page when the next
// body touched fresh pages. A pooled buffer keeps its pages: at 2,048 loops the request bodies were
// 40% of the worker's madvise calls and half of its page faults (BENCHMARKS.md, item 2).
//
// Buffers are sorted into power-of-two capacity classes from `min_capacity`; Take looks in the class
// of the size asked for and the next one up, so a small body never pins a much larger buffer. What
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
  size_t min_capacity = 4096;     // smaller buffers live in the allocator's slabs: not pooled
  size_t max_capacity = 1 << 20;  // larger ones are rare (an embedding batch): not pooled
  size_t max_bytes = 2 << 20;     // the capacity the pool may hold in all
};

class BufferPool {
 public:
  explicit BufferPool(BufferPoolOptions options = {});
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;

  // The process's pool for HTTP request bodies (worker/http/provider_channel.cc gives them back).
  static BufferPool& RequestBodies();

  // An empty string whose capacity is at least `capacity`: a pooled buffer when one fits, else new.
  std::string Take(size_t capacity);
  // Keeps `s`'s buffer for a later Take when its capacity is in range and the budget has room.
  void Give(std::string s);

  size_t pooled_bytes() const;
  size_t pooled_buffers() const;

 private:
  // The class of a capacity in [min_capacity, max_capacity]: floor(log2(capacity / min_capacity)).
  size_t ClassOf(size_t capacity) const;

  const BufferPoolOptions options_;
  mutable absl::Mutex mu_;
  std::vector<std::vector<std::string>> classes_ ABSL_GUARDED_BY(mu_);
  size_t bytes_ ABSL_GUARDED_BY(mu_) = 0;
  size_t buffers_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COMMON_BUFFER_POOL_H_
