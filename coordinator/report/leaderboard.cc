#include "coordinator/report/leaderboard.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/json_util.h"

namespace noveltygrid {

namespace {

const AidanCell* FindCell(const AidanSnapshot& snapshot, const std::string& model, double temperature) {
  for (const AidanCell& cell : snapshot.cells) {
    if (cell.model == model && cell.temperature == temperature) return &cell;
  }
  return nullptr;
}

// Column 0 left-aligned, the rest right-aligned, two spaces between columns.
std::string RenderTable(const std::vector<std::vector<std::string>>& table) {
  std::vector<size_t> widths;
  for (const auto& row : table) {
    widths.resize(std::max(widths.size(), row.size()), 0);
    for (size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  std::string out;
  for (size_t r = 0; r < table.size(); ++r) {
    std::string line;
    for (size_t c = 0; c < table[r].size(); ++c) {
      const std::string& text = table[r][c];
      const std::string pad(widths[c] - text.size(), ' ');
      absl::StrAppend(&line, c == 0 ? "" : "  ", c == 0 ? text + pad : pad + text);
    }
    line.erase(line.find_last_not_of(' ') + 1);
    absl::StrAppend(&out, line, "\n");
    if (r == 0) {
      size_t total = 0;
      for (size_t w : widths) total += w;
      absl::StrAppend(&out, std::string(total + 2 * (widths.size() - 1), '-'), "\n");
    }
  }
  return out;
}

}  // namespace

std::string FormatLeaderboard(const AidanSnapshot& snapshot, bool simulated) {
  std::string out = absl::StrCat(kLeaderboardTitle, "\n");
  if (simulated) absl::StrAppend(&out, kSimulatedLeaderboardLine, "\n");
  absl::StrAppend(&out, "preset: ", snapshot.preset.name, "\n\n");
  if (snapshot.leaderboard.empty()) return out + "(no results yet)\n";

  std::vector<std::vector<std::string>> table;
  std::vector<std::string> header = {"model", "best temp", "valid", "novelty"};
  for (double t : snapshot.temperatures) header.push_back(absl::StrCat("T=", FormatTemperature(t)));
  table.push_back(std::move(header));
  for (const AidanBest& best : snapshot.leaderboard) {
    std::vector<std::string> row = {best.model, FormatTemperature(best.temperature),
                                    absl::StrCat(best.totals.valid_answers),
                                    absl::StrFormat("%.2f", best.totals.novelty_sum)};
    for (double t : snapshot.temperatures) {
      const AidanCell* cell = FindCell(snapshot, best.model, t);
      row.push_back(cell == nullptr ? "-"
                                    : absl::StrFormat("%d / %.2f", cell->totals.valid_answers,
                                                      cell->totals.novelty_sum));
    }
    table.push_back(std::move(row));
  }
  return out + RenderTable(table);
}

}  // namespace noveltygrid
