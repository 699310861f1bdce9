// JSON forms of the records, used by the coordinator's journal and by anything that stores or ships a
// unit's result as text. Round-trips exactly (doubles are written shortest-round-trip).
#ifndef NOVELTYGRID_COMMON_RECORDS_JSON_H_
#define NOVELTYGRID_COMMON_RECORDS_JSON_H_

#include "absl/status/statusor.h"
#include "common/json_util.h"
#include "common/records.h"

namespace noveltygrid {

Json UnitSpecToJson(const UnitSpec& unit);
absl::StatusOr<UnitSpec> UnitSpecFromJson(const Json& json);

Json StepToJson(const StepRecord& answer);
absl::StatusOr<StepRecord> StepFromJson(const Json& json);

Json UnitResultToJson(const UnitResult& result);
absl::StatusOr<UnitResult> UnitResultFromJson(const Json& json);

Json CallStatsToJson(const CallStats& calls);
// Lenient, for what a summary.json or an old journal recorded: entries that are not objects are left
// out, counters that are not integers read as 0. Never throws.
CallStats CallStatsFromJson(const Json& json);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COMMON_RECORDS_JSON_H_
