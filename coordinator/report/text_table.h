// Plain-text tables for leaderboard.txt: every benchmark's leaderboard is rendered with these, so
// they all look alike.
#ifndef NOVELTYGRID_COORDINATOR_REPORT_TEXT_TABLE_H_
#define NOVELTYGRID_COORDINATOR_REPORT_TEXT_TABLE_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace noveltygrid {

// The line under a leaderboard's title when its numbers come from the simulated models.
inline constexpr char kSimulatedLeaderboardLine[] =
    "SIMULATED MODELS -- numbers measure the built-in simulator, not a real LLM";

// Rows of cells, the first row the header (underlined with dashes). Column 0 left-aligned, the rest
// right-aligned, two spaces between columns; trailing spaces trimmed.
std::string RenderTable(const std::vector<std::vector<std::string>>& table);

// The first line(s) of a leaderboard: `title`, then kSimulatedLeaderboardLine when `simulated`.
std::string LeaderboardTitle(absl::string_view title, bool simulated);

// A leaderboard table's header: `columns`, then "T=<temperature>" per temperature.
std::vector<std::string> LeaderboardHeader(std::vector<std::string> columns, const std::vector<double>& temperatures);

// The cell of `model` at `temperature` among a snapshot's `cells` (each with a model and a
// temperature), nullptr where there is none.
template <typename Cell>
const Cell* FindCell(const std::vector<Cell>& cells, const std::string& model, double temperature) {
  for (const Cell& cell : cells) {
    if (cell.model == model && cell.temperature == temperature) return &cell;
  }
  return nullptr;
}

// Appends to `row`, per temperature, `format(cell)` of `model`'s cell at it (FindCell), "-" where
// there is none.
template <typename Cell, typename Format>
void AppendTemperatureColumns(const std::vector<Cell>& cells, const std::string& model,
                              const std::vector<double>& temperatures, Format format, std::vector<std::string>& row) {
  for (double t : temperatures) {
    const Cell* cell = FindCell(cells, model, t);
    row.push_back(cell == nullptr ? "-" : format(*cell));
  }
}

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_REPORT_TEXT_TABLE_H_
