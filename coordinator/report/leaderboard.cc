#include "coordinator/report/leaderboard.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
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

const NoveltySweepCell* FindCell(const NoveltySnapshot& snapshot, const std::string& model, double temperature) {
  for (const NoveltySweepCell& cell : snapshot.cells) {
    if (cell.model == model && cell.temperature == temperature) return &cell;
  }
  return nullptr;
}

std::string UtilityDistinct(double utility, double distinct) {
  return absl::StrFormat("%.2f / %.2f", utility, distinct);
}

// A cell's headline numbers: the leaderboard value where there is one, else the first mode's means.
std::string Headline(const NoveltySweepCell& cell) {
  if (cell.leaderboard_value.has_value()) {
    return UtilityDistinct(cell.leaderboard_value->utility, cell.leaderboard_value->distinct);
  }
  return UtilityDistinct(cell.means.mean_utility, cell.means.mean_distinct);
}

std::string NoveltyHeader(const NoveltySnapshot& snapshot) {
  const NoveltySettings& s = snapshot.settings;
  std::string out = absl::StrCat("partitioner: ", s.partitioner, " (threshold ", s.threshold);
  if (!s.partition_model.empty()) absl::StrAppend(&out, ", ", s.partition_model);
  absl::StrAppend(&out, "); quality: ", s.quality, " (", s.quality_model, "); patience ", s.patience, "; k ", s.k,
                  "\n");
  absl::StrAppend(&out, "mode: ", snapshot.modes.front(), "; datasets: ", absl::StrJoin(snapshot.datasets, ", "));
  const bool weighted = std::any_of(snapshot.leaderboard.begin(), snapshot.leaderboard.end(),
                                    [](const NoveltyBest& b) { return b.weighted; });
  if (weighted) absl::StrAppend(&out, " (utility / distinct: the curated+wildchat leaderboard value)");
  return out + "\n";
}

}  // namespace

std::string FormatNoveltySweepLeaderboard(const NoveltySnapshot& snapshot, bool simulated) {
  std::string out = absl::StrCat(kNoveltySweepLeaderboardTitle, "\n");
  if (simulated) absl::StrAppend(&out, kSimulatedLeaderboardLine, "\n");
  if (snapshot.leaderboard.empty()) return out + "\n(no results yet)\n";
  absl::StrAppend(&out, NoveltyHeader(snapshot), "\n");

  std::vector<std::vector<std::string>> table;
  std::vector<std::string> header = {"model", "best temp", "utility", "distinct", "prompts"};
  for (double t : snapshot.temperatures) header.push_back(absl::StrCat("T=", FormatTemperature(t)));
  table.push_back(std::move(header));
  for (const NoveltyBest& best : snapshot.leaderboard) {
    const NoveltySweepCell* best_cell = FindCell(snapshot, best.model, best.temperature);
    std::vector<std::string> row = {best.model, FormatTemperature(best.temperature),
                                    absl::StrFormat("%.2f", best.utility), absl::StrFormat("%.2f", best.distinct),
                                    absl::StrCat(best_cell->means.prompts)};
    for (double t : snapshot.temperatures) {
      const NoveltySweepCell* cell = FindCell(snapshot, best.model, t);
      row.push_back(cell == nullptr ? "-" : Headline(*cell));
    }
    table.push_back(std::move(row));
  }
  absl::StrAppend(&out, RenderTable(table));
  if (snapshot.modes.size() <= 1) return out;

  // Every mode at each model's best temperature.
  table.clear();
  header = {"model", "best temp"};
  for (const std::string& mode : snapshot.modes) header.push_back(mode);
  table.push_back(std::move(header));
  for (const NoveltyBest& best : snapshot.leaderboard) {
    const NoveltySweepCell* cell = FindCell(snapshot, best.model, best.temperature);
    std::vector<std::string> row = {best.model, FormatTemperature(best.temperature)};
    for (const std::string& mode : snapshot.modes) {
      auto it = std::find_if(cell->by_mode.begin(), cell->by_mode.end(),
                             [&](const NoveltyGroupMeans& g) { return g.name == mode; });
      row.push_back(it == cell->by_mode.end() ? "-" : UtilityDistinct(it->means.mean_utility, it->means.mean_distinct));
    }
    table.push_back(std::move(row));
  }
  return absl::StrCat(out, "\nby sampling mode (utility / distinct, every dataset):\n", RenderTable(table));
}

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
