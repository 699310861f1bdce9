#include "coordinator/report/correlate/external_leaderboard.h"

#include <cmath>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace noveltygrid {
namespace {

// A score field as a finite number, surrounding spaces allowed; nullopt otherwise.
std::optional<double> ScoreOf(absl::string_view field) {
  double value = 0;
  if (!absl::SimpleAtod(absl::StripAsciiWhitespace(field), &value) || !std::isfinite(value)) return std::nullopt;
  return value;
}

std::string HeaderList(const CsvTable& table) {
  return absl::StrCat("the header has: ", absl::StrJoin(table.header, ", "));
}

absl::StatusOr<int> NamedColumn(const CsvTable& table, const std::string& name, const char* what) {
  const int index = table.ColumnIndex(name);
  if (index < 0)
    return absl::InvalidArgumentError(absl::StrCat("no ", what, " column '", name, "'; ", HeaderList(table)));
  return index;
}

absl::StatusOr<int> ModelColumn(const CsvTable& table, const std::string& name) {
  if (!name.empty()) return NamedColumn(table, name, "model");
  for (size_t i = 0; i < table.header.size(); ++i) {
    const std::string header = absl::AsciiStrToLower(absl::StripAsciiWhitespace(table.header[i]));
    if (header == "model" || header == "name") return static_cast<int>(i);
  }
  return absl::InvalidArgumentError(
      absl::StrCat("no column named model or name (pick one with --model-column); ", HeaderList(table)));
}

bool IsNumericColumn(const CsvTable& table, size_t column) {
  size_t numbers = 0;
  for (const CsvRow& row : table.rows) numbers += ScoreOf(row.fields[column]).has_value();
  return 2 * numbers > table.rows.size();
}

absl::StatusOr<int> ScoreColumn(const CsvTable& table, const std::string& name, int model_column) {
  if (!name.empty()) return NamedColumn(table, name, "score");
  for (size_t i = 0; i < table.header.size(); ++i) {
    if (static_cast<int>(i) == model_column) continue;
    if (absl::StartsWithIgnoreCase(absl::StripAsciiWhitespace(table.header[i]), "rank")) continue;
    if (IsNumericColumn(table, i)) return static_cast<int>(i);
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "no numeric score column (more than half of the rows a number, name not starting with \"rank\"); pick one "
      "with --column; ",
      HeaderList(table)));
}

}  // namespace

absl::StatusOr<ExternalLeaderboard> LeaderboardFromCsv(const CsvTable& table, const LeaderboardColumns& columns) {
  absl::StatusOr<int> model = ModelColumn(table, columns.model);
  if (!model.ok()) return model.status();
  absl::StatusOr<int> score = ScoreColumn(table, columns.score, *model);
  if (!score.ok()) return score.status();
  if (*score == *model) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", table.header[*model], "' cannot be both the model and the score column"));
  }
  ExternalLeaderboard board;
  board.model_column = table.header[*model];
  board.score_column = table.header[*score];
  absl::flat_hash_map<std::string, int> line_of;  // model -> the line listing it
  for (const CsvRow& row : table.rows) {
    const std::string name(absl::StripAsciiWhitespace(row.fields[*model]));
    const std::optional<double> value = ScoreOf(row.fields[*score]);
    if (name.empty() || !value.has_value()) {
      board.skipped.push_back(SkippedLeaderboardRow{name, row.fields[*score], row.line});
      continue;
    }
    if (auto [it, added] = line_of.emplace(name, row.line); !added) {
      return absl::InvalidArgumentError(absl::StrCat("line ", row.line, ": model '", name,
                                                     "' is listed again (first on line ", it->second,
                                                     "); which score is meant?"));
    }
    board.scores.push_back(LeaderboardScore{name, *value, row.line});
  }
  return board;
}

absl::StatusOr<ExternalLeaderboard> ReadExternalLeaderboard(const std::string& path,
                                                            const LeaderboardColumns& columns) {
  return ReadCsvFileWith(path, [&](const CsvTable& table) { return LeaderboardFromCsv(table, columns); });
}

absl::StatusOr<ModelNameMap> ModelNameMapFromCsv(const CsvTable& table) {
  if (table.header.size() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("a model map has two columns (sweep_model,leaderboard_model), not ", table.header.size()));
  }
  ModelNameMap map;
  absl::flat_hash_map<std::string, const CsvRow*> row_of_target;  // leaderboard name -> the row mapping to it
  for (const CsvRow& row : table.rows) {
    const std::string ours(absl::StripAsciiWhitespace(row.fields[0]));
    const std::string theirs(absl::StripAsciiWhitespace(row.fields[1]));
    if (ours.empty() || theirs.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("line ", row.line, ": both names are needed"));
    }
    if (!map.emplace(ours, theirs).second) {
      return absl::InvalidArgumentError(absl::StrCat("line ", row.line, ": '", ours, "' is mapped twice"));
    }
    if (auto [it, added] = row_of_target.emplace(theirs, &row); !added) {
      return absl::InvalidArgumentError(absl::StrCat("line ", row.line, ": '", ours, "' and '",
                                                     absl::StripAsciiWhitespace(it->second->fields[0]), "' (line ",
                                                     it->second->line, ") both map to '", theirs, "'"));
    }
  }
  return map;
}

absl::StatusOr<ModelNameMap> ReadModelNameMap(const std::string& path) {
  return ReadCsvFileWith(path, ModelNameMapFromCsv);
}

}  // namespace noveltygrid
