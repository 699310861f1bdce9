#include "coordinator/benchmarks/aidanbench/aidan_leaderboard.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/json_util.h"
#include "coordinator/report/text_table.h"

namespace noveltygrid {

namespace {

const AidanCell* FindCell(const AidanSnapshot& snapshot, const std::string& model, double temperature) {
  for (const AidanCell& cell : snapshot.cells) {
    if (cell.model == model && cell.temperature == temperature) return &cell;
  }
  return nullptr;
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
      row.push_back(
          cell == nullptr ? "-" : absl::StrFormat("%d / %.2f", cell->totals.valid_answers, cell->totals.novelty_sum));
    }
    table.push_back(std::move(row));
  }
  return out + RenderTable(table);
}

}  // namespace noveltygrid
