#include "common/buffer_pool.h"

#include <algorithm>
#include <utility>

namespace noveltygrid {

namespace {

// How many buffers of the requested class Take looks at for one large enough, newest first.
constexpr size_t kScan = 4;
// The most buffers one class holds (its slots are reserved up front).
constexpr size_t kMaxSlots = 1024;

BufferPoolOptions Clamped(BufferPoolOptions o) {
  o.min_capacity = std::clamp<size_t>(o.min_capacity, 16, size_t{1} << 40);
  o.max_capacity = std::clamp<size_t>(o.max_capacity, o.min_capacity, size_t{1} << 40);
  return o;
}

}  // namespace

BufferPool::BufferPool(BufferPoolOptions options) : options_(Clamped(options)) {
  const size_t classes = ClassOf(options_.max_capacity) + 1;
  classes_.resize(classes);
  // As many slots as the budget can fill with the class's smallest buffers, up to kMaxSlots: Give
  // frees what a full class cannot take instead of growing it, so it never allocates.
  for (size_t c = 0; c < classes; ++c) {
    classes_[c].reserve(std::min(kMaxSlots, options_.max_bytes / (options_.min_capacity << c)));
  }
}

size_t BufferPool::ClassOf(size_t capacity) const {
  size_t c = 0;
  while ((options_.min_capacity << (c + 1)) <= capacity) ++c;
  return c;
}

std::string BufferPool::TakeLocked(size_t c, size_t at) {
  std::vector<std::string>& buffers = classes_[c];
  std::string s = std::move(buffers[at]);
  buffers.erase(buffers.begin() + static_cast<std::ptrdiff_t>(at));
  bytes_ -= s.capacity();
  return s;
}

std::string BufferPool::Take(size_t capacity) {
  if (capacity >= options_.min_capacity && capacity <= options_.max_capacity) {
    const size_t c = ClassOf(capacity);
    absl::MutexLock lock(&mu_);
    // The newest buffers of the class first (their pages are the most likely still in cache), then
    // the newest of the class above, which always fits.
    const std::vector<std::string>& same = classes_[c];
    for (size_t i = 0; i < same.size() && i < kScan; ++i) {
      const size_t at = same.size() - 1 - i;
      if (same[at].capacity() >= capacity) return TakeLocked(c, at);
    }
    if (c + 1 < classes_.size() && !classes_[c + 1].empty()) return TakeLocked(c + 1, classes_[c + 1].size() - 1);
  }
  std::string s;
  s.reserve(capacity);
  return s;
}

void BufferPool::Give(std::string s) noexcept {
  const size_t capacity = s.capacity();
  if (capacity < options_.min_capacity || capacity > options_.max_capacity) return;
  s.clear();
  absl::MutexLock lock(&mu_);
  std::vector<std::string>& buffers = classes_[ClassOf(capacity)];
  // Freed as before, outside the lock, when the budget or the class's slots are full.
  if (bytes_ + capacity > options_.max_bytes || buffers.size() == buffers.capacity()) return;
  bytes_ += capacity;
  buffers.push_back(std::move(s));
}

size_t BufferPool::pooled_bytes() const {
  absl::MutexLock lock(&mu_);
  return bytes_;
}

size_t BufferPool::pooled_buffers() const {
  absl::MutexLock lock(&mu_);
  size_t buffers = 0;
  for (const std::vector<std::string>& c : classes_) buffers += c.size();
  return buffers;
}

}  // namespace noveltygrid
