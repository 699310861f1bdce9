// Reading AidanBench's part of a results folder back, for `noveltygrid report DIR`: answers.jsonl is
// the source of truth. Its lines carry no unit-level fields, so the rebuild takes them from the old
// summary.json when it is there: each unit's stop_reason and error (and units that stored no answer)
// from "questions"."aidanbench", the cap from each cell's "max_iterations", the preset. Without it,
// stop reasons are inferred from the last answer (InferAidanStopReason), the cap is taken as none and
// the preset defaults to reference-2025; the notes say so.
#ifndef NOVELTYGRID_COORDINATOR_BENCHMARKS_AIDANBENCH_AIDAN_REBUILD_H_
#define NOVELTYGRID_COORDINATOR_BENCHMARKS_AIDANBENCH_AIDAN_REBUILD_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/records.h"
#include "coordinator/benchmarks/registry.h"

namespace noveltygrid {

// Units of an answers.jsonl, grouped by unit_id in order of first appearance (UnitSpec.index counts
// them in that order). stop_reason, error and max_iterations are left empty. A malformed line gives
// InvalidArgument naming the file and the line number.
absl::StatusOr<std::vector<UnitResult>> ReadAidanAnswersFile(const std::string& path);

// The preset a summary.json's "aidanbench" cells record (the first cell that names one); nullopt when
// none does.
std::optional<std::string> RecordedAidanPresetName(const Json& summary);

// answers.jsonl re-read, re-scored under `request.preset` (or the recorded one) and rewritten when its
// derived fields (valid, mmr, order) change.
absl::StatusOr<std::unique_ptr<BenchmarkResults>> RebuildAidanResults(const RebuildRequest& request,
                                                                      std::vector<std::string>& notes);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_BENCHMARKS_AIDANBENCH_AIDAN_REBUILD_H_
