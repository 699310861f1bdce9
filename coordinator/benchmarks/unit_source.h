// UnitSource: the whole committed results of units, fetched by id. It is what keeps a sweep's memory
// bounded by what is in flight rather than by its answers: a reducer given a source keeps of each unit
// only what its numbers need (the answers or generations are dropped once scored), and the rows files
// are streamed from the source in output order when the results are written. The coordinator's commit
// logs (coordinator/state/: the journal file, Redis) are the sources; a reducer given none keeps every
// result whole (imports, rebuilds and tests, which hold their units in memory anyway).
//
// Thread-safety: ForEachUnit may be called from any thread.
#ifndef NOVELTYGRID_COORDINATOR_BENCHMARKS_UNIT_SOURCE_H_
#define NOVELTYGRID_COORDINATOR_BENCHMARKS_UNIT_SOURCE_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "common/records.h"

namespace noveltygrid {

class UnitSource {
 public:
  virtual ~UnitSource() = default;
  // Calls `fn` with the committed result of each of `ids`, in `ids` order, stopping at the first error
  // `fn` returns; NotFound when one of them is not committed.
  virtual absl::Status ForEachUnit(const std::vector<std::string>& ids,
                                   const std::function<absl::Status(UnitResult)>& fn) const = 0;
};

// Calls `fn` with each of `kept` in order, whole: fetched from `source` (in batches) with the kept unit
// spec in place of the stored one (same id, so the same content; the index is the plan's); as kept when
// `source` is null or the unit failed (failed units are not committed: a reducer keeps them whole).
absl::Status ForEachWholeUnit(const std::vector<const UnitResult*>& kept, const UnitSource* source,
                              const std::function<absl::Status(const UnitResult&)>& fn);
// The same for a caller that changes each unit (say, marks its answers) or takes it apart: a fetched
// unit is handed over as it is, one kept whole as a copy.
absl::Status ForEachWholeUnitToChange(const std::vector<const UnitResult*>& kept, const UnitSource* source,
                                      const std::function<absl::Status(UnitResult&)>& fn);

// For a reducer given a source: drops what ForEachWholeUnit brings back (the answers) unless the unit
// failed.
void DropRefetchable(UnitResult& result);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_BENCHMARKS_UNIT_SOURCE_H_
