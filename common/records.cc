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

}  // namespace noveltygrid
