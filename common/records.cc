#include "common/records.h"

namespace noveltygrid {

CallCounters& CallCounters::operator+=(const CallCounters& other) {
  requests += other.requests;
  cache_hits += other.cache_hits;
  retries += other.retries;
  errors += other.errors;
  prompt_tokens += other.prompt_tokens;
  completion_tokens += other.completion_tokens;
  reasoning_tokens += other.reasoning_tokens;
  cache_read_tokens += other.cache_read_tokens;
  cache_write_tokens += other.cache_write_tokens;
  hedges += other.hedges;
  return *this;
}

CallCounters& CallCounters::operator-=(const CallCounters& other) {
  requests -= other.requests;
  cache_hits -= other.cache_hits;
  retries -= other.retries;
  errors -= other.errors;
  prompt_tokens -= other.prompt_tokens;
  completion_tokens -= other.completion_tokens;
  reasoning_tokens -= other.reasoning_tokens;
  cache_read_tokens -= other.cache_read_tokens;
  cache_write_tokens -= other.cache_write_tokens;
  hedges -= other.hedges;
  return *this;
}

bool CallCounters::IsZero() const {
  return requests == 0 && cache_hits == 0 && retries == 0 && errors == 0 && prompt_tokens == 0 &&
         completion_tokens == 0 && reasoning_tokens == 0 && cache_read_tokens == 0 && cache_write_tokens == 0 &&
         hedges == 0;
}

void MergeCallStats(const CallStats& from, CallStats& into) {
  for (const auto& [key, counters] : from) into[key] += counters;
}

CallStats AdvanceCallStats(const CallStats& now, CallStats& seen) {
  CallStats delta;
  auto hint = seen.begin();
  for (const auto& [key, counters] : now) {
    // Both maps are sorted and `seen`'s keys are (nearly always) `now`'s: walk them in step, so a key
    // already seen is updated in place, without a lookup from the root or a new node.
    while (hint != seen.end() && hint->first < key) ++hint;
    if (hint == seen.end() || hint->first != key) hint = seen.emplace_hint(hint, key, CallCounters());
    CallCounters d = counters;
    d -= hint->second;
    if (!d.IsZero()) delta.emplace_hint(delta.end(), key, d);
    hint->second = counters;
    ++hint;
  }
  return delta;
}

}  // namespace noveltygrid
