#include "coordinator/benchmarks/unit_source.h"

#include <algorithm>
#include <utility>

#include "absl/functional/function_ref.h"
#include "absl/strings/str_cat.h"

namespace noveltygrid {

namespace {
// Units fetched per call to the source: large enough to amortize a Redis round trip, small enough that a
// batch of long answers stays a few megabytes.
constexpr size_t kFetchBatch = 256;
bool IsKeptWhole(const UnitResult& unit, const UnitSource* source) {
  return source == nullptr || unit.stop_reason == kStopError;
}

// ForEachWholeUnit's walk: `kept_whole` gets the units kept whole, `fetched` those fetched from `source`.
absl::Status WalkWholeUnits(const std::vector<const UnitResult*>& kept, const UnitSource* source,
                            absl::FunctionRef<absl::Status(const UnitResult&)> kept_whole,
                            absl::FunctionRef<absl::Status(UnitResult&)> fetched) {
  size_t begin = 0;
  while (begin < kept.size()) {
    // A run of units kept whole, then a batch of units to fetch.
    if (IsKeptWhole(*kept[begin], source)) {
      if (absl::Status s = kept_whole(*kept[begin]); !s.ok()) return s;
      ++begin;
      continue;
    }
    size_t end = begin;
    std::vector<std::string> ids;
    while (end < kept.size() && ids.size() < kFetchBatch && !IsKeptWhole(*kept[end], source)) {
      ids.push_back(kept[end++]->unit.id);
    }
    size_t next = begin;
    absl::Status status = source->ForEachUnit(ids, [&](UnitResult whole) {
      if (next >= end || whole.unit.id != kept[next]->unit.id) {
        return absl::InternalError(absl::StrCat("the unit source returned ", whole.unit.id, " out of order"));
      }
      whole.unit = kept[next++]->unit;
      return fetched(whole);
    });
    if (!status.ok()) return status;
    if (next != end) return absl::InternalError("the unit source returned fewer units than asked for");
    begin = end;
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ForEachWholeUnit(const std::vector<const UnitResult*>& kept, const UnitSource* source,
                              const std::function<absl::Status(const UnitResult&)>& fn) {
  return WalkWholeUnits(kept, source, fn, [&fn](UnitResult& unit) { return fn(unit); });
}

absl::Status ForEachWholeUnitToChange(const std::vector<const UnitResult*>& kept, const UnitSource* source,
                                      const std::function<absl::Status(UnitResult&)>& fn) {
  return WalkWholeUnits(
      kept, source,
      [&fn](const UnitResult& unit) {
        UnitResult copy = unit;
        return fn(copy);
      },
      fn);
}

void DropRefetchable(UnitResult& result) {
  if (result.stop_reason == kStopError) return;
  result.answers.clear();
  result.answers.shrink_to_fit();
}

}  // namespace noveltygrid
