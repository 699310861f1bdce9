// ReducedUnits: the bookkeeping every benchmark's reducer shares. Results arrive one unit at a time,
// from any thread, in any order, and possibly more than once (a lease that expired and ran again): the
// first entry per unit id is kept and later ones are dropped, so every unit counts exactly once, while
// the call statistics of every result are merged (a re-executed unit really made those requests). A
// benchmark's reducer derives from it, turns each result into its Entry (Keep; an Entry holds its
// UnitResult as `result`) and orders a copy of the entries (Sorted) when a snapshot is made -- never on
// arrival, so output does not depend on it. Every benchmark's output is model-major, then temperature,
// in the sweep's order. Given a UnitSource (unit_source.h), an Entry keeps its result without the
// answers, which the rows files fetch back from the source.
//
// Thread-safety: every method may be called from any thread; the state is guarded by one mutex.
#ifndef NOVELTYGRID_COORDINATOR_BENCHMARKS_REDUCED_UNITS_H_
#define NOVELTYGRID_COORDINATOR_BENCHMARKS_REDUCED_UNITS_H_

#include <algorithm>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/node_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "common/json_util.h"
#include "common/records.h"
#include "coordinator/benchmarks/benchmark_results.h"
#include "coordinator/benchmarks/unit_source.h"

namespace noveltygrid {

// Position of `value` in `order`; values not listed rank after every listed one.
template <typename T>
size_t RankOf(const std::vector<T>& order, const T& value) {
  return static_cast<size_t>(std::find(order.begin(), order.end(), value) - order.begin());
}

// The distinct values of `field(entry.result.unit)` over `entries`, in `order` (unlisted ones after, by
// value).
template <typename T, typename Entry, typename Field>
std::vector<T> ValuesInOrder(const std::vector<Entry>& entries, const std::vector<T>& order, Field field) {
  std::vector<T> values;
  for (const Entry& entry : entries) {
    const T& value = field(entry.result.unit);
    if (std::find(values.begin(), values.end(), value) == values.end()) values.push_back(value);
  }
  std::sort(values.begin(), values.end(), [&order](const T& a, const T& b) {
    return std::make_pair(RankOf(order, a), a) < std::make_pair(RankOf(order, b), b);
  });
  return values;
}

template <typename Entry>
class ReducedUnits : public BenchmarkReducer {
 public:
  // `models` and `temperatures` fix the output order; results for others are accepted and sorted after
  // them (models by name, temperatures by value). `source` (not owned; may be null: results are kept
  // whole) holds every committed result the reducer is given; failed units, which are not committed,
  // are kept whole.
  ReducedUnits(std::vector<std::string> models, std::vector<double> temperatures, const UnitSource* source)
      : models_(std::move(models)), temperatures_(std::move(temperatures)), source_(source) {}
  ReducedUnits(const ReducedUnits&) = delete;
  ReducedUnits& operator=(const ReducedUnits&) = delete;

  void Reserve(size_t units) override {
    absl::MutexLock lock(&mu_);
    entries_.reserve(units);
  }
  // How many entries fit before the index grows (tests).
  size_t Capacity() const {
    absl::MutexLock lock(&mu_);
    return entries_.capacity();
  }

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
  // Keeps `entry` (without what the source holds) unless its unit id has one (then false, `entry`
  // dropped); merges `calls` either way.
  bool Keep(Entry entry, const CallStats& calls) {
    if (source_ != nullptr) DropRefetchable(entry.result);
    std::string unit_id = entry.result.unit.id;
    absl::MutexLock lock(&mu_);
    MergeCallStats(calls, calls_);
    return entries_.try_emplace(std::move(unit_id), std::move(entry)).second;
  }

  struct Contents {
    std::vector<Entry> entries;
    CallStats calls;
    Json run = Json::object();
  };

  const std::vector<std::string>& models() const { return models_; }
  const std::vector<double>& temperatures() const { return temperatures_; }
  const UnitSource* source() const { return source_; }

  // A copy of everything kept, the entries ordered by model, then temperature (each by its rank in the
  // sweep's list, then by value), then by `key(entry)` (a tuple compared with <, that must end in
  // something unique to the unit, such as its id: the entries are kept in no order).
  template <typename Key>
  Contents Sorted(Key key) const {
    Contents contents;
    // Each entry's model and temperature ranks, found once (not at every comparison), then pointers to
    // the entries sorted and the entries copied once, in order. Kept entries are never changed or removed, and the
    // map is node-based, so their addresses hold and they can be read after the lock is let go.
    struct Ranked {
      size_t model_rank;
      size_t temperature_rank;
      const Entry* entry;
    };
    std::vector<Ranked> ranked;
    {
      absl::MutexLock lock(&mu_);
      ranked.reserve(entries_.size());
      for (const auto& [id, entry] : entries_) ranked.push_back({0, 0, &entry});
      contents.calls = calls_;
      contents.run = run_;
    }
    for (Ranked& r : ranked) {
      r.model_rank = RankOf(models_, r.entry->result.unit.model);
      r.temperature_rank = RankOf(temperatures_, r.entry->result.unit.temperature);
    }
    std::sort(ranked.begin(), ranked.end(), [&key](const Ranked& a, const Ranked& b) {
      const UnitSpec& ua = a.entry->result.unit;
      const UnitSpec& ub = b.entry->result.unit;
      return std::tuple_cat(std::make_tuple(a.model_rank, std::cref(ua.model), a.temperature_rank, ua.temperature),
                            key(*a.entry)) <
             std::tuple_cat(std::make_tuple(b.model_rank, std::cref(ub.model), b.temperature_rank, ub.temperature),
                            key(*b.entry));
    });
    contents.entries.reserve(ranked.size());
    for (const Ranked& r : ranked) contents.entries.push_back(*r.entry);
    return contents;
  }

 private:
  // Constant after construction.
  const std::vector<std::string> models_;
  const std::vector<double> temperatures_;
  const UnitSource* const source_;
  mutable absl::Mutex mu_;
  // By unit id. Unordered (Sorted orders a copy, its keys ending in the unit id); node-based, so that
  // growing past hundreds of thousands of entries moves pointers, not entries -- but it still rehashes
  // every key, so the coordinator reserves the plan's units up front (Reserve).
  absl::node_hash_map<std::string, Entry> entries_ ABSL_GUARDED_BY(mu_);
  CallStats calls_ ABSL_GUARDED_BY(mu_);
  Json run_ ABSL_GUARDED_BY(mu_) = Json::object();
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_BENCHMARKS_REDUCED_UNITS_H_
