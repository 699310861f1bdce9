#include "coordinator/benchmarks/noveltybench/noveltybench_results.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <system_error>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/records.h"
#include "common/status_macros.h"
#include "coordinator/report/results_writer.h"
#include "coordinator/report/text_table.h"

namespace noveltygrid {
namespace {

Json QualityJson(const std::vector<std::optional<int>>& quality) {
  Json out = Json::array();
  for (const std::optional<int>& q : quality) out.push_back(q.has_value() ? Json(*q) : Json(nullptr));
  return out;
}

std::vector<std::string> Models(const std::vector<NoveltyCell>& cells) {
  std::vector<std::string> models;
  for (const NoveltyCell& c : cells) {
    if (models.empty() || models.back() != c.model) models.push_back(c.model);
  }
  return models;
}

// A simulated partitioner model makes every model's numbers simulated.
std::vector<std::string> SimulatedModels(const std::vector<NoveltyCell>& cells, const NoveltyScoring& scoring) {
  std::vector<std::string> helpers;
  if (!scoring.partition_model.empty()) helpers.push_back(scoring.partition_model);
  return SimulatedModelIds(Models(cells), helpers);
}

// Per model: the temperature with the highest mean utility (ties: the lower temperature).
std::vector<const NoveltyCell*> BestPerModel(const std::vector<NoveltyCell>& cells) {
  std::vector<const NoveltyCell*> best;
  for (const NoveltyCell& c : cells) {
    if (!best.empty() && best.back()->model == c.model) {
      if (c.means.mean_utility > best.back()->means.mean_utility) best.back() = &c;
    } else {
      best.push_back(&c);
    }
  }
  std::stable_sort(best.begin(), best.end(), [](const NoveltyCell* a, const NoveltyCell* b) {
    return a->means.mean_utility > b->means.mean_utility;
  });
  return best;
}

std::string Figures(const noveltybench::ScoreMeans& means) {
  return absl::StrFormat("%.2f / %.2f", means.mean_utility, means.mean_distinct);
}

absl::Status AtRow(const noveltybench::NoveltyRow& row, const absl::Status& status) {
  return absl::Status(status.code(), absl::StrCat(row.where, ": ", status.message()));
}

NoveltyScoring Scoring(NoveltyScoring scoring, const std::vector<noveltybench::NoveltyRow>& rows,
                       const NoveltySourceOptions& options) {
  scoring.patience = options.patience;
  scoring.temperature_assumed =
      !options.temperature.has_value() &&
      std::any_of(rows.begin(), rows.end(), [](const auto& r) { return !r.temperature.has_value(); });
  return scoring;
}

double SampleTemperature(const noveltybench::NoveltyRow& row, const NoveltySourceOptions& options) {
  return row.temperature.value_or(options.temperature.value_or(kNoveltyReferenceTemperature));
}

}  // namespace

absl::StatusOr<NoveltyResults> ScoreRecordedRows(std::vector<noveltybench::NoveltyRow> rows,
                                                 const NoveltySourceOptions& options) {
  NoveltyResults results;
  results.scoring = Scoring(NoveltyScoring{}, rows, options);
  for (noveltybench::NoveltyRow& row : rows) {
    absl::StatusOr<noveltybench::RowScore> score =
        noveltybench::ScorePartition(row.partition, row.quality, options.patience);
    if (!score.ok()) return AtRow(row, score.status());
    const double temperature = SampleTemperature(row, options);
    results.samples.push_back(NoveltySample{std::move(row), temperature, *std::move(score), std::nullopt, {}});
  }
  return results;
}

absl::StatusOr<Repartitioned> RepartitionRows(std::vector<noveltybench::NoveltyRow> rows,
                                              const noveltybench::Equivalence& equivalence, NoveltyScoring scoring,
                                              const NoveltySourceOptions& options) {
  std::vector<std::vector<int>> partitions;
  partitions.reserve(rows.size());
  for (const noveltybench::NoveltyRow& row : rows) {
    partitions.push_back(noveltybench::GreedyPartition(row.prompt, row.generations, equivalence));
  }
  return RepartitionRows(std::move(rows), std::move(partitions), std::move(scoring), options);
}

absl::StatusOr<Repartitioned> RepartitionRows(std::vector<noveltybench::NoveltyRow> rows,
                                              std::vector<std::vector<int>> partitions, NoveltyScoring scoring,
                                              const NoveltySourceOptions& options) {
  if (partitions.size() != rows.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat(partitions.size(), " new partitions for ", rows.size(), " rows; expected one per row"));
  }
  Repartitioned out;
  out.results.scoring = Scoring(std::move(scoring), rows, options);
  noveltybench::PairAgreement agreement;
  double distinct_recorded = 0;
  double distinct_new = 0;
  const int row_count = static_cast<int>(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    noveltybench::NoveltyRow& row = rows[i];
    std::vector<int> fresh = std::move(partitions[i]);
    if (absl::Status valid = noveltybench::ValidatePartition(fresh); !valid.ok()) return AtRow(row, valid);
    if (absl::Status added = agreement.Add(row.partition, fresh); !added.ok()) return AtRow(row, added);
    absl::StatusOr<noveltybench::QualityForPartition> quality =
        noveltybench::QualityForNewPartition(row.partition, row.quality, fresh);
    if (!quality.ok()) return AtRow(row, quality.status());
    absl::StatusOr<noveltybench::RowScore> score =
        noveltybench::ScorePartition(fresh, quality->quality, options.patience);
    if (!score.ok()) return AtRow(row, score.status());
    distinct_recorded += noveltybench::DistinctCount(row.partition);
    distinct_new += score->distinct;

    NoveltySample sample;
    sample.temperature = SampleTemperature(row, options);
    sample.recorded_partition = std::move(row.partition);
    sample.quality_imputed = std::move(quality->imputed);
    row.partition = std::move(fresh);
    // Only the openers' quality is scored; a borrowed quality shows where it was used.
    row.quality = std::move(quality->quality);
    sample.row = std::move(row);
    sample.score = *std::move(score);
    out.results.samples.push_back(std::move(sample));
  }
  out.agreement = AgreementJson(agreement, distinct_recorded / std::max(row_count, 1),
                                distinct_new / std::max(row_count, 1), out.results.scoring, row_count);
  return out;
}

std::vector<NoveltyCell> NoveltyCells(const NoveltyResults& results) {
  std::map<std::pair<std::string, double>, std::vector<const NoveltySample*>> grouped;
  for (const NoveltySample& s : results.samples) grouped[{s.row.model, s.temperature}].push_back(&s);
  std::vector<NoveltyCell> cells;
  for (const auto& [key, samples] : grouped) {
    NoveltyCell cell{key.first, key.second, {}, 0};
    std::vector<const noveltybench::RowScore*> scores;
    for (const NoveltySample* s : samples) {
      scores.push_back(&s->score);
      cell.quality_imputed += static_cast<int>(s->quality_imputed.size());
    }
    cell.means = noveltybench::MeanScores(scores);
    cells.push_back(std::move(cell));
  }
  return cells;
}

std::string NoveltySamplesJsonl(const NoveltyResults& results) {
  std::string out;
  for (const NoveltySample& s : results.samples) {
    Json line{{"benchmark", kNoveltyBench},
              {"model", s.row.model},
              {"temperature", s.temperature},
              {"prompt_id", s.row.prompt_id},
              {"prompt", s.row.prompt},
              {"generations", s.row.generations},
              {"partition", s.row.partition},
              {"quality", QualityJson(s.row.quality)},
              {"generation_scores", s.score.generation_scores},
              {"distinct", s.score.distinct},
              {"utility", s.score.utility}};
    if (s.recorded_partition.has_value()) line["partition_recorded"] = *s.recorded_partition;
    if (!s.quality_imputed.empty()) line["quality_imputed"] = s.quality_imputed;
    absl::StrAppend(&out, DumpJson(line), "\n");
  }
  return out;
}

Json NoveltySummaryJson(const NoveltyResults& results) {
  const std::vector<NoveltyCell> cells = NoveltyCells(results);
  const NoveltyScoring& scoring = results.scoring;
  Json summary = Json::object();
  if (const std::vector<std::string> simulated = SimulatedModels(cells, scoring); !simulated.empty()) {
    summary["simulated"] = true;
    summary["notice"] = kSimulatedNotice;
    summary["simulated_models"] = simulated;
  }
  Json novelty = Json::object();
  for (const NoveltyCell& c : cells) {
    Json j{{"mean_distinct", c.means.mean_distinct},
           {"mean_utility", c.means.mean_utility},
           {"prompts", c.means.prompts},
           {"patience", scoring.patience},
           {"partitioner", scoring.partitioner}};
    if (scoring.threshold.has_value()) j["threshold"] = *scoring.threshold;
    if (!scoring.partition_model.empty()) j["partition_model"] = scoring.partition_model;
    j["quality"] = scoring.quality;
    j["temperature_assumed"] = scoring.temperature_assumed;
    if (scoring.partitioner != "recorded") j["quality_imputed"] = c.quality_imputed;
    novelty[c.model][FormatTemperature(c.temperature)] = std::move(j);
  }
  summary["noveltybench"] = std::move(novelty);

  Json board = Json::array();
  for (const NoveltyCell* c : BestPerModel(cells)) {
    board.push_back(Json{{"model", c->model},
                         {"best_temperature", c->temperature},
                         {"mean_utility", c->means.mean_utility},
                         {"mean_distinct", c->means.mean_distinct}});
  }
  summary["leaderboard"] = Json{{"noveltybench", std::move(board)}};
  summary["calls"] = Json::object();
  summary["run"] = results.run.is_object() ? results.run : Json::object();
  return summary;
}

std::string FormatNoveltyLeaderboard(const NoveltyResults& results) {
  const std::vector<NoveltyCell> cells = NoveltyCells(results);
  const NoveltyScoring& scoring = results.scoring;
  std::string out = absl::StrCat(kNoveltyLeaderboardTitle, "\n");
  if (!SimulatedModels(cells, scoring).empty()) absl::StrAppend(&out, kSimulatedLeaderboardLine, "\n");
  absl::StrAppend(&out, "partitioner: ", scoring.partitioner);
  if (scoring.threshold.has_value()) absl::StrAppend(&out, " (threshold ", *scoring.threshold, ")");
  if (!scoring.partition_model.empty()) absl::StrAppend(&out, "; partition model: ", scoring.partition_model);
  absl::StrAppend(&out, "; quality: ", scoring.quality, "; patience ", scoring.patience, "\n");
  if (scoring.temperature_assumed) {
    absl::StrAppend(&out, "temperature assumed (not recorded in the source)\n");
  }
  absl::StrAppend(&out, "\n");
  if (cells.empty()) return out + "(no results yet)\n";

  std::vector<double> temperatures;
  for (const NoveltyCell& c : cells) temperatures.push_back(c.temperature);
  std::sort(temperatures.begin(), temperatures.end());
  temperatures.erase(std::unique(temperatures.begin(), temperatures.end()), temperatures.end());

  // Rows of cells: model, best temp, utility, distinct, prompts, then "utility / distinct" per
  // temperature. Column 0 left-aligned, the rest right-aligned.
  std::vector<std::vector<std::string>> table;
  std::vector<std::string> header = {"model", "best temp", "utility", "distinct", "prompts"};
  for (double t : temperatures) header.push_back(absl::StrCat("T=", FormatTemperature(t)));
  table.push_back(std::move(header));
  for (const NoveltyCell* best : BestPerModel(cells)) {
    std::vector<std::string> row = {
        best->model, FormatTemperature(best->temperature), absl::StrFormat("%.2f", best->means.mean_utility),
        absl::StrFormat("%.2f", best->means.mean_distinct), absl::StrCat(best->means.prompts)};
    for (double t : temperatures) {
      auto it = std::find_if(cells.begin(), cells.end(),
                             [&](const NoveltyCell& c) { return c.model == best->model && c.temperature == t; });
      row.push_back(it == cells.end() ? "-" : Figures(it->means));
    }
    table.push_back(std::move(row));
  }
  std::vector<size_t> widths(table[0].size(), 0);
  for (const auto& row : table) {
    for (size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  for (const auto& row : table) {
    std::string line = absl::StrFormat("%-*s", static_cast<int>(widths[0]), row[0]);
    for (size_t c = 1; c < row.size(); ++c) {
      absl::StrAppend(&line, absl::StrFormat("  %*s", static_cast<int>(widths[c]), row[c]));
    }
    absl::StrAppend(&out, line, "\n");
  }
  absl::StrAppend(&out, "(T= columns: mean utility / mean distinct)\n");
  return out;
}

absl::Status WriteNoveltyResultsFolder(const std::string& dir, const NoveltyResults& results) {
  const std::filesystem::path root(dir);
  std::error_code ec;
  if (std::filesystem::exists(root / kAnswersFileName, ec)) {
    return absl::FailedPreconditionError(absl::StrCat(dir, " holds AidanBench results (", kAnswersFileName,
                                                      "); write NoveltyBench results to another folder"));
  }
  std::filesystem::create_directories(root, ec);
  if (ec) return absl::InternalError(absl::StrCat("cannot create results folder ", dir, ": ", ec.message()));
  RETURN_IF_ERROR(WriteFileAtomically((root / kSamplesFileName).string(), NoveltySamplesJsonl(results)));
  RETURN_IF_ERROR(WriteFileAtomically((root / kSummaryFileName).string(), DumpJsonPretty(NoveltySummaryJson(results))));
  return WriteFileAtomically((root / kLeaderboardFileName).string(), FormatNoveltyLeaderboard(results));
}

Json AgreementJson(const noveltybench::PairAgreement& agreement, double mean_distinct_recorded,
                   double mean_distinct_new, const NoveltyScoring& scoring, int rows) {
  Json j{{"pair_precision", agreement.precision()},
         {"pair_recall", agreement.recall()},
         {"pair_f1", agreement.f1()},
         {"mean_distinct_recorded", mean_distinct_recorded},
         {"mean_distinct_new", mean_distinct_new},
         {"partitioner", scoring.partitioner}};
  j["threshold"] = scoring.threshold.has_value() ? Json(*scoring.threshold) : Json(nullptr);
  if (!scoring.partition_model.empty()) j["partition_model"] = scoring.partition_model;
  j["rows"] = rows;
  j["pairs"] = Json{{"total", agreement.pairs()},
                    {"both_same", agreement.both_same()},
                    {"new_only_same", agreement.new_only_same()},
                    {"recorded_only_same", agreement.recorded_only_same()}};
  return j;
}

absl::Status WriteAgreementFile(const std::string& dir, const Json& agreement) {
  return WriteFileAtomically((std::filesystem::path(dir) / kAgreementFileName).string(), DumpJsonPretty(agreement));
}

}  // namespace noveltygrid
