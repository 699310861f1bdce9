// Writes the NoveltyBench part of a results folder (../shared/CONTRACT.md) from scored samples:
//
//   samples.jsonl    one line per (model, temperature, prompt), in the order given:
//                    {"benchmark","model","temperature","prompt_id","prompt","generations","partition",
//                     "quality","generation_scores","distinct","utility",["partition_recorded"],
//                     ["quality_imputed"]}
//   summary.json     ["simulated","notice","simulated_models"], "noveltybench" {MODEL: {TEMP: {
//                    "mean_distinct","mean_utility","prompts","patience","partitioner",["threshold"],
//                    ["partition_model"],"quality","temperature_assumed",["quality_imputed"]}}}, "leaderboard"
//                    {"noveltybench": [best temperature per model]}, "calls", "run"
//   leaderboard.txt  FormatNoveltyLeaderboard
//   agreement.json   (repartition only) WriteAgreementFile
//
// "quality" holds 1..10 per generation, null where the generation was never scored (the reference
// scores class openers only); "quality_imputed" lists generations whose quality was borrowed from
// their recorded class's first member because they open a class only under a new partition.
// "distinct" counts classes. Every file is replaced atomically; the same input gives byte-identical
// files. Stateless functions, safe from any thread.
#ifndef NOVELTYGRID_COORDINATOR_BENCHMARKS_NOVELTYBENCH_NOVELTYBENCH_RESULTS_H_
#define NOVELTYGRID_COORDINATOR_BENCHMARKS_NOVELTYBENCH_NOVELTYBENCH_RESULTS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/json_util.h"
#include "common/noveltybench/agreement.h"
#include "common/noveltybench/partition.h"
#include "common/noveltybench/rows.h"
#include "common/noveltybench/scoring.h"
#include "coordinator/report/results_files.h"

namespace noveltygrid {

inline constexpr char kAgreementFileName[] = "agreement.json";
// The reference samples at 1.0 and its scores.jsonl records no temperature: rows without one are read
// at this unless told otherwise.
inline constexpr double kNoveltyReferenceTemperature = 1.0;
inline constexpr char kNoveltyLeaderboardTitle[] = "NoveltyBench leaderboard (mean utility at best temperature)";

// One prompt's generations under the partition they were scored with.
struct NoveltySample {
  noveltybench::NoveltyRow row;  // row.partition: the scored one; row.quality: as scored
  double temperature = 0;
  noveltybench::RowScore score;
  std::optional<std::vector<int>> recorded_partition;  // when re-partitioned
  std::vector<int> quality_imputed;
};

// How every sample was scored (one import or repartition applies one setting to all).
struct NoveltyScoring {
  double patience = noveltybench::kDefaultPatience;
  std::string partitioner = "recorded";  // "recorded": the source's partition; else the partitioner's name
  std::optional<double> threshold;       // the partitioner's, when it has one
  // The partitioner's model id (classifier, embedder or judge); empty when it has none (recorded,
  // unigram). A simulated one makes every model's numbers simulated (SimulatedModelIds).
  std::string partition_model;
  std::string quality = "recorded";  // where quality came from
  bool temperature_assumed = false;  // the source did not record the temperature
};

struct NoveltyResults {
  std::vector<NoveltySample> samples;
  NoveltyScoring scoring;
  Json run = Json::object();  // "run" in summary.json: what produced the folder
};

// One (model, temperature) cell: the reference's summary.
struct NoveltyCell {
  std::string model;
  double temperature = 0;
  noveltybench::ScoreMeans means;
  int quality_imputed = 0;  // generations over the cell's samples
};

// How rows that come from a file are turned into samples.
struct NoveltySourceOptions {
  double patience = noveltybench::kDefaultPatience;
  // The temperature of rows that do not record one; nullopt: 1.0 (the reference samples at 1.0), and
  // the results say the temperature was assumed.
  std::optional<double> temperature;
};

// `import noveltybench`: every row scored under its recorded partition and quality. Errors name the
// row's FILE:LINE.
absl::StatusOr<NoveltyResults> ScoreRecordedRows(std::vector<noveltybench::NoveltyRow> rows,
                                                 const NoveltySourceOptions& options);

// `repartition`: every row scored under its new partition with the recorded quality (see
// QualityForNewPartition), and the agreement with the recorded partitions (AgreementJson). `scoring`
// names the partitioner; its patience is taken from `options`.
struct Repartitioned {
  NoveltyResults results;
  Json agreement;
};
// The new partitions computed in process: GreedyPartition of each row with `equivalence`.
absl::StatusOr<Repartitioned> RepartitionRows(std::vector<noveltybench::NoveltyRow> rows,
                                              const noveltybench::Equivalence& equivalence, NoveltyScoring scoring,
                                              const NoveltySourceOptions& options);
// The new partitions computed elsewhere (a model-backed partitioner): `partitions[i]` is row i's.
// InvalidArgument when the counts differ; a partition that does not fit its row is an error naming
// the row's FILE:LINE.
absl::StatusOr<Repartitioned> RepartitionRows(std::vector<noveltybench::NoveltyRow> rows,
                                              std::vector<std::vector<int>> partitions, NoveltyScoring scoring,
                                              const NoveltySourceOptions& options);

// Cells sorted by model, then temperature.
std::vector<NoveltyCell> NoveltyCells(const NoveltyResults& results);

std::string NoveltySamplesJsonl(const NoveltyResults& results);
Json NoveltySummaryJson(const NoveltyResults& results);
std::string FormatNoveltyLeaderboard(const NoveltyResults& results);

// Creates `dir` if needed and writes samples.jsonl, summary.json and leaderboard.txt. Refuses
// (FailedPrecondition) a folder holding AidanBench results, whose summary.json this would replace.
absl::Status WriteNoveltyResultsFolder(const std::string& dir, const NoveltyResults& results);

// agreement.json: {"pair_precision","pair_recall","pair_f1","mean_distinct_recorded",
// "mean_distinct_new","partitioner","threshold",["partition_model"],"rows","pairs":{"total",
// "both_same","new_only_same","recorded_only_same"}}. Means are over all rows of the file.
Json AgreementJson(const noveltybench::PairAgreement& agreement, double mean_distinct_recorded,
                   double mean_distinct_new, const NoveltyScoring& scoring, int rows);
absl::Status WriteAgreementFile(const std::string& dir, const Json& agreement);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_BENCHMARKS_NOVELTYBENCH_NOVELTYBENCH_RESULTS_H_
