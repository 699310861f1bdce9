// `noveltygrid import noveltybench FILE.jsonl` and `repartition FILE.jsonl --partitioner unigram`
// (cli/import_command.cc, cli/repartition_command.cc) on any file: the row reader
// (common/noveltybench/rows.h, the reference's scores.jsonl or our samples.jsonl), then the scoring and
// the results files each command makes of the rows.
//
// First byte: bit 0 repartitions with unigram instead of scoring the recorded partition, bit 1 gives
// rows without a temperature 0.7 instead of assuming 1.0, bits 2-3 the patience (0.8, 0.5, 1, 0.1).
// The rest is the file.
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "common/json_util.h"
#include "common/noveltybench/partition.h"
#include "common/noveltybench/partitioners.h"
#include "common/noveltybench/rows.h"
#include "common/noveltybench/scoring.h"
#include "coordinator/benchmarks/noveltybench/noveltybench_results.h"
#include "tests/fuzz/fuzz_util.h"

namespace noveltygrid {
namespace {

void CheckRow(const noveltybench::NoveltyRow& row) {
  const size_t k = row.generations.size();
  FUZZ_CHECK(row.partition.size() == k && row.quality.size() == k);
  FUZZ_CHECK(noveltybench::ValidatePartition(row.partition).ok());
  for (const std::optional<int>& q : row.quality) {
    if (q.has_value()) FUZZ_CHECK(*q >= noveltybench::kMinQuality && *q <= noveltybench::kMaxQuality);
  }
}

void CheckResults(const NoveltyResults& results, size_t rows) {
  FUZZ_CHECK(results.samples.size() == rows);
  for (const NoveltySample& sample : results.samples) {
    FUZZ_CHECK(noveltybench::ValidatePartition(sample.row.partition).ok());
    FUZZ_CHECK(sample.row.partition.size() == sample.row.generations.size());
  }
  // What the command writes: every file, made in memory and in the folder.
  const std::string samples = NoveltySamplesJsonl(results);
  (void)DumpJson(NoveltySummaryJson(results));
  (void)FormatNoveltyLeaderboard(results);
  const std::string dir = fuzz::ScratchDir() + "/import";
  fuzz::ResetDir(dir);
  const absl::Status written = WriteNoveltyResultsFolder(dir, results);
  FUZZ_CHECK(written.ok(), written.ToString());
  FUZZ_CHECK(fuzz::ReadFileOrEmpty(dir + "/samples.jsonl") == samples);
}

}  // namespace
}  // namespace noveltygrid

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace noveltygrid;
  const fuzz::Moded in = fuzz::TakeMode(data, size);
  const std::string file = fuzz::ScratchDir() + "/scores.jsonl";
  fuzz::WriteFileOrDie(file, in.rest);
  absl::StatusOr<std::vector<noveltybench::NoveltyRow>> rows = noveltybench::ReadNoveltyRows(file);
  if (!rows.ok()) {
    FUZZ_CHECK(absl::IsInvalidArgument(rows.status()), rows.status().ToString());
    return 0;
  }
  for (const noveltybench::NoveltyRow& row : *rows) CheckRow(row);
  const size_t count = rows->size();

  NoveltySourceOptions options;
  static constexpr double kPatience[] = {0.8, 0.5, 1.0, 0.1};
  options.patience = kPatience[(in.mode >> 2) & 3];
  if (in.mode & 2) options.temperature = 0.7;
  if (in.mode & 1) {
    absl::StatusOr<noveltybench::OfflinePartitioner> unigram =
        noveltybench::MakeOfflinePartitioner("unigram", std::nullopt);
    FUZZ_CHECK(unigram.ok());
    NoveltyScoring scoring;
    scoring.partitioner = unigram->name;
    scoring.threshold = unigram->threshold;
    absl::StatusOr<Repartitioned> repartitioned =
        RepartitionRows(*std::move(rows), *unigram->equivalence, std::move(scoring), options);
    if (!repartitioned.ok()) {
      FUZZ_CHECK(absl::IsInvalidArgument(repartitioned.status()), repartitioned.status().ToString());
      return 0;
    }
    FUZZ_CHECK(repartitioned->agreement.is_object());
    CheckResults(repartitioned->results, count);
    return 0;
  }
  absl::StatusOr<NoveltyResults> results = ScoreRecordedRows(*std::move(rows), options);
  if (!results.ok()) {
    FUZZ_CHECK(absl::IsInvalidArgument(results.status()), results.status().ToString());
    return 0;
  }
  CheckResults(*results, count);
  return 0;
}
