#include "sim_server/prompt_cache.h"

#include <algorithm>

namespace noveltygrid {

PromptCache::PromptCache(const Clock* clock, size_t capacity)
    : clock_(clock), capacity_(std::max<size_t>(capacity, 1)) {}

int PromptCache::Use(const std::vector<Prefix>& prefixes) {
  const absl::Time now = clock_->Now();
  absl::MutexLock lock(&mu_);
  int longest = -1;
  for (size_t i = 0; i < prefixes.size(); ++i) {
    auto it = index_.find(prefixes[i].key);
    if (it != index_.end() && it->second->expires > now) longest = static_cast<int>(i);
  }
  for (const Prefix& prefix : prefixes) {
    const absl::Time expires = now + prefix.ttl;
    if (auto it = index_.find(prefix.key); it != index_.end()) {
      // A use renews the entry (an expired one is written again): never shorten a longer lifetime.
      Entry& entry = *it->second;
      entry.expires = entry.expires > now ? std::max(entry.expires, expires) : expires;
      lru_.splice(lru_.begin(), lru_, it->second);
      continue;
    }
    lru_.push_front(Entry{prefix.key, expires});
    index_[prefix.key] = lru_.begin();
    if (lru_.size() > capacity_) {
      index_.erase(lru_.back().key);
      lru_.pop_back();
    }
  }
  return longest;
}

size_t PromptCache::size() const {
  absl::MutexLock lock(&mu_);
  return lru_.size();
}

}  // namespace noveltygrid
