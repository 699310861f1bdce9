#include "coordinator/lease/pending_order.h"

#include "absl/strings/str_cat.h"

namespace noveltygrid {

int PendingOrder::Register(const std::string& benchmark, const std::string& item_id) {
  const auto [it, added] =
      item_ids_.try_emplace(absl::StrCat(benchmark, "\x1f", item_id), static_cast<int>(items_.size()));
  if (added) items_.emplace_back();
  Unkey(it->second);  // its started count (units - pending) is in the keys
  ++items_[it->second].units;
  Rekey(it->second);
  return it->second;
}

void PendingOrder::Add(int model, int item, int plan_index, size_t slot) {
  ModelQueue& queue = models_[model];
  UnkeyFor(queue, item);
  if (queue.units[item].emplace(plan_index, slot).second) {
    ++queue.size;
    ++items_[item].pending;
  }
  RekeyFor(queue, item);
}

void PendingOrder::Remove(int model, int item, int plan_index, size_t slot) {
  ModelQueue& queue = models_[model];
  const auto it = queue.units.find(item);
  if (it == queue.units.end() || !it->second.contains({plan_index, slot})) return;
  UnkeyFor(queue, item);
  it->second.erase({plan_index, slot});
  if (it->second.empty()) queue.units.erase(it);
  --queue.size;
  --items_[item].pending;
  RekeyFor(queue, item);
}

void PendingOrder::Learn(int item, int steps) {
  if (steps < 0) return;
  Unkey(item);
  ItemState& state = items_[item];
  ++state.learned_units;
  state.learned_steps += steps;
  ++learned_units_;
  learned_steps_ += steps;
  Rekey(item);
}

std::optional<size_t> PendingOrder::Front(int model) const {
  const ModelQueue& queue = models_[model];
  if (queue.size == 0) return std::nullopt;
  const Key* next = nullptr;
  if (queue.known.empty()) {
    next = &*queue.unknown.begin();
  } else if (queue.unknown.empty()) {
    next = &*queue.known.begin();
  } else {
    const double mean = learned_steps_ / static_cast<double>(learned_units_);
    const double longest = -std::get<0>(*queue.known.begin());
    next = longest >= mean ? &*queue.known.begin() : &*queue.unknown.begin();
  }
  return queue.units.at(std::get<2>(*next)).begin()->second;
}

PendingOrder::Key PendingOrder::KeyOf(const ModelQueue& queue, int item) const {
  const ItemState& state = items_[item];
  const int first = queue.units.at(item).begin()->first;
  if (state.known()) return {-state.expected(), first, item};
  return {static_cast<double>(state.started()), first, item};
}

void PendingOrder::Unkey(int item) {
  for (ModelQueue& queue : models_) UnkeyIn(queue, item);
}

void PendingOrder::Rekey(int item) {
  for (ModelQueue& queue : models_) RekeyIn(queue, item);
}

// An unknown item's keys hold its started count, so a unit of it added to or removed from one model's
// queue moves it in every model; a known item's keys hold nothing of another model's queue, so only
// this one moves (a lease re-keys one model's sets, not every model's).
void PendingOrder::UnkeyFor(ModelQueue& queue, int item) { items_[item].known() ? UnkeyIn(queue, item) : Unkey(item); }

void PendingOrder::RekeyFor(ModelQueue& queue, int item) { items_[item].known() ? RekeyIn(queue, item) : Rekey(item); }

void PendingOrder::UnkeyIn(ModelQueue& queue, int item) {
  if (!queue.units.contains(item)) return;
  (items_[item].known() ? queue.known : queue.unknown).erase(KeyOf(queue, item));
}

void PendingOrder::RekeyIn(ModelQueue& queue, int item) {
  if (!queue.units.contains(item)) return;
  (items_[item].known() ? queue.known : queue.unknown).insert(KeyOf(queue, item));
}

}  // namespace noveltygrid
