// Reading AidanBench results written in the reference implementation's layout:
//
//   {"models": {MODEL: {"0.7": {QUESTION_TEXT: [
//       {"answer_num", "answer", "embedding_dissimilarity_score", "coherence_score",
//        "processing_time", ["llm_dissimilarity_score"]}, ...]}}}}
//
// Each (model, temperature, question) becomes one UnitResult, in file order (models, then
// temperatures, then questions, as the file lists them; UnitSpec.index counts from 0 in that order).
// novelty = embedding_dissimilarity_score, coherence = coherence_score, llm_novelty =
// llm_dissimilarity_score when present; processing_time is dropped (it is run-dependent).
//
// Ids, chosen to be stable across files so two imports of the same question line up:
//   question_id = "q-" + the first 8 hex digits of HexId(StableHash(question text));
//   unit id     = HexId(StableHasher().Add("aidanbench").Add(model).Add(temperature).Add(question)).
//
// The reference file records no stop reason; it is inferred from the last answer (see
// InferAidanStopReason). Plain functions, no state: safe from any thread.
#ifndef NOVELTYGRID_COORDINATOR_BENCHMARKS_AIDANBENCH_AIDAN_IMPORT_H_
#define NOVELTYGRID_COORDINATOR_BENCHMARKS_AIDANBENCH_AIDAN_IMPORT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/config.h"
#include "common/json_util.h"
#include "common/records.h"

namespace noveltygrid {

struct AidanImport {
  std::vector<std::string> models;   // file order
  std::vector<double> temperatures;  // order of first appearance
  std::vector<UnitResult> units;     // file order, `valid` marked with the preset
};

// Reads and converts a reference-layout file. A file that is not in the layout gives
// InvalidArgument naming the file and the JSON path of the problem, e.g.
//   not_cot.json: models["gpt-4-turbo"]["0.7"]["Why did Rome fall?"][3].coherence_score: expected a
//   number, got string
absl::StatusOr<AidanImport> ImportAidanReferenceFile(const std::string& path, const AidanPreset& preset);

// The same, from parsed JSON; `source` names the input in messages.
absl::StatusOr<AidanImport> ImportAidanReferenceJson(const Json& root, const std::string& source,
                                                     const AidanPreset& preset);

// "q-" + 8 hex digits of the question's stable hash.
std::string AidanQuestionId(const std::string& question);

// Why a loop with these answers ended, for results that did not record it: "error" when the last
// answer carries an error, "incoherent" / "repetitive" when the preset's stop rule fires on it,
// "iteration_cap" when `max_iterations` answers are stored, and "" when the loop looks unfinished
// (e.g. a truncated file).
std::string InferAidanStopReason(const AidanPreset& preset, const std::vector<StepRecord>& answers, int max_iterations);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_BENCHMARKS_AIDANBENCH_AIDAN_IMPORT_H_
