// JSON forms of the records, used by the coordinator's journal and by anything that stores or ships a
// unit's result as text. Round-trips exactly (doubles are written shortest-round-trip).
#ifndef NOVELTYGRID_COMMON_RECORDS_JSON_H_
#define NOVELTYGRID_COMMON_RECORDS_JSON_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "common/json_util.h"
#include "common/records.h"

namespace noveltygrid {

Json UnitSpecToJson(const UnitSpec& unit);
absl::StatusOr<UnitSpec> UnitSpecFromJson(const Json& json);

// The unit's item metadata that is set, in the order results lines carry it: "domain", "subdomain"
// (AidanBench), "category" (NoveltyBench). Results lines and rows add exactly these keys, so the lines of
// items without metadata keep their form.
std::vector<std::pair<const char*, std::string>> UnitMetadata(const UnitSpec& unit);
// Reads those keys back where `json` has them (what UnitMetadata wrote). Throws Json::exception when one
// is not a string, as the callers' other field reads do.
void ReadUnitMetadata(const Json& json, UnitSpec& unit);

Json StepToJson(const StepRecord& answer);
// The members of StepToJson but "error", in its order, as DumpJson writes them and without braces:
// `"answer_num":1,"answer":"...",...` appended to `out`. For rows written a line at a time without a
// Json tree.
void AppendStepMembers(const StepRecord& answer, std::string* out);
absl::StatusOr<StepRecord> StepFromJson(const Json& json);

Json UnitResultToJson(const UnitResult& result);
absl::StatusOr<UnitResult> UnitResultFromJson(const Json& json);

Json CallStatsToJson(const CallStats& calls);
// Lenient, for what a summary.json or an old journal recorded: entries that are not objects are left
// out, counters that are not integers read as 0. Never throws.
CallStats CallStatsFromJson(const Json& json);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COMMON_RECORDS_JSON_H_
