#include "coordinator/benchmarks/noveltybench/novelty_export.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <system_error>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/append_unique.h"
#include "common/noveltybench/partition.h"
#include "common/noveltybench/rows.h"
#include "common/noveltybench/scoring.h"
#include "common/status_macros.h"
#include "coordinator/benchmarks/noveltybench/novelty_sweep_results.h"
#include "coordinator/report/results_files.h"

namespace noveltygrid {

namespace {

namespace fs = std::filesystem;

// A folder name for `name` that stays inside OUT: control characters, '/' and '\' become '_', and a name
// that is empty or all dots ("." and "..") gets a leading '_'.
std::string FolderName(absl::string_view name) {
  std::string out;
  for (const char c : name) {
    const auto byte = static_cast<unsigned char>(c);
    out.push_back(byte < 0x20 || byte == 0x7f || c == '\\' || c == '/' ? '_' : c);
  }
  if (out.find_first_not_of('.') == std::string::npos) out.insert(0, "_");
  return out;
}

// A model's folder: one level per "/"-separated part, as the reference's provider/model paths.
std::string ModelFolder(const std::string& model) {
  std::vector<std::string> parts;
  for (absl::string_view part : absl::StrSplit(model, '/')) parts.push_back(FolderName(part));
  return absl::StrJoin(parts, "/");
}

// What tells two evaluation folders apart.
std::tuple<std::string, std::string, double, std::string> CellOf(const NoveltySample& s) {
  return {s.row.dataset, s.row.mode, s.temperature, s.row.model};
}

std::string DescribeCell(const NoveltySample& s) {
  std::vector<std::string> parts = {absl::StrCat("model ", DumpJson(Json(s.row.model)))};
  if (!s.row.dataset.empty()) parts.push_back(absl::StrCat("dataset ", DumpJson(Json(s.row.dataset))));
  if (!s.row.mode.empty()) parts.push_back(absl::StrCat("mode ", DumpJson(Json(s.row.mode))));
  parts.push_back(absl::StrCat("temperature ", FormatTemperature(s.temperature)));
  return absl::StrJoin(parts, ", ");
}

// The rows of `repeat`, with counts of what is left out for the notes.
struct ExportRows {
  std::vector<noveltybench::NoveltyRow> rows;
  int other_repeat_rows = 0;
  int last_repeat = 0;
  int failed_units = 0;
};

absl::StatusOr<ExportRows> ReadExportRows(const std::string& path, int repeat) {
  ExportRows out;
  ASSIGN_OR_RETURN(std::vector<noveltybench::NoveltyRow> all, noveltybench::ReadNoveltyRows(path, &out.failed_units));
  for (noveltybench::NoveltyRow& row : all) {
    out.last_repeat = std::max(out.last_repeat, row.repeat);
    if (row.repeat == repeat) {
      out.rows.push_back(std::move(row));
    } else {
      ++out.other_repeat_rows;
    }
  }
  if (out.rows.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat(path, ": no prompts of repeat ", repeat, " (the results hold repeats 0..", out.last_repeat, ")"));
  }
  return out;
}

std::vector<std::string> ExportNotes(const ExportRows& rows, int repeat, bool settings_recorded, double patience) {
  std::vector<std::string> notes;
  if (rows.other_repeat_rows > 0) {
    notes.push_back(absl::StrCat("the reference layout holds one pass: wrote repeat ", repeat, " and left out ",
                                 rows.other_repeat_rows, " prompts of the other repeats (0..", rows.last_repeat,
                                 "; --repeat N exports another)"));
  }
  if (rows.failed_units > 0) {
    notes.push_back(absl::StrCat("left out ", rows.failed_units, " failed units (they have no partition to score)"));
  }
  notes.push_back(
      "the reference layout holds no unit ids, raw rewards or partitioner and quality settings; folder names "
      "give the dataset, sampling mode and temperature where the results hold more than one");
  if (!settings_recorded) {
    notes.push_back(
        absl::StrCat("no NoveltyBench settings in ", kSummaryFileName, "; utility computed with patience ", patience));
  } else if (patience != noveltybench::kDefaultPatience) {
    notes.push_back(
        absl::StrCat("utility uses the results' patience ", patience, ": import with --patience ", patience));
  }
  return notes;
}

}  // namespace

absl::StatusOr<std::vector<NoveltyEvalFolder>> NoveltyEvalFolders(const NoveltyResults& results) {
  std::vector<std::string> datasets, modes;
  std::vector<double> temperatures;
  for (const NoveltySample& s : results.samples) {
    AppendUnique(datasets, s.row.dataset);
    AppendUnique(modes, s.row.mode);
    AppendUnique(temperatures, s.temperature);
  }
  std::vector<NoveltyEvalFolder> folders;
  std::map<std::string, size_t> by_path;
  for (const NoveltySample& s : results.samples) {
    std::vector<std::string> levels;
    if (datasets.size() > 1) levels.push_back(FolderName(s.row.dataset));
    if (modes.size() > 1) levels.push_back(FolderName(s.row.mode));
    if (temperatures.size() > 1) levels.push_back(absl::StrCat("T", FormatTemperature(s.temperature)));
    levels.push_back(ModelFolder(s.row.model));
    const std::string path = absl::StrJoin(levels, "/");
    auto [it, inserted] = by_path.try_emplace(path, folders.size());
    if (inserted) folders.push_back(NoveltyEvalFolder{path, {}});
    NoveltyEvalFolder& folder = folders[it->second];
    if (!inserted && CellOf(*folder.samples.front()) != CellOf(s)) {
      return absl::InvalidArgumentError(absl::StrCat(DescribeCell(*folder.samples.front()), " and ", DescribeCell(s),
                                                     " would share the export folder ", path));
    }
    folder.samples.push_back(&s);
  }
  return folders;
}

std::string ReferenceScoresJsonl(const NoveltyEvalFolder& folder) {
  std::string out;
  for (const NoveltySample* s : folder.samples) {
    const std::vector<int>& earned = s->score.generation_scores;
    const std::vector<bool> openers = noveltybench::ClassOpeners(s->row.partition);
    std::vector<int> partition_scores;  // classes are numbered in the order their openers come
    for (size_t i = 0; i < openers.size(); ++i) {
      if (openers[i]) partition_scores.push_back(earned[i]);
    }
    Json line{{"id", s->row.prompt_id}, {"prompt", s->row.prompt}, {"model", s->row.model}};
    if (s->temperature != kNoveltyReferenceTemperature) line["temperature"] = s->temperature;
    line["generations"] = s->row.generations;
    line["partition"] = s->row.partition;
    line["distinct"] = s->score.distinct;
    line["generation_scores"] = earned;
    line["partition_scores"] = std::move(partition_scores);
    line["utility"] = s->score.utility;
    absl::StrAppend(&out, DumpJson(line), "\n");
  }
  return out;
}

Json ReferenceSummaryJson(const NoveltyEvalFolder& folder) {
  std::vector<const noveltybench::RowScore*> scores;
  for (const NoveltySample* s : folder.samples) scores.push_back(&s->score);
  const noveltybench::ScoreMeans means = noveltybench::MeanScores(scores);
  return Json{{"mean_distinct", means.mean_distinct}, {"mean_utility", means.mean_utility}};
}

absl::StatusOr<ExportOutcome> ExportNoveltyReference(const ExportRequest& request) {
  ASSIGN_OR_RETURN(ExportRows rows, ReadExportRows(request.rows_path, request.repeat));
  const std::optional<NoveltySettings> settings =
      request.summary != nullptr ? NoveltySettingsFromSummary(*request.summary) : std::nullopt;
  NoveltySourceOptions options;
  if (settings.has_value()) options.patience = settings->patience();
  ExportOutcome outcome;
  outcome.notes = ExportNotes(rows, request.repeat, settings.has_value(), options.patience);

  ASSIGN_OR_RETURN(const NoveltyResults results, ScoreRecordedRows(std::move(rows.rows), options));
  ASSIGN_OR_RETURN(const std::vector<NoveltyEvalFolder> folders, NoveltyEvalFolders(results));
  for (const NoveltyEvalFolder& folder : folders) {
    const fs::path dir = fs::path(request.out_path) / folder.path;
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) {
      return absl::InternalError(absl::StrCat("cannot create the export folder ", dir.string(), ": ", ec.message()));
    }
    const std::string scores = (dir / kReferenceScoresFileName).string();
    const std::string summary = (dir / kSummaryFileName).string();
    RETURN_IF_ERROR(WriteFileAtomically(scores, ReferenceScoresJsonl(folder)));
    RETURN_IF_ERROR(WriteFileAtomically(summary, DumpJsonPretty(ReferenceSummaryJson(folder))));
    outcome.written.push_back(scores);
    outcome.written.push_back(summary);
  }
  return outcome;
}

}  // namespace noveltygrid
