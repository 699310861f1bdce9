// One recorded NoveltyBench row -- (model, prompt) with its k generations, their partition and
// quality -- and the reader of the JSONL files that hold them. Two layouts are read:
//
//   the reference's scores.jsonl   {"id", "prompt", "model", "generations", "partition",
//                                   "generation_scores", ["partition_scores"], ...}
//   our samples.jsonl              {"benchmark": "noveltybench", "model", "temperature", "prompt_id",
//                                   "prompt", "generations", "partition", "quality", ["repeat"], ...}
//
// generation_scores are the reference's earned scores, already bucketed: the quality (1..10) at each
// class opener and 0 elsewhere, because the reference scores openers only. They become `quality`
// with nullopt where the generation was not scored; a non-zero score on a non-opener, a 0 (or a
// non-integer such as a raw reward) on an opener, and partition_scores that disagree with the openers
// are errors. samples.jsonl's "quality" is read as is (null = not scored). The recorded "distinct" and
// "utility" are ignored: they are recomputed.
//
// Errors are InvalidArgument (NotFound for a missing file) and start with FILE:LINE.
#ifndef NOVELTYGRID_COMMON_NOVELTYBENCH_ROWS_H_
#define NOVELTYGRID_COMMON_NOVELTYBENCH_ROWS_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "common/json_util.h"

namespace noveltygrid::noveltybench {

struct NoveltyRow {
  std::string prompt_id;
  std::string prompt;
  std::string model;
  std::optional<double> temperature;  // absent from the reference's scores.jsonl (it samples at 1.0)
  std::string mode;                   // a sweep's samples.jsonl: sampling mode and dataset (else empty)
  std::string dataset;
  int repeat = 0;  // a sweep's `repeats: N`: which pass (0 when the row does not say)
  std::vector<std::string> generations;
  std::vector<int> partition;               // canonical (ValidatePartition)
  std::vector<std::optional<int>> quality;  // 1..10 per generation; nullopt = not scored
  std::string where;                        // "FILE:LINE", for messages
};

// Parses one row; `where` prefixes every error.
absl::StatusOr<NoveltyRow> NoveltyRowFromJson(const Json& json, std::string_view where);

// Every non-blank line of `path`, in file order, except a sweep's failed units (lines with "error":
// they have no partition; counted in `failed_units` when given). An empty file and a prompt id
// repeated for the same model, temperature, mode, dataset and repeat are errors too.
absl::StatusOr<std::vector<NoveltyRow>> ReadNoveltyRows(const std::string& path, int* failed_units = nullptr);

}  // namespace noveltygrid::noveltybench

#endif  // NOVELTYGRID_COMMON_NOVELTYBENCH_ROWS_H_
