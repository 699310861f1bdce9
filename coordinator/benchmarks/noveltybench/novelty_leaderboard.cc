#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/json_util.h"
#include "coordinator/benchmarks/noveltybench/novelty_sweep_results.h"
#include "coordinator/benchmarks/repeat_interval.h"
#include "coordinator/report/text_table.h"

namespace noveltygrid {

namespace {

std::string UtilityDistinct(double utility, double distinct) {
  return absl::StrFormat("%.2f / %.2f", utility, distinct);
}

// "utility / distinct" of a headline value, or with repeats each as mean +- the 95% half-width.
std::pair<std::string, std::string> UtilityAndDistinct(double utility, double distinct,
                                                       const std::vector<NoveltyWeightedValue>& by_repeat) {
  if (by_repeat.size() < 2) return {absl::StrFormat("%.2f", utility), absl::StrFormat("%.2f", distinct)};
  return {FormatInterval(IntervalOf(PerRepeatUtility(by_repeat)), 2),
          FormatInterval(IntervalOf(PerRepeatDistinct(by_repeat)), 2)};
}

// A cell's headline numbers: the leaderboard value where there is one, else the first mode's means.
std::string Headline(const NoveltySweepCell& cell) {
  if (cell.by_repeat.size() > 1) {
    auto [utility, distinct] = UtilityAndDistinct(0, 0, cell.by_repeat);
    return absl::StrCat(utility, " / ", distinct);
  }
  if (cell.leaderboard_value.has_value()) {
    return UtilityDistinct(cell.leaderboard_value->utility, cell.leaderboard_value->distinct);
  }
  return UtilityDistinct(cell.means.mean_utility, cell.means.mean_distinct);
}

std::string NoveltyHeader(const NoveltySnapshot& snapshot) {
  const NoveltySettings& s = snapshot.settings;
  std::string out = absl::StrCat("partitioner: ", s.partitioner(), " (");
  if (s.partitioner() == kPartitionerLlmGroups) {
    absl::StrAppend(&out, "one call per prompt");  // no threshold: the judge names the classes
  } else {
    absl::StrAppend(&out, "threshold ", s.threshold());
  }
  if (!s.partition_model().empty()) absl::StrAppend(&out, ", ", s.partition_model());
  absl::StrAppend(&out, "); quality: ", s.quality(), " (", s.quality_model(), "); patience ", s.patience(), "; k ",
                  s.k(), "\n");
  absl::StrAppend(&out, "mode: ", snapshot.modes.front(), "; datasets: ", absl::StrJoin(snapshot.datasets, ", "));
  const bool weighted = std::any_of(snapshot.leaderboard.begin(), snapshot.leaderboard.end(),
                                    [](const NoveltyBest& b) { return b.weighted; });
  if (weighted) absl::StrAppend(&out, " (utility / distinct: the curated+wildchat leaderboard value)");
  return out + "\n";
}

// Tables under the leaderboard, at each model's best temperature: every mode, every prompt category.
std::string ModesAtBest(const NoveltySnapshot& snapshot) {
  std::vector<std::vector<std::string>> table;
  std::vector<std::string> header = {"model", "best temp"};
  for (const std::string& mode : snapshot.modes) header.push_back(mode);
  table.push_back(std::move(header));
  for (const NoveltyBest& best : snapshot.leaderboard) {
    const NoveltySweepCell* cell = FindCell(snapshot.cells, best.model, best.temperature);
    std::vector<std::string> row = {best.model, FormatTemperature(best.temperature)};
    for (const std::string& mode : snapshot.modes) {
      auto it = std::find_if(cell->by_mode.begin(), cell->by_mode.end(),
                             [&](const NoveltyGroupMeans& g) { return g.name == mode; });
      row.push_back(it == cell->by_mode.end() ? "-" : UtilityDistinct(it->means.mean_utility, it->means.mean_distinct));
    }
    table.push_back(std::move(row));
  }
  return absl::StrCat("\nby sampling mode (utility / distinct, every dataset):\n", RenderTable(table));
}

std::string CategoriesAtBest(const NoveltySnapshot& snapshot) {
  std::vector<std::vector<std::string>> table = {{"model", "best temp", "category", "utility", "distinct", "prompts"}};
  for (const NoveltyBest& best : snapshot.leaderboard) {
    const NoveltySweepCell* cell = FindCell(snapshot.cells, best.model, best.temperature);
    for (const NoveltyGroupMeans& g : cell->by_category) {
      table.push_back({best.model, FormatTemperature(best.temperature), g.name,
                       absl::StrFormat("%.2f", g.means.mean_utility), absl::StrFormat("%.2f", g.means.mean_distinct),
                       absl::StrCat(g.means.prompts)});
    }
  }
  return absl::StrCat("\nby category (mode ", snapshot.modes.front(), ", every dataset):\n", RenderTable(table));
}

}  // namespace

std::string FormatNoveltySweepLeaderboard(const NoveltySnapshot& snapshot, bool simulated) {
  std::string out = LeaderboardTitle(kNoveltySweepLeaderboardTitle, simulated);
  if (snapshot.leaderboard.empty()) return out + "\n(no results yet)\n";
  absl::StrAppend(&out, NoveltyHeader(snapshot), "\n");

  std::vector<std::vector<std::string>> table;
  table.push_back(LeaderboardHeader({"model", "best temp", "utility", "distinct", "prompts"}, snapshot.temperatures));
  bool repeats = false;
  for (const NoveltyBest& best : snapshot.leaderboard) {
    const NoveltySweepCell* best_cell = FindCell(snapshot.cells, best.model, best.temperature);
    auto [utility, distinct] = UtilityAndDistinct(best.utility, best.distinct, best.by_repeat);
    repeats |= best.by_repeat.size() > 1;
    std::vector<std::string> row = {best.model, FormatTemperature(best.temperature), utility, distinct,
                                    absl::StrCat(best_cell->means.prompts)};
    AppendTemperatureColumns(snapshot.cells, best.model, snapshot.temperatures, Headline, row);
    table.push_back(std::move(row));
  }
  absl::StrAppend(&out, RenderTable(table));
  if (repeats) absl::StrAppend(&out, "\n", kRepeatLeaderboardNote, "\n");
  if (snapshot.modes.size() > 1) absl::StrAppend(&out, ModesAtBest(snapshot));
  if (!snapshot.categories.empty()) absl::StrAppend(&out, CategoriesAtBest(snapshot));
  return out;
}

}  // namespace noveltygrid
