// Reading a results folder back, for `noveltygrid report DIR`: answers.jsonl (AidanBench) and
// samples.jsonl (NoveltyBench) are the source of truth and summary.json / leaderboard.txt are rebuilt
// from them.
//
// answers.jsonl lines carry no unit-level fields, so the rebuild takes them from the existing
// summary.json when it is there and readable: each unit's stop_reason and error (and units that
// stored no answer, e.g. a generation that failed outright) from the "questions" table, the cap from
// each cell's "max_iterations", the preset, "simulated_models", "calls" and "run". Without it, stop
// reasons are inferred from the last answer (InferAidanStopReason), the cap is taken as none and the
// preset defaults to reference-2025; the outcome's notes say so. samples.jsonl lines carry every
// unit's fields; the NoveltyBench settings (patience, partitioner, ...) come from the old summary's
// "noveltybench" cells, else the defaults (noted). Only a sweep's samples.jsonl (with unit ids) is
// read: import and repartition folders are rebuilt by running that command again.
//
// Stateless functions; safe from any thread (but not with a concurrent writer to the same folder).
#ifndef NOVELTYGRID_COORDINATOR_REPORT_RESULTS_READER_H_
#define NOVELTYGRID_COORDINATOR_REPORT_RESULTS_READER_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/config.h"
#include "common/records.h"
#include "coordinator/reduce/aidan_reducer.h"
#include "coordinator/reduce/novelty_reducer.h"
#include "coordinator/report/results_writer.h"

namespace noveltygrid {

// Units of an answers.jsonl, grouped by unit_id in order of first appearance (UnitSpec.index counts
// them in that order). stop_reason, error and max_iterations are left empty. A malformed line gives
// InvalidArgument naming the file and the line number.
absl::StatusOr<std::vector<UnitResult>> ReadAidanAnswersFile(const std::string& path);

struct RebuildOutcome {
  std::optional<AidanSnapshot> aidan;      // when the folder has answers.jsonl
  std::optional<NoveltySnapshot> novelty;  // when it has samples.jsonl
  ResultsOptions options;
  std::string leaderboard;         // the text written to leaderboard.txt
  std::vector<std::string> notes;  // assumptions made, for the user
};

// Rebuilds summary.json and leaderboard.txt in `dir` from its answers.jsonl and/or samples.jsonl
// (NotFound when it has neither). answers.jsonl is rewritten only when its derived fields change (a
// `preset` other than the recorded one re-marks `valid` and recomputes `mmr`); samples.jsonl likewise.
absl::StatusOr<RebuildOutcome> RebuildResultsFolder(const std::string& dir, const std::optional<AidanPreset>& preset);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_REPORT_RESULTS_READER_H_
