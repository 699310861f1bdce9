#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/json_util.h"
#include "coordinator/benchmarks/aidanbench/aidan_results.h"
#include "coordinator/benchmarks/repeat_interval.h"
#include "coordinator/report/text_table.h"

namespace noveltygrid {

namespace {

// "valid" and "novelty" of a cell: totals, or with repeats the mean +- the 95% half-width across them.
std::string ValidAndNovelty(const AidanTotals& totals, const std::vector<AidanTotals>& by_repeat, const char* separator,
                            std::vector<std::string>* columns = nullptr) {
  std::string valid = absl::StrCat(totals.valid_answers);
  std::string novelty = absl::StrFormat("%.2f", totals.novelty_sum);
  if (by_repeat.size() > 1) {
    valid = FormatInterval(IntervalOf(PerRepeatValidAnswers(by_repeat)), 1);
    novelty = FormatInterval(IntervalOf(PerRepeatNoveltySum(by_repeat)), 2);
  }
  if (columns != nullptr) {
    columns->push_back(valid);
    columns->push_back(novelty);
  }
  return absl::StrCat(valid, separator, novelty);
}

// Each model's totals per question domain at its best temperature (subdomains under theirs).
std::string DomainsAtBest(const AidanSnapshot& snapshot) {
  std::vector<std::vector<std::string>> table = {{"model", "best temp", "domain", "questions", "valid", "novelty"}};
  auto add = [&](const AidanBest& best, const std::string& group, const AidanTotals& t) {
    table.push_back({best.model, FormatTemperature(best.temperature), group, absl::StrCat(t.questions),
                     absl::StrCat(t.valid_answers), absl::StrFormat("%.2f", t.novelty_sum)});
  };
  for (const AidanBest& best : snapshot.leaderboard) {
    for (const auto& [name, domain] : FindCell(snapshot.cells, best.model, best.temperature)->by_domain) {
      add(best, name, domain.totals);
      for (const auto& [sub, totals] : domain.by_subdomain) add(best, absl::StrCat(name, " / ", sub), totals);
    }
  }
  return absl::StrCat("\nby domain (domain / subdomain):\n", RenderTable(table));
}

}  // namespace

std::string FormatLeaderboard(const AidanSnapshot& snapshot, bool simulated) {
  std::string out = LeaderboardTitle(kLeaderboardTitle, simulated);
  absl::StrAppend(&out, "preset: ", snapshot.preset.name, "\n\n");
  if (snapshot.leaderboard.empty()) return out + "(no results yet)\n";

  std::vector<std::vector<std::string>> table;
  table.push_back(LeaderboardHeader({"model", "best temp", "valid", "novelty"}, snapshot.temperatures));
  bool repeats = false;
  for (const AidanBest& best : snapshot.leaderboard) {
    std::vector<std::string> row = {best.model, FormatTemperature(best.temperature)};
    ValidAndNovelty(best.totals, best.by_repeat, "", &row);
    repeats |= best.by_repeat.size() > 1;
    AppendTemperatureColumns(
        snapshot.cells, best.model, snapshot.temperatures,
        [](const AidanCell& cell) { return ValidAndNovelty(cell.totals, cell.by_repeat, " / "); }, row);
    table.push_back(std::move(row));
  }
  absl::StrAppend(&out, RenderTable(table));
  if (repeats) absl::StrAppend(&out, "\n", kRepeatLeaderboardNote, "\n");
  if (!snapshot.cells.front().by_domain.empty()) absl::StrAppend(&out, DomainsAtBest(snapshot));
  return out;
}

}  // namespace noveltygrid
