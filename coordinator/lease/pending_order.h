// PendingOrder: the order in which each model's pending units are leased -- longest expected first,
// learning how long units are as they complete.
//
// Units of one item (the same question or prompt, under any model, temperature or mode) tend to run
// about as long as each other: in AidanBench the loop length depends mostly on the question. A sweep's
// makespan is set by the long units that start last, so the scheduler wants the long ones first (the
// longest-processing-time rule) but cannot know them before they run. It learns instead:
//
//   * an item is "known" once one of its units has completed; its expected length is the mean steps of
//     its completed units (AidanBench: answers; NoveltyBench: generations);
//   * an item not known yet is expected to take the mean over every completed unit;
//   * a model's next unit is its known item with the longest expected length when that is at least the
//     mean; otherwise an unknown item, preferring items with the fewest units already started (so the
//     first leases spread over many items and their lengths are learned while their other units are
//     still pending); otherwise the longest known one. Ties: the lowest plan index.
//
// With nothing learned (a fresh sweep's first leases, or plans whose items each have one unit) this is
// plan order, except that an item's later units wait behind items nothing of which has started.
// Lease order decides only when units run, never what they produce: results are the same in any order.
//
// Not thread-safe (UnitScheduler's mutex guards it). Every operation is O(models x log items).
#ifndef NOVELTYGRID_COORDINATOR_LEASE_PENDING_ORDER_H_
#define NOVELTYGRID_COORDINATOR_LEASE_PENDING_ORDER_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/btree_set.h"
#include "absl/container/flat_hash_map.h"

namespace noveltygrid {

class PendingOrder {
 public:
  explicit PendingOrder(int models) : models_(models) {}

  // Registers one unit of the plan and returns the number of its item -- (benchmark, item id) -- for
  // Add, Remove and Learn. Once per unit, before it is added; until it is, it counts as started.
  int Register(const std::string& benchmark, const std::string& item_id);

  // A unit becomes pending (at start, or when its lease comes back) / stops being pending (leased, or
  // done). `plan_index` orders units within an item and breaks ties; `slot` is what Front returns.
  void Add(int model, int item, int plan_index, size_t slot);
  void Remove(int model, int item, int plan_index, size_t slot);

  // A unit of `item` completed after `steps` steps: the item's expected length and the overall mean
  // learn from it.
  void Learn(int item, int steps);

  // The slot of `model`'s next unit; nullopt when it has none pending.
  std::optional<size_t> Front(int model) const;
  size_t Size(int model) const { return models_[model].size; }
  bool Empty(int model) const { return models_[model].size == 0; }

 private:
  struct ItemState {
    int64_t units = 0;    // of this item in the plan (pending or not)
    int64_t pending = 0;  // of those, pending now
    int64_t learned_units = 0;
    double learned_steps = 0;
    bool known() const { return learned_units > 0; }
    double expected() const { return learned_steps / static_cast<double>(learned_units); }
    int64_t started() const { return units - pending; }
  };
  // Sort keys of an item within one model: unknown items by (started, first plan index), known ones by
  // (-expected length, first plan index); the item last.
  using Key = std::tuple<double, int, int>;
  struct ModelQueue {
    size_t size = 0;
    // B-trees rather than std::set: the same order, in a few cache lines per lookup instead of a node
    // each (Learn re-keys an item in every model at every commit).
    absl::flat_hash_map<int, absl::btree_set<std::pair<int, size_t>>> units;  // item -> (plan index, slot)
    absl::btree_set<Key> unknown, known;
  };

  Key KeyOf(const ModelQueue& queue, int item) const;
  // Takes `item` out of / puts it back into the sorted sets of every model that has units of it pending,
  // around a change to what its keys depend on.
  void Unkey(int item);
  void Rekey(int item);
  void UnkeyIn(ModelQueue& queue, int item);
  void RekeyIn(ModelQueue& queue, int item);
  // Around a change to `queue`'s units of `item`: in every model, or in `queue` alone when that is all
  // the change moves.
  void UnkeyFor(ModelQueue& queue, int item);
  void RekeyFor(ModelQueue& queue, int item);

  std::vector<ModelQueue> models_;
  std::vector<ItemState> items_;
  absl::flat_hash_map<std::string, int> item_ids_;
  int64_t learned_units_ = 0;
  double learned_steps_ = 0;
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_LEASE_PENDING_ORDER_H_
