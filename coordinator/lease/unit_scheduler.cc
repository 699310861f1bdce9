#include "coordinator/lease/unit_scheduler.h"

#include <algorithm>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/hashing.h"

namespace noveltygrid {
namespace {

// Checkpoint steps a unit has room for at its first Report (AidanBench loops run ~5-30 answers).
constexpr size_t kCheckpointSteps = 16;

}  // namespace

UnitScheduler::UnitScheduler(std::vector<UnitSpec> units, std::vector<std::string> models, SchedulerOptions options,
                             const Clock* clock)
    : UnitScheduler(nullptr, std::move(models), options, clock, std::move(units)) {}

UnitScheduler::UnitScheduler(const std::vector<UnitSpec>* units, std::vector<std::string> models,
                             SchedulerOptions options, const Clock* clock)
    : UnitScheduler(units, std::move(models), options, clock, {}) {}

UnitScheduler::UnitScheduler(const std::vector<UnitSpec>* kept, std::vector<std::string> models,
                             SchedulerOptions options, const Clock* clock, std::vector<UnitSpec> owned)
    : options_(options),
      clock_(clock),
      lease_salt_(StableHasher().Add("lease").Add(static_cast<uint64_t>(absl::ToUnixNanos(clock->Now()))).Finish()),
      expiry_every_(std::clamp(std::min(options.lease_ttl, options.worker_timeout) / 20, absl::Milliseconds(1),
                               absl::Seconds(1))),
      owned_units_(std::move(owned)),
      order_(0) {
  const std::vector<UnitSpec>& units = kept != nullptr ? *kept : owned_units_;
  // Models: the configured order first, then models that only the units name, by name.
  absl::flat_hash_map<std::string, int> model_rank;
  std::vector<ModelState> model_states;
  auto add_model = [&](const std::string& name) {
    if (model_rank.emplace(name, static_cast<int>(model_states.size())).second) {
      model_states.emplace_back().name = name;
    }
  };
  for (const std::string& name : models) add_model(name);
  std::set<std::string> others;
  for (const UnitSpec& unit : units) {
    if (!model_rank.contains(unit.model)) others.insert(unit.model);
  }
  for (const std::string& name : others) add_model(name);
  models_ = std::move(model_states);
  order_ = PendingOrder(static_cast<int>(models_.size()));

  // Cells: (model, benchmark) pairs, by model rank, then benchmark name.
  std::map<std::pair<int, std::string>, int> cell_rank;
  for (const UnitSpec& spec : units) cell_rank.emplace(std::make_pair(model_rank.at(spec.model), spec.benchmark), 0);
  std::vector<CellCounts> cells;
  for (auto& [key, rank] : cell_rank) {
    rank = static_cast<int>(cells.size());
    cells.push_back(CellCounts{.model = models_[key.first].name, .benchmark = key.second});
  }

  units_.reserve(units.size());
  for (const UnitSpec& spec : units) {
    const size_t slot = units_.size();
    if (!unit_slot_.emplace(spec.id, slot).second) continue;  // a repeated id is the same unit
    const int model = model_rank.at(spec.model);
    UnitEntry& entry = units_.emplace_back();
    entry.spec = &spec;
    entry.model = model;
    entry.cell = cell_rank.at({model, spec.benchmark});
    entry.item = order_.Register(spec.benchmark, spec.item_id);
    order_.Add(model, entry.item, spec.index, slot);
    ++cells[entry.cell].pending;
  }
  cells_ = std::move(cells);
}

std::vector<LeaseGrant> UnitScheduler::Lease(const std::string& worker_id, int max_units) {
  absl::MutexLock lock(&mu_);
  const absl::Time now = clock_->Now();
  ExpireIfDueLocked(now);
  WorkerEntry& worker = Touch(worker_id, now);
  std::vector<LeaseGrant> grants;
  std::vector<bool> refused(models_.size(), false);  // by the lease policy, for this call
  while (static_cast<int>(grants.size()) < max_units) {
    const int model = PickModel(refused);
    if (model < 0) break;
    ModelState& state = models_[model];
    const size_t slot = *order_.Front(model);
    if (options_.policy != nullptr && !options_.policy->Allows(*units_[slot].spec)) {
      refused[model] = true;
      continue;
    }
    if (options_.policy != nullptr) options_.policy->Leased(*units_[slot].spec);
    UnitEntry& unit = units_[slot];
    order_.Remove(model, unit.item, unit.spec->index, slot);
    ++state.leased;

    SetState(unit, UnitState::kLeased);
    ++unit.token;
    unit.lease_id = NewLeaseId(slot);
    unit.worker_id = worker_id;
    unit.deadline = now + options_.lease_ttl;
    worker.leases.insert(slot);
    grants.push_back(LeaseGrant{.lease_id = unit.lease_id,
                                .fencing_token = unit.token,
                                .deadline = unit.deadline,
                                .unit = unit.spec,
                                .checkpoint = unit.checkpoint});
  }
  return grants;
}

std::vector<std::string> UnitScheduler::Heartbeat(const std::string& worker_id, const std::vector<HeldLease>& leases,
                                                  const WorkerInfo& info) {
  absl::MutexLock lock(&mu_);
  const absl::Time now = clock_->Now();
  WorkerEntry& worker = Touch(worker_id, now);
  worker.info = info;
  std::set<size_t> unconfirmed;
  unconfirmed.swap(worker.restored);  // this heartbeat settles them all
  std::vector<std::string> lost;
  for (const HeldLease& held : leases) {
    const std::optional<size_t> slot = CurrentSlot(held.lease_id, held.fencing_token);
    if (slot && units_[*slot].worker_id == worker_id) {
      units_[*slot].deadline = now + options_.lease_ttl;
      unconfirmed.erase(*slot);
    } else {
      lost.push_back(held.lease_id);
    }
  }
  // Restored leases the worker does not hold: back to pending now rather than at worker_timeout.
  for (size_t slot : unconfirmed) {
    if (units_[slot].state == UnitState::kLeased && units_[slot].worker_id == worker_id) ReturnToPending(slot);
  }
  return lost;
}

// Gap rule: the checkpoint is always a prefix 1..n of the unit's answers. Steps are taken in the order
// given; one whose answer_num is <= n is already there and skipped; one equal to n + 1 is appended;
// the first one beyond n + 1 (an earlier report got lost) ends that lease's steps: it and the rest of
// them are dropped. That is not an error -- the lease is still valid (not rejected), the checkpoint is
// just shorter, and a resumed unit recomputes the missing steps deterministically.
std::vector<size_t> UnitScheduler::Report(std::vector<LeaseReport>* reports) {
  std::vector<size_t> rejected;
  absl::MutexLock lock(&mu_);
  const absl::Time now = clock_->Now();
  const std::string* touched = nullptr;  // the worker last marked alive (a Report is usually one worker's)
  for (size_t i = 0; i < reports->size(); ++i) {
    LeaseReport& report = (*reports)[i];
    const std::optional<size_t> slot = CurrentSlot(report.lease_id, report.fencing_token);
    if (!slot) {
      rejected.push_back(i);
      continue;
    }
    UnitEntry& unit = units_[*slot];
    // A report proves the lease and its worker alive, like a heartbeat.
    unit.deadline = now + options_.lease_ttl;
    if (touched == nullptr || *touched != unit.worker_id) {
      Touch(unit.worker_id, now);
      touched = &unit.worker_id;
    }
    // Room for a typical loop's steps at once, rather than growing (and moving) step by step.
    if (unit.checkpoint.capacity() == 0 && !report.steps.empty()) unit.checkpoint.reserve(kCheckpointSteps);
    for (CheckpointStep& step : report.steps) {
      const int next = static_cast<int>(unit.checkpoint.size()) + 1;
      if (step.answer_num < next) continue;
      if (step.answer_num > next) break;
      unit.checkpoint.push_back(std::move(step));
    }
  }
  return rejected;
}

bool UnitScheduler::Report(const std::string& lease_id, uint64_t fencing_token, std::vector<CheckpointStep> steps) {
  std::vector<LeaseReport> reports;
  reports.push_back({lease_id, fencing_token, std::move(steps)});
  return Report(&reports).empty();
}

CommitCheck UnitScheduler::CheckCommit(const std::string& lease_id, uint64_t fencing_token,
                                       const std::string& unit_id) {
  const auto it = unit_slot_.find(unit_id);
  if (it == unit_slot_.end()) return CommitCheck::kUnknown;
  absl::MutexLock lock(&mu_);
  if (units_[it->second].state == UnitState::kDone) return CommitCheck::kDuplicate;
  // A current lease of another unit is no better than a stale one of this unit.
  return CurrentSlot(lease_id, fencing_token) == it->second ? CommitCheck::kAccepted : CommitCheck::kStaleToken;
}

void UnitScheduler::MarkDone(const std::string& unit_id, bool failed, int steps) {
  const auto it = unit_slot_.find(unit_id);
  if (it == unit_slot_.end()) return;
  const size_t slot = it->second;
  std::vector<CheckpointStep> checkpoint;  // freed after the lock is released (declared before it)
  absl::MutexLock lock(&mu_);
  UnitEntry& unit = units_[slot];
  ModelState& model = models_[unit.model];
  switch (unit.state) {
    case UnitState::kDone:
      return;
    case UnitState::kLeased:
      DropLease(slot);
      break;
    case UnitState::kPending:
      order_.Remove(unit.model, unit.item, unit.spec->index, slot);
      break;
  }
  if (!failed) order_.Learn(unit.item, steps);
  SetState(unit, UnitState::kDone, failed);
  checkpoint.swap(unit.checkpoint);  // the memory goes, not just the size
  ++model.done;
  if (failed) ++model.failed;
}

std::vector<RestoredLease> UnitScheduler::Restore(const std::vector<RestoredLease>& leases) {
  absl::MutexLock lock(&mu_);
  const absl::Time now = clock_->Now();
  std::vector<RestoredLease> restored;
  for (const RestoredLease& lease : leases) {
    const auto it = unit_slot_.find(lease.unit_id);
    if (it == unit_slot_.end() || lease.lease_id.empty() || LeaseSlot(lease.lease_id)) continue;
    const size_t slot = it->second;
    UnitEntry& unit = units_[slot];
    if (unit.state != UnitState::kPending || lease.fencing_token < unit.token) continue;
    unit.token = lease.fencing_token;
    ModelState& model = models_[unit.model];
    order_.Remove(unit.model, unit.item, unit.spec->index, slot);
    ++model.leased;
    if (options_.policy != nullptr) options_.policy->Leased(*unit.spec);
    SetState(unit, UnitState::kLeased);
    unit.lease_id = lease.lease_id;
    unit.worker_id = lease.worker_id;
    unit.deadline = now + options_.lease_ttl;
    // An earlier coordinator's id names the unit's slot in that coordinator's plan, which may not be this one's.
    if (SlotNamedBy(unit.lease_id) != slot) foreign_leases_.emplace(unit.lease_id, slot);
    WorkerEntry& worker = Touch(lease.worker_id, now);
    worker.leases.insert(slot);
    worker.restored.insert(slot);
    restored.push_back(lease);
  }
  return restored;
}

void UnitScheduler::Release(const std::string& lease_id, uint64_t fencing_token) {
  absl::MutexLock lock(&mu_);
  if (const std::optional<size_t> slot = CurrentSlot(lease_id, fencing_token)) ReturnToPending(*slot);
}

void UnitScheduler::Leave(const std::string& worker_id) {
  absl::MutexLock lock(&mu_);
  auto it = workers_.find(worker_id);
  if (it == workers_.end()) return;
  const absl::flat_hash_set<size_t> held = it->second.leases;  // ReturnToPending edits the worker's set
  for (size_t slot : held) ReturnToPending(slot);
  workers_.erase(worker_id);
}

int UnitScheduler::ExpireIfDue() {
  absl::MutexLock lock(&mu_);
  return ExpireIfDueLocked(clock_->Now());
}

int UnitScheduler::ExpireIfDueLocked(absl::Time now) {
  // (A clock stepped back by more than the interval looks again too, rather than not until it catches up.)
  if (now < next_lease_expiry_ && now + expiry_every_ >= next_lease_expiry_) return 0;
  next_lease_expiry_ = now + expiry_every_;
  return ExpireLocked(now);
}

int UnitScheduler::ExpireOverdue() {
  absl::MutexLock lock(&mu_);
  return ExpireLocked(clock_->Now());
}

bool UnitScheduler::AllDone() const {
  absl::MutexLock lock(&mu_);
  int64_t done = 0;
  for (const ModelState& model : models_) done += model.done;
  return done == static_cast<int64_t>(units_.size());
}

SchedulerStatus UnitScheduler::Status() const {
  absl::MutexLock lock(&mu_);
  const absl::Time now = clock_->Now();
  SchedulerStatus status;
  status.total = static_cast<int64_t>(units_.size());
  for (size_t i = 0; i < models_.size(); ++i) {
    const ModelState& model = models_[i];
    ModelCounts counts{.model = model.name,
                       .done = model.done,
                       .leased = model.leased,
                       .pending = static_cast<int64_t>(order_.Size(static_cast<int>(i))),
                       .failed = model.failed};
    status.done += counts.done;
    status.leased += counts.leased;
    status.pending += counts.pending;
    status.models.push_back(std::move(counts));
  }
  status.cells = cells_;
  status.leases_expired = leases_expired_;
  for (const auto& [id, worker] : workers_) {
    const absl::Duration since = now - worker.last_seen;
    if (since > options_.worker_timeout) continue;  // silent: forgotten at the next expiry
    status.workers.push_back(WorkerCounts{.worker_id = id,
                                          .since_last_seen = since,
                                          .leases = static_cast<int>(worker.leases.size()),
                                          .info = worker.info});
  }
  return status;
}

const UnitSpec* UnitScheduler::UnitById(const std::string& unit_id) const {
  const auto it = unit_slot_.find(unit_id);
  if (it == unit_slot_.end()) return nullptr;
  absl::MutexLock lock(&mu_);
  return units_[it->second].spec;
}

bool UnitScheduler::IsDone(const std::string& unit_id) const {
  const auto it = unit_slot_.find(unit_id);
  if (it == unit_slot_.end()) return false;
  absl::MutexLock lock(&mu_);
  return units_[it->second].state == UnitState::kDone;
}

std::optional<size_t> UnitScheduler::CurrentSlot(const std::string& lease_id, uint64_t token) const {
  const std::optional<size_t> slot = LeaseSlot(lease_id);
  if (!slot || units_[*slot].token != token) return std::nullopt;
  return slot;
}

std::optional<size_t> UnitScheduler::LeaseSlot(const std::string& lease_id) const {
  // The id names the slot; it is current when that unit's lease has this id (leased units only: the
  // others have no lease id). No index of the ids: a lookup is one visit to the unit.
  if (const std::optional<size_t> slot = SlotNamedBy(lease_id);
      slot && *slot < units_.size() && units_[*slot].lease_id == lease_id) {
    return slot;
  }
  if (foreign_leases_.empty()) return std::nullopt;
  const auto it = foreign_leases_.find(lease_id);
  if (it == foreign_leases_.end()) return std::nullopt;
  return it->second;
}

std::optional<size_t> UnitScheduler::SlotNamedBy(std::string_view lease_id) {
  const size_t dash = lease_id.find('-');
  uint64_t slot = 0;
  // (Debian's Abseil has a string_view of its own.)
  if (dash == std::string_view::npos || !absl::SimpleHexAtoi(absl::string_view(lease_id.data(), dash), &slot)) {
    return std::nullopt;
  }
  return static_cast<size_t>(slot);
}

bool UnitScheduler::Blocked() const {
  absl::MutexLock lock(&mu_);
  if (options_.policy == nullptr) return false;
  bool pending = false;
  for (size_t i = 0; i < models_.size(); ++i) {
    if (models_[i].leased > 0) return false;
    const std::optional<size_t> next = order_.Front(static_cast<int>(i));
    if (!next) continue;
    if (options_.policy->Allows(*units_[*next].spec)) return false;
    pending = true;
  }
  return pending;
}

int UnitScheduler::PickModel(const std::vector<bool>& refused) const {
  int best = -1;
  for (int i = 0; i < static_cast<int>(models_.size()); ++i) {
    const ModelState& model = models_[i];
    if (order_.Empty(i) || refused[i]) continue;
    if (options_.per_model_cap > 0 && model.leased >= options_.per_model_cap) continue;
    if (best < 0 || model.leased < models_[best].leased) best = i;  // strict: ties keep config order
  }
  return best;
}

void UnitScheduler::SetState(UnitEntry& unit, UnitState to, bool failed) {
  CellCounts& cell = cells_[unit.cell];
  auto count = [&cell](UnitState state) -> int64_t& {
    switch (state) {
      case UnitState::kPending:
        return cell.pending;
      case UnitState::kLeased:
        return cell.leased;
      case UnitState::kDone:
        break;
    }
    return cell.done;
  };
  --count(unit.state);
  ++count(to);
  if (to == UnitState::kDone && failed) ++cell.failed;
  unit.state = to;
}

namespace {

// MurmurHash3's 32-bit finalizer: a bijection, so distinct counters give distinct suffixes.
uint32_t Mix32(uint32_t x) {
  x ^= x >> 16;
  x *= 0x85ebca6bU;
  x ^= x >> 13;
  x *= 0xc2b2ae35U;
  x ^= x >> 16;
  return x;
}

}  // namespace

std::string UnitScheduler::LeaseIdOf(size_t slot, uint32_t suffix) {
  return absl::StrCat(absl::Hex(slot), "-", absl::Hex(suffix, absl::kZeroPad8));
}

// The suffix mixes the salt from the start time with a 32-bit sequence number, one to one: no two
// leases of this coordinator share an id (below 2^32 leases), and ids a previous coordinator handed out
// are other ids but by chance. An id a restored lease still holds is never handed out again: it would
// name its slot.
std::string UnitScheduler::NewLeaseId(size_t slot) {
  std::string id;
  do {
    id = LeaseIdOf(slot, Mix32(static_cast<uint32_t>(lease_salt_) + static_cast<uint32_t>(++lease_seq_)));
  } while (!foreign_leases_.empty() && foreign_leases_.contains(id));
  return id;
}

UnitScheduler::WorkerEntry& UnitScheduler::Touch(const std::string& worker_id, absl::Time now) {
  WorkerEntry& worker = workers_[worker_id];
  worker.last_seen = now;
  return worker;
}

void UnitScheduler::DropLease(size_t slot) {
  UnitEntry& unit = units_[slot];
  if (!foreign_leases_.empty()) foreign_leases_.erase(unit.lease_id);
  if (auto worker = workers_.find(unit.worker_id); worker != workers_.end()) {
    worker->second.leases.erase(slot);
    worker->second.restored.erase(slot);
  }
  unit.lease_id.clear();
  unit.worker_id.clear();
  --models_[unit.model].leased;
  if (options_.policy != nullptr) options_.policy->Ended(*unit.spec);
}

void UnitScheduler::ReturnToPending(size_t slot) {
  DropLease(slot);
  UnitEntry& unit = units_[slot];
  SetState(unit, UnitState::kPending);
  order_.Add(unit.model, unit.item, unit.spec->index, slot);
}

int UnitScheduler::ExpireLocked(absl::Time now) {
  // Every leased unit is in its worker's set.
  std::vector<size_t> overdue;
  for (auto it = workers_.begin(); it != workers_.end();) {
    if (now - it->second.last_seen > options_.worker_timeout) {
      overdue.insert(overdue.end(), it->second.leases.begin(), it->second.leases.end());
      it = workers_.erase(it);
      continue;
    }
    for (size_t slot : it->second.leases) {
      if (units_[slot].deadline < now) overdue.push_back(slot);
    }
    ++it;
  }
  // A lease can be both past its deadline and held by a silent worker: return it once.
  std::sort(overdue.begin(), overdue.end());
  overdue.erase(std::unique(overdue.begin(), overdue.end()), overdue.end());
  for (size_t slot : overdue) ReturnToPending(slot);
  leases_expired_ += static_cast<int64_t>(overdue.size());
  return static_cast<int>(overdue.size());
}

}  // namespace noveltygrid
