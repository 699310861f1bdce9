#include "common/records.h"

namespace noveltygrid {

CallCounters& CallCounters::operator+=(const CallCounters& other) {
  requests += other.requests;
  cache_hits += other.cache_hits;
  retries += other.retries;
  errors += other.errors;
  prompt_tokens += other.prompt_tokens;
  completion_tokens += other.completion_tokens;
  return *this;
}

void MergeCallStats(const CallStats& from, CallStats& into) {
  for (const auto& [key, counters] : from) into[key] += counters;
}

CallStats CallStatsSince(const CallStats& now, const CallStats& before) {
  CallStats delta;
  for (const auto& [key, counters] : now) {
    CallCounters d = counters;
    if (auto it = before.find(key); it != before.end()) {
      d.requests -= it->second.requests;
      d.cache_hits -= it->second.cache_hits;
      d.retries -= it->second.retries;
      d.errors -= it->second.errors;
      d.prompt_tokens -= it->second.prompt_tokens;
      d.completion_tokens -= it->second.completion_tokens;
    }
    if (d.requests != 0 || d.cache_hits != 0 || d.retries != 0 || d.errors != 0 || d.prompt_tokens != 0 ||
        d.completion_tokens != 0) {
      delta[key] = d;
    }
  }
  return delta;
}

}  // namespace noveltygrid
