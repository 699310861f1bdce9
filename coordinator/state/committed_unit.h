// How a commit log stores one committed unit: its result and call statistics as the v1 CompleteRequest
// message the worker commits (proto/noveltygrid/v1/coordinator.proto, without the lease fields), in
// binary. The unit travels as its id only: a log's readers put the planned unit back (PlannedUnits::Take,
// ForEachWholeUnit), as the coordinator does with a worker's commit. Binary because a large sweep's log
// is read whole on every start: 1.6 M answers parse in about a second, where the JSON lines of earlier
// versions took half a minute. Those JSON entries (they start with '{') are still read.
#ifndef NOVELTYGRID_COORDINATOR_STATE_COMMITTED_UNIT_H_
#define NOVELTYGRID_COORDINATOR_STATE_COMMITTED_UNIT_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/records.h"

namespace noveltygrid {

namespace v1 {
class CompleteRequest;
}  // namespace v1

struct JournalEntry {
  UnitResult result;
  CallStats calls;
  // CommittedUnitBytes of the two when the caller had them already (the worker's commit, stored as
  // sent); empty: made from them when stored. Whoever changes `result` or `calls` clears it.
  std::string record{};
};

// The bytes stored for a committed unit.
std::string CommittedUnitBytes(const UnitResult& result, const CallStats& calls);
// The same record from the worker's commit itself, without converting it: the message as sent minus
// the lease's fields (worker, lease, fencing token) and any embeddings. It reads back as
// ResultFromProto and FromProto(calls) read the commit, and is byte for byte the record of those two
// when the worker wrote the commit from them (as noveltygrid worker does).
std::string CommittedUnitBytes(const v1::CompleteRequest& commit);
// entry.record, or the record made from the entry's result and calls.
std::string CommittedUnitBytes(const JournalEntry& entry);
// A stored unit back: the binary form, or an earlier version's JSON text. The result's unit holds the
// id only for the binary form. DataLoss when `bytes` is neither.
absl::StatusOr<JournalEntry> CommittedUnitFromBytes(absl::string_view bytes);

// An earlier version's JSON form (tests of reading what it left behind).
std::string LegacyCommittedUnitText(const UnitResult& result, const CallStats& calls);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_STATE_COMMITTED_UNIT_H_
