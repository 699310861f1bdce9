// ReducedUnits: the bookkeeping every benchmark's reducer shares. Results arrive one unit at a time,
// from any thread, in any order, and possibly more than once (a lease that expired and ran again): the
// first entry per unit id is kept and later ones are dropped, so every unit counts exactly once, while
// the call statistics of every result are merged (a re-executed unit really made those requests). A
// benchmark's reducer derives from it, turns each result into its Entry (Keep) and orders a copy of
// the entries (Sorted) when a snapshot is made -- never on arrival, so output does not depend on it.
//
// Thread-safety: every method may be called from any thread; the state is guarded by one mutex.
#ifndef NOVELTYGRID_COORDINATOR_BENCHMARKS_REDUCED_UNITS_H_
#define NOVELTYGRID_COORDINATOR_BENCHMARKS_REDUCED_UNITS_H_

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "common/json_util.h"
#include "common/records.h"
#include "coordinator/benchmarks/benchmark_results.h"

namespace noveltygrid {

// Position of `value` in `order`; values not listed rank after every listed one.
template <typename T>
size_t RankOf(const std::vector<T>& order, const T& value) {
  return static_cast<size_t>(std::find(order.begin(), order.end(), value) - order.begin());
}

template <typename Entry>
class ReducedUnits : public BenchmarkReducer {
 public:
  ReducedUnits() = default;
  ReducedUnits(const ReducedUnits&) = delete;
  ReducedUnits& operator=(const ReducedUnits&) = delete;

  // Merges call statistics not tied to a result (e.g. restored from an earlier summary).
  void AddCalls(const CallStats& calls) override {
    absl::MutexLock lock(&mu_);
    MergeCallStats(calls, calls_);
  }

  // Replaces the "run" object written to summary.json (timings, workers, ...).
  void SetRunInfo(Json run) override {
    absl::MutexLock lock(&mu_);
    run_ = std::move(run);
  }

  bool Contains(const std::string& unit_id) const {
    absl::MutexLock lock(&mu_);
    return entries_.count(unit_id) > 0;
  }

  int UnitCount() const {
    absl::MutexLock lock(&mu_);
    return static_cast<int>(entries_.size());
  }

 protected:
  // Keeps `entry` unless `unit_id` has one (then false, `entry` dropped); merges `calls` either way.
  bool Keep(const std::string& unit_id, Entry entry, const CallStats& calls) {
    absl::MutexLock lock(&mu_);
    MergeCallStats(calls, calls_);
    return entries_.try_emplace(unit_id, std::move(entry)).second;
  }

  struct Contents {
    std::vector<Entry> entries;
    CallStats calls;
    Json run = Json::object();
  };

  // A copy of everything kept, the entries ordered by `key(entry)` (a tuple compared with <).
  template <typename Key>
  Contents Sorted(Key key) const {
    Contents contents;
    {
      absl::MutexLock lock(&mu_);
      contents.entries.reserve(entries_.size());
      for (const auto& [id, entry] : entries_) contents.entries.push_back(entry);
      contents.calls = calls_;
      contents.run = run_;
    }
    std::sort(contents.entries.begin(), contents.entries.end(),
              [&key](const Entry& a, const Entry& b) { return key(a) < key(b); });
    return contents;
  }

 private:
  mutable absl::Mutex mu_;
  std::map<std::string, Entry> entries_ ABSL_GUARDED_BY(mu_);  // by unit id
  CallStats calls_ ABSL_GUARDED_BY(mu_);
  Json run_ ABSL_GUARDED_BY(mu_) = Json::object();
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_BENCHMARKS_REDUCED_UNITS_H_
