#include "coordinator/benchmarks/noveltybench/novelty_reducer.h"

#include <algorithm>
#include <functional>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"

namespace noveltygrid {

namespace {

// The row of a result: scored when it completed with an outcome that fits its generations.
NoveltyRowResult ScoreUnit(UnitResult result, double patience) {
  NoveltyRowResult row;
  absl::StatusOr<noveltybench::RowScore> score = ScoreNoveltyResult(result, patience);
  if (score.ok()) {
    row.score = *std::move(score);
  } else {
    row.error = std::string(score.status().message());
  }
  row.result = std::move(result);
  return row;
}

// Means over the scored rows among `rows` that `keep` selects, in their order.
template <typename Keep>
noveltybench::ScoreMeans MeansOf(const std::vector<const NoveltyRowResult*>& rows, Keep keep) {
  std::vector<const noveltybench::RowScore*> scores;
  for (const NoveltyRowResult* row : rows) {
    if (row->score.has_value() && keep(row->result.unit)) scores.push_back(&*row->score);
  }
  return noveltybench::MeanScores(scores);
}

// Per name in `names` that some row of `rows` has in `field`: the means of those rows.
template <typename Field>
std::vector<NoveltyGroupMeans> GroupMeans(const std::vector<const NoveltyRowResult*>& rows,
                                          const std::vector<std::string>& names, Field field) {
  std::vector<NoveltyGroupMeans> groups;
  for (const std::string& name : names) {
    const bool present =
        std::any_of(rows.begin(), rows.end(), [&](const NoveltyRowResult* r) { return field(r->result.unit) == name; });
    if (!present) continue;
    groups.push_back(NoveltyGroupMeans{name, MeansOf(rows, [&](const UnitSpec& u) { return field(u) == name; })});
  }
  return groups;
}

NoveltySweepCell MakeCell(const std::vector<const NoveltyRowResult*>& rows, const NoveltySnapshot& snap) {
  NoveltySweepCell cell;
  cell.model = rows.front()->result.unit.model;
  cell.temperature = rows.front()->result.unit.temperature;
  cell.mode = snap.modes.front();
  auto mode_of = [](const UnitSpec& u) -> const std::string& { return u.mode; };
  auto dataset_of = [](const UnitSpec& u) -> const std::string& { return u.dataset; };
  cell.means = MeansOf(rows, [&](const UnitSpec& u) { return u.mode == cell.mode; });
  cell.by_mode = GroupMeans(rows, snap.modes, mode_of);
  std::vector<const NoveltyRowResult*> first_mode;
  for (const NoveltyRowResult* row : rows) {
    if (row->result.unit.mode == cell.mode) first_mode.push_back(row);
  }
  cell.by_dataset = GroupMeans(first_mode, snap.datasets, dataset_of);
  cell.leaderboard_value = LeaderboardValue(cell.by_dataset);
  if (!snap.categories.empty()) {
    cell.by_category = GroupMeans(first_mode, snap.categories, [](const UnitSpec& u) { return GroupKey(u.category); });
  }
  for (const NoveltyRowResult* row : rows) cell.errors += row->score.has_value() ? 0 : 1;
  int last_repeat = 0;
  for (const NoveltyRowResult* row : rows) last_repeat = std::max(last_repeat, row->result.unit.repeat);
  for (int repeat = 0; last_repeat > 0 && repeat <= last_repeat; ++repeat) {
    std::vector<const NoveltyRowResult*> of_repeat;
    for (const NoveltyRowResult* row : first_mode) {
      if (row->result.unit.repeat == repeat) of_repeat.push_back(row);
    }
    if (cell.leaderboard_value.has_value()) {
      cell.by_repeat.push_back(
          LeaderboardValue(GroupMeans(of_repeat, snap.datasets, dataset_of)).value_or(NoveltyWeightedValue{}));
    } else {
      const noveltybench::ScoreMeans means = MeansOf(of_repeat, [](const UnitSpec&) { return true; });
      cell.by_repeat.push_back(NoveltyWeightedValue{means.mean_distinct, means.mean_utility});
    }
  }
  return cell;
}

NoveltyBest BestOf(const NoveltySweepCell& cell) {
  if (cell.leaderboard_value.has_value()) {
    return NoveltyBest{cell.model, cell.temperature, cell.leaderboard_value->utility, cell.leaderboard_value->distinct,
                       true,       cell.by_repeat};
  }
  return NoveltyBest{cell.model, cell.temperature, cell.means.mean_utility, cell.means.mean_distinct,
                     false,      cell.by_repeat};
}

}  // namespace

std::vector<double> PerRepeatDistinct(const std::vector<NoveltyWeightedValue>& by_repeat) {
  std::vector<double> values;
  for (const NoveltyWeightedValue& v : by_repeat) values.push_back(v.distinct);
  return values;
}

std::vector<double> PerRepeatUtility(const std::vector<NoveltyWeightedValue>& by_repeat) {
  std::vector<double> values;
  for (const NoveltyWeightedValue& v : by_repeat) values.push_back(v.utility);
  return values;
}

std::optional<NoveltyWeightedValue> LeaderboardValue(const std::vector<NoveltyGroupMeans>& by_dataset) {
  const NoveltyGroupMeans* curated = nullptr;
  const NoveltyGroupMeans* wildchat = nullptr;
  for (const NoveltyGroupMeans& g : by_dataset) {
    if (g.name == kCuratedDataset) curated = &g;
    if (g.name == kWildchatDataset) wildchat = &g;
  }
  if (curated == nullptr || wildchat == nullptr) return std::nullopt;
  const double total = kCuratedWeight + kWildchatWeight;
  return NoveltyWeightedValue{
      (curated->means.mean_distinct * kCuratedWeight + wildchat->means.mean_distinct * kWildchatWeight) / total,
      (curated->means.mean_utility * kCuratedWeight + wildchat->means.mean_utility * kWildchatWeight) / total};
}

absl::StatusOr<noveltybench::RowScore> ScoreNoveltyResult(const UnitResult& result, double patience) {
  if (result.stop_reason == kStopError || !result.error.empty()) {
    return absl::FailedPreconditionError(result.error.empty() ? std::string("the unit failed") : result.error);
  }
  if (!result.novelty.has_value()) {
    return absl::InvalidArgumentError(absl::StrCat("no NoveltyBench outcome (stop reason '", result.stop_reason, "')"));
  }
  if (result.novelty->partition.size() != result.answers.size() ||
      result.novelty->quality.size() != result.answers.size()) {
    return absl::InvalidArgumentError(absl::StrCat("the outcome has ", result.novelty->partition.size(),
                                                   " partition and ", result.novelty->quality.size(),
                                                   " quality entries for ", result.answers.size(), " generations"));
  }
  absl::StatusOr<noveltybench::RowScore> score =
      noveltybench::ScorePartition(result.novelty->partition, result.novelty->quality, patience);
  if (!score.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("cannot score the outcome: ", score.status().message()));
  }
  return score;
}

NoveltyReducer::NoveltyReducer(NoveltySettings settings, std::vector<std::string> models,
                               std::vector<double> temperatures, std::vector<std::string> modes,
                               std::vector<std::string> datasets, const UnitSource* source)
    : ReducedUnits(std::move(models), std::move(temperatures), source),
      settings_(std::move(settings)),
      modes_(std::move(modes)),
      datasets_(std::move(datasets)) {}

bool NoveltyReducer::Add(UnitResult result, const CallStats& calls) {
  // Scoring happens outside the lock; a duplicate wastes that work but never blocks other adds.
  return Keep(ScoreUnit(std::move(result), settings_.patience()), calls);
}

NoveltySnapshot NoveltyReducer::Snapshot() const {
  NoveltySnapshot snap;
  snap.settings = settings_;
  snap.source = source();
  Contents contents = Sorted([this](const NoveltyRowResult& r) {
    const UnitSpec& u = r.result.unit;
    return std::make_tuple(RankOf(modes_, u.mode), std::cref(u.mode), RankOf(datasets_, u.dataset),
                           std::cref(u.dataset), u.index, std::cref(u.id));
  });
  snap.rows = std::move(contents.entries);
  snap.calls = std::move(contents.calls);
  snap.run = std::move(contents.run);
  if (snap.rows.empty()) return snap;

  snap.models = ValuesInOrder(snap.rows, models(), [](const UnitSpec& u) { return u.model; });
  snap.temperatures = ValuesInOrder(snap.rows, temperatures(), [](const UnitSpec& u) { return u.temperature; });
  snap.modes = ValuesInOrder(snap.rows, modes_, [](const UnitSpec& u) { return u.mode; });
  snap.datasets = ValuesInOrder(snap.rows, datasets_, [](const UnitSpec& u) { return u.dataset; });
  if (std::any_of(snap.rows.begin(), snap.rows.end(),
                  [](const NoveltyRowResult& r) { return !r.result.unit.category.empty(); })) {
    snap.categories =
        ValuesInOrder(snap.rows, std::vector<std::string>(), [](const UnitSpec& u) { return GroupKey(u.category); });
  }

  // Rows are model-major, then temperature: each cell's rows are consecutive.
  std::vector<const NoveltyRowResult*> cell_rows;
  for (size_t i = 0; i <= snap.rows.size(); ++i) {
    const bool same_cell = i < snap.rows.size() && !cell_rows.empty() &&
                           snap.rows[i].result.unit.model == cell_rows.front()->result.unit.model &&
                           snap.rows[i].result.unit.temperature == cell_rows.front()->result.unit.temperature;
    if (!cell_rows.empty() && !same_cell) {
      snap.cells.push_back(MakeCell(cell_rows, snap));
      cell_rows.clear();
    }
    if (i < snap.rows.size()) cell_rows.push_back(&snap.rows[i]);
  }

  for (const NoveltySweepCell& cell : snap.cells) {
    const NoveltyBest candidate = BestOf(cell);
    if (snap.leaderboard.empty() || snap.leaderboard.back().model != cell.model) {
      snap.leaderboard.push_back(candidate);
      continue;
    }
    NoveltyBest& best = snap.leaderboard.back();
    if (std::make_pair(candidate.utility, -candidate.temperature) > std::make_pair(best.utility, -best.temperature)) {
      best = candidate;
    }
  }
  std::stable_sort(snap.leaderboard.begin(), snap.leaderboard.end(), [](const NoveltyBest& a, const NoveltyBest& b) {
    if (a.utility != b.utility) return a.utility > b.utility;
    return a.model < b.model;
  });
  return snap;
}

}  // namespace noveltygrid
