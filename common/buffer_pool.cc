#include "common/buffer_pool.h"

#include <utility>

namespace noveltygrid {

namespace {

// How many buffers of the requested class Take looks at for one large enough, newest first.
constexpr size_t kScan = 4;

}  // namespace

BufferPool::BufferPool(BufferPoolOptions options) : options_(options) {
  size_t classes = 1;
  while ((options_.min_capacity << classes) <= options_.max_capacity) ++classes;
  classes_.resize(classes);
}

BufferPool& BufferPool::RequestBodies() {
  static BufferPool* const pool = new BufferPool();
  return *pool;
}

size_t BufferPool::ClassOf(size_t capacity) const {
  size_t c = 0;
  while ((options_.min_capacity << (c + 1)) <= capacity) ++c;
  return c;
}

std::string BufferPool::Take(size_t capacity) {
  if (capacity >= options_.min_capacity && capacity <= options_.max_capacity) {
    const size_t c = ClassOf(capacity);
    absl::MutexLock lock(&mu_);
    // The newest buffers of the class first (their pages are the most likely still in cache), then
    // the newest of the class above, which always fits.
    std::vector<std::string>& same = classes_[c];
    for (size_t i = 0; i < same.size() && i < kScan; ++i) {
      const size_t at = same.size() - 1 - i;
      if (same[at].capacity() < capacity) continue;
      std::string s = std::move(same[at]);
      same.erase(same.begin() + static_cast<std::ptrdiff_t>(at));
      bytes_ -= s.capacity();
      --buffers_;
      return s;
    }
    if (c + 1 < classes_.size() && !classes_[c + 1].empty()) {
      std::string s = std::move(classes_[c + 1].back());
      classes_[c + 1].pop_back();
      bytes_ -= s.capacity();
      --buffers_;
      return s;
    }
  }
  std::string s;
  s.reserve(capacity);
  return s;
}

void BufferPool::Give(std::string s) {
  const size_t capacity = s.capacity();
  if (capacity < options_.min_capacity || capacity > options_.max_capacity) return;
  s.clear();
  absl::MutexLock lock(&mu_);
  if (bytes_ + capacity > options_.max_bytes) return;  // freed as before, outside the lock
  bytes_ += capacity;
  ++buffers_;
  classes_[ClassOf(capacity)].push_back(std::move(s));
}

size_t BufferPool::pooled_bytes() const {
  absl::MutexLock lock(&mu_);
  return bytes_;
}

size_t BufferPool::pooled_buffers() const {
  absl::MutexLock lock(&mu_);
  return buffers_;
}

}  // namespace noveltygrid
