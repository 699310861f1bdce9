// Writing AidanBench results in the reference implementation's layout, for `noveltygrid export`: the
// inverse of aidan_import.h, so that importing an export gives the results' summary numbers again.
//
//   {"models": {MODEL: {TEMP: {QUESTION_TEXT: [
//       {"answer_num", "answer", "embedding_dissimilarity_score", "coherence_score", "processing_time",
//        ["llm_dissimilarity_score"]}, ...]}}}}
//
// Models, temperatures and questions in answers.jsonl's order, answers in loop order; TEMP as
// FormatTemperature writes it ("0.7"). embedding_dissimilarity_score = novelty, coherence_score =
// coherence (on the results' judge scale: import needs the same preset), llm_dissimilarity_score =
// llm_novelty when the LLM similarity judge scored.
//
// What the layout cannot hold:
//   - processing_time: results folders keep no per-answer timing (it depends on the run): null.
//   - repeats: the layout is one pass, so only the rows of one repeat (0 unless asked) are written.
//   - an answer that ended its loop in a recorded error: the reference never stored one (its errors
//     ended the question silently), so it is left out with anything after it. Valid answers and the
//     novelty, coherence and MMR sums do not change (validity stops at an error); stored_answers and
//     errors do.
//   - question ids, unit ids and stop reasons: import derives the ids from the question text and
//     infers the stop reasons from the last answers; `valid` and `mmr` are recomputed.
// The counts of what was left out come back with the JSON, for the notes the user sees.
// Stateless functions, safe from any thread.
#ifndef NOVELTYGRID_COORDINATOR_BENCHMARKS_AIDANBENCH_AIDAN_EXPORT_H_
#define NOVELTYGRID_COORDINATOR_BENCHMARKS_AIDANBENCH_AIDAN_EXPORT_H_

#include <vector>

#include "absl/status/statusor.h"
#include "common/json_util.h"
#include "common/records.h"
#include "coordinator/benchmarks/registry.h"

namespace noveltygrid {

struct AidanReferenceExport {
  Json root;                     // the layout above
  int answers = 0;               // answers written
  int other_repeat_answers = 0;  // left out: rows of another repeat
  int last_repeat = 0;           // the highest repeat the units hold
  int error_answers = 0;         // left out: answers that ended in an error, and any after them
};

// `units` as ReadAidanAnswersFile gives them, of which those of `repeat` are written.
// FailedPrecondition when none is of `repeat`, or when two of them share a model, temperature and
// question text (the layout keys a question's answers by its text).
absl::StatusOr<AidanReferenceExport> AidanReferenceJson(const std::vector<UnitResult>& units, int repeat);

// The registry's export_reference: DIR/answers.jsonl to the file `request.out_path` (its folder
// created if missing; FailedPrecondition when it is a folder).
absl::StatusOr<ExportOutcome> ExportAidanReference(const ExportRequest& request);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_BENCHMARKS_AIDANBENCH_AIDAN_EXPORT_H_
