#include "coordinator/benchmarks/aidanbench/aidan_reducer.h"

#include <algorithm>
#include <tuple>
#include <utility>

namespace noveltygrid {

namespace {

std::optional<double> Average(double sum, long long count) {
  if (count == 0) return std::nullopt;
  return sum / static_cast<double>(count);
}

}  // namespace

AidanQuestionRow QuestionRowOf(const UnitResult& unit, const AidanTotals& totals) {
  const UnitSpec& u = unit.unit;
  AidanQuestionRow row;
  row.model = u.model;
  row.temperature = u.temperature;
  row.question_id = u.item_id;
  row.question = u.item_text;
  row.domain = u.domain;
  row.subdomain = u.subdomain;
  row.repeat = u.repeat;
  row.iterations = totals.stored_answers;
  row.valid_answers = totals.valid_answers;
  row.avg_coherence = Average(totals.coherence_sum, row.valid_answers);
  row.avg_novelty = Average(totals.novelty_sum, row.valid_answers);
  row.avg_mmr = Average(totals.mmr_sum, row.valid_answers);
  row.stop_reason = unit.stop_reason;
  row.error = unit.error;
  row.unit_id = u.id;
  return row;
}

std::vector<AidanQuestionRow> QuestionRows(const AidanSnapshot& snapshot) {
  std::vector<AidanQuestionRow> rows;
  for (size_t i = 0; i < snapshot.units.size(); ++i)
    rows.push_back(QuestionRowOf(snapshot.units[i], snapshot.unit_totals[i]));
  return rows;
}

std::vector<double> PerRepeatValidAnswers(const std::vector<AidanTotals>& by_repeat) {
  std::vector<double> values;
  for (const AidanTotals& t : by_repeat) values.push_back(static_cast<double>(t.valid_answers));
  return values;
}

std::vector<double> PerRepeatNoveltySum(const std::vector<AidanTotals>& by_repeat) {
  std::vector<double> values;
  for (const AidanTotals& t : by_repeat) values.push_back(t.novelty_sum);
  return values;
}

AidanReducer::AidanReducer(AidanPreset preset, std::vector<std::string> models, std::vector<double> temperatures,
                           const UnitSource* source)
    : ReducedUnits(std::move(models), std::move(temperatures), source), preset_(std::move(preset)) {}

bool AidanReducer::Add(UnitResult result, const CallStats& calls) {
  // Scoring happens outside the lock; a duplicate wastes that work but never blocks other adds.
  MarkValidAnswers(preset_, result.answers);
  AidanTotals totals = ScoreAidanQuestion(preset_, result.answers);
  if (!result.error.empty()) totals.errors = 1;
  const bool has_llm_novelty = std::any_of(result.answers.begin(), result.answers.end(),
                                           [](const StepRecord& a) { return a.llm_novelty.has_value(); });
  return Keep(AidanEntry{std::move(result), totals, has_llm_novelty}, calls);
}

AidanSnapshot AidanReducer::Snapshot() const {
  AidanSnapshot snap;
  snap.preset = preset_;
  snap.source = source();
  Contents contents =
      Sorted([](const AidanEntry& e) { return std::make_tuple(e.result.unit.index, std::cref(e.result.unit.id)); });
  snap.calls = std::move(contents.calls);
  snap.run = std::move(contents.run);
  std::vector<AidanEntry>& entries = contents.entries;
  const bool by_domain =
      std::any_of(entries.begin(), entries.end(), [](const AidanEntry& e) { return !e.result.unit.domain.empty(); });
  snap.temperatures = ValuesInOrder(entries, temperatures(), [](const UnitSpec& u) { return u.temperature; });

  snap.units.reserve(entries.size());
  snap.unit_totals.reserve(entries.size());
  for (AidanEntry& e : entries) {
    const UnitSpec& u = e.result.unit;
    if (snap.models.empty() || snap.models.back() != u.model) snap.models.push_back(u.model);
    if (snap.cells.empty() || snap.cells.back().model != u.model || snap.cells.back().temperature != u.temperature) {
      AidanCell cell;
      cell.model = u.model;
      cell.temperature = u.temperature;
      snap.cells.push_back(std::move(cell));
    }
    AidanCell& cell = snap.cells.back();
    cell.totals += e.totals;
    if (cell.by_repeat.size() <= static_cast<size_t>(u.repeat)) cell.by_repeat.resize(u.repeat + 1);
    cell.by_repeat[u.repeat] += e.totals;
    cell.max_iterations = std::max(cell.max_iterations, e.result.max_iterations);
    cell.has_llm_novelty |= e.has_llm_novelty;
    if (by_domain) {
      AidanDomain& domain = cell.by_domain[GroupKey(u.domain)];
      domain.totals += e.totals;
      domain.by_subdomain[GroupKey(u.subdomain)] += e.totals;
    }

    snap.unit_totals.push_back(e.totals);
    snap.units.push_back(std::move(e.result));  // `entries` is the snapshot's own copy
  }

  // A domain none of whose questions has a subdomain has no breakdown by subdomain.
  for (AidanCell& cell : snap.cells) {
    for (auto& [name, domain] : cell.by_domain) {
      if (domain.by_subdomain.size() == 1 && domain.by_subdomain.begin()->first == kNoGroup) {
        domain.by_subdomain.clear();
      }
    }
  }

  // Cells are model-major, so each model's cells are consecutive.
  for (const AidanCell& cell : snap.cells) {
    if (snap.leaderboard.empty() || snap.leaderboard.back().model != cell.model) {
      snap.leaderboard.push_back(AidanBest{cell.model, cell.temperature, cell.totals, cell.by_repeat});
      continue;
    }
    AidanBest& best = snap.leaderboard.back();
    const bool better = std::make_tuple(cell.totals.valid_answers, cell.totals.novelty_sum, -cell.temperature) >
                        std::make_tuple(best.totals.valid_answers, best.totals.novelty_sum, -best.temperature);
    if (better) best = AidanBest{cell.model, cell.temperature, cell.totals, cell.by_repeat};
  }
  std::stable_sort(snap.leaderboard.begin(), snap.leaderboard.end(), [](const AidanBest& a, const AidanBest& b) {
    if (a.totals.valid_answers != b.totals.valid_answers) {
      return a.totals.valid_answers > b.totals.valid_answers;
    }
    return a.model < b.model;
  });
  return snap;
}

}  // namespace noveltygrid
