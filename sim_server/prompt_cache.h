// PromptCache: which prompt prefixes serve-sim's Anthropic route (anthropic_api.h) holds in its
// simulated prompt cache, so that usage reports cache writes and reads as the real API does.
//
// A prefix is a 64-bit key (a hash of the model and the prompt blocks up to a cache_control
// breakpoint) with a lifetime: it stays cached for `ttl` after its last use (Anthropic's "5m" or
// "1h"), measured on the injected clock. At most `capacity` prefixes are kept; beyond that the least
// recently used one is dropped, so memory stays bounded whatever the clients send.
//
// Thread-safe: one mutex around the whole table (Use is O(breakpoints), a few hash lookups).
#ifndef NOVELTYGRID_SIM_SERVER_PROMPT_CACHE_H_
#define NOVELTYGRID_SIM_SERVER_PROMPT_CACHE_H_

#include <cstddef>
#include <cstdint>
#include <list>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"

namespace noveltygrid {

class PromptCache {
 public:
  struct Prefix {
    uint64_t key = 0;
    absl::Duration ttl = absl::Minutes(5);
  };

  // `clock` must outlive the cache.
  PromptCache(const Clock* clock, size_t capacity);

  // `prefixes`: one request's cache breakpoints, shortest prefix first. Returns the index of the
  // longest one that is cached now (-1: none), then caches every one of them (a cached one gets a new
  // lifetime from now).
  int Use(const std::vector<Prefix>& prefixes);

  size_t size() const;

 private:
  struct Entry {
    uint64_t key;
    absl::Time expires;
  };
  using Lru = std::list<Entry>;  // most recently used first

  // Constant after construction.
  const Clock* const clock_;
  const size_t capacity_;

  mutable absl::Mutex mu_;
  Lru lru_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<uint64_t, Lru::iterator> index_ ABSL_GUARDED_BY(mu_);
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_SIM_SERVER_PROMPT_CACHE_H_
