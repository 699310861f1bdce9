// Writing NoveltyBench results in the reference implementation's layout, for `noveltygrid export`: one
// evaluation folder per model (and per dataset, sampling mode and temperature where the results hold
// more than one), as the reference's scripts write them, each holding
//
//   scores.jsonl  one line per prompt, in samples.jsonl's order:
//                 {"id","prompt","model",["temperature"],"generations","partition","distinct",
//                  "generation_scores","partition_scores","utility"}
//   summary.json  {"mean_distinct","mean_utility"}
//
// so that `import noveltybench FOLDER/scores.jsonl` gives the folder's numbers again.
//
// Folders: OUT/[DATASET/][MODE/][T<TEMP>/]MODEL/, a level present only when the exported rows hold
// more than one value of it (the reference keeps datasets and sampling modes in separate evaluation
// folders); a "/" in MODEL nests folders as the reference's provider/model paths do. The reference
// runs at 1.0 and records no temperature, which import then assumes: rows sampled at another
// temperature carry "temperature" so that import reads them back at it.
//
// distinct counts classes (as the reference's summary does; its rows' own field was classes - 1 until
// a later fix). generation_scores are the earned quality buckets (1..10 where a generation opens a
// class, 0 elsewhere), partition_scores each class's, and utility is recomputed with the results'
// patience (summary.json's, else 0.8). Not in the layout, and noted when it matters: other repeats,
// failed units (no partition), unit ids, raw rewards and the partitioner and quality settings.
// Stateless functions, safe from any thread.
#ifndef NOVELTYGRID_COORDINATOR_BENCHMARKS_NOVELTYBENCH_NOVELTY_EXPORT_H_
#define NOVELTYGRID_COORDINATOR_BENCHMARKS_NOVELTYBENCH_NOVELTY_EXPORT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/json_util.h"
#include "coordinator/benchmarks/noveltybench/noveltybench_results.h"
#include "coordinator/benchmarks/registry.h"

namespace noveltygrid {

inline constexpr char kReferenceScoresFileName[] = "scores.jsonl";

// One evaluation folder: its path under OUT and its samples, in order.
struct NoveltyEvalFolder {
  std::string path;
  std::vector<const NoveltySample*> samples;
};

// The folders of scored samples (pointing into `results`). InvalidArgument when two models would
// share a folder.
absl::StatusOr<std::vector<NoveltyEvalFolder>> NoveltyEvalFolders(const NoveltyResults& results);

// A folder's files.
std::string ReferenceScoresJsonl(const NoveltyEvalFolder& folder);
Json ReferenceSummaryJson(const NoveltyEvalFolder& folder);

// The registry's export_reference: DIR/samples.jsonl to folders under `request.out_path`.
absl::StatusOr<ExportOutcome> ExportNoveltyReference(const ExportRequest& request);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_BENCHMARKS_NOVELTYBENCH_NOVELTY_EXPORT_H_
