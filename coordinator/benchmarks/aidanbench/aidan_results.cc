#include "coordinator/benchmarks/aidanbench/aidan_results.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "common/aidan_scoring.h"
#include "common/records_json.h"
#include "coordinator/benchmarks/repeat_interval.h"

namespace noveltygrid {

namespace {

Json OptionalNumber(const std::optional<double>& value) { return value.has_value() ? Json(*value) : Json(nullptr); }

// Mean and interval across repeats of the figures the leaderboard ranks by.
Json AidanRepeatsJson(const std::vector<AidanTotals>& by_repeat) {
  return RepeatsJson(
      {{"valid_answers", PerRepeatValidAnswers(by_repeat)}, {"novelty_sum", PerRepeatNoveltySum(by_repeat)}});
}

// The totals' fields, as a cell and each of its domains and subdomains write them.
Json TotalsJson(const AidanTotals& t, bool has_llm_novelty) {
  Json j{{"valid_answers", t.valid_answers},   {"novelty_sum", t.novelty_sum}, {"coherence_sum", t.coherence_sum},
         {"stored_answers", t.stored_answers}, {"questions", t.questions},     {"mmr_sum", t.mmr_sum}};
  if (has_llm_novelty) j["llm_novelty_sum"] = t.llm_novelty_sum;
  j["errors"] = t.errors;
  return j;
}

// {DOMAIN: totals [+ "by_subdomain": {SUBDOMAIN: totals}]}, by name.
Json ByDomainJson(const AidanCell& cell) {
  Json out = Json::object();
  for (const auto& [name, domain] : cell.by_domain) {
    Json j = TotalsJson(domain.totals, cell.has_llm_novelty);
    if (!domain.by_subdomain.empty()) {
      Json subdomains = Json::object();
      for (const auto& [sub, totals] : domain.by_subdomain) subdomains[sub] = TotalsJson(totals, cell.has_llm_novelty);
      j["by_subdomain"] = std::move(subdomains);
    }
    out[name] = std::move(j);
  }
  return out;
}

Json CellJson(const AidanCell& cell, const AidanPreset& preset) {
  Json j = TotalsJson(cell.totals, cell.has_llm_novelty);
  j["max_iterations"] = cell.max_iterations;
  j["preset"] = preset.name;
  if (cell.by_repeat.size() > 1) j["repeats"] = AidanRepeatsJson(cell.by_repeat);
  if (!cell.by_domain.empty()) j["by_domain"] = ByDomainJson(cell);
  return j;
}

Json RowJson(const AidanQuestionRow& row) {
  Json j{{"model", row.model},
         {"temperature", row.temperature},
         {"question_id", row.question_id},
         {"question", row.question}};
  if (row.repeat != 0) j["repeat"] = row.repeat;      // rows of repeat 0 keep the form of sweeps without repeats
  if (!row.domain.empty()) j["domain"] = row.domain;  // as answers.jsonl: only when the question has them
  if (!row.subdomain.empty()) j["subdomain"] = row.subdomain;
  const Json rest{{"iterations", row.iterations},
                  {"valid_answers", row.valid_answers},
                  {"avg_coherence", OptionalNumber(row.avg_coherence)},
                  {"avg_novelty", OptionalNumber(row.avg_novelty)},
                  {"avg_mmr", OptionalNumber(row.avg_mmr)},
                  {"stop_reason", row.stop_reason},
                  {"error", row.error},
                  {"unit_id", row.unit_id}};
  for (const auto& [key, value] : rest.items()) j[key] = value;
  return j;
}

}  // namespace

absl::Status WriteAidanAnswers(const AidanSnapshot& snapshot, const RowsSink& sink) {
  std::vector<const UnitResult*> units;
  units.reserve(snapshot.units.size());
  for (const UnitResult& unit : snapshot.units) units.push_back(&unit);
  std::string lines;  // one unit's, its capacity kept from unit to unit
  return ForEachWholeUnitToChange(units, snapshot.source, [&](UnitResult& unit) {
    const UnitSpec& u = unit.unit;
    // The unit's fields open every line of it: dumped once, the closing brace turned into a comma.
    Json head{{"benchmark", kAidanBench},
              {"model", u.model},
              {"temperature", u.temperature},
              {"question_id", u.item_id},
              {"question", u.item_text}};
    if (u.repeat != 0) head["repeat"] = u.repeat;
    for (const auto& [key, value] : UnitMetadata(u)) head[key] = value;  // only when set
    std::string prefix = DumpJson(head);
    prefix.back() = ',';
    MarkValidAnswers(snapshot.preset, unit.answers);  // as the reducer marked them
    lines.clear();
    for (const StepRecord& a : unit.answers) {
      // Written without a Json tree (a run's end waits for this file): the answer's own fields as
      // records_json names them, its MMR and unit id, "error" last.
      lines.append(prefix);
      AppendStepMembers(a, &lines);
      lines.append(",\"mmr\":");
      AppendJsonNumber(AidanMmr(snapshot.preset, a), &lines);
      lines.append(",\"unit_id\":");
      AppendJsonString(u.id, &lines);
      if (!a.error.empty()) {
        lines.append(",\"error\":");
        AppendJsonString(a.error, &lines);
      }
      lines.append("}\n");
    }
    return sink(lines);
  });
}

std::unique_ptr<BenchmarkResults> AidanReducer::Results() const {
  return std::make_unique<AidanBenchResults>(Snapshot());
}

std::string AidanBenchResults::RowsFileName() const { return kAnswersFileName; }

absl::Status AidanBenchResults::WriteRows(const RowsSink& sink) const { return WriteAidanAnswers(snapshot_, sink); }

Json AidanBenchResults::Section() const {
  Json cells = Json::object();
  for (const AidanCell& cell : snapshot_.cells) {
    cells[cell.model][FormatTemperature(cell.temperature)] = CellJson(cell, snapshot_.preset);
  }
  return cells;
}

Json AidanBenchResults::Leaderboard() const {
  Json board = Json::array();
  for (const AidanBest& best : snapshot_.leaderboard) {
    Json entry{{"model", best.model},
               {"best_temperature", best.temperature},
               {"valid_answers", best.totals.valid_answers},
               {"novelty_sum", best.totals.novelty_sum}};
    if (best.by_repeat.size() > 1) entry["repeats"] = AidanRepeatsJson(best.by_repeat);
    board.push_back(std::move(entry));
  }
  return board;
}

bool AidanBenchResults::ForEachQuestionRow(const std::function<void(const Json& row)>& row) const {
  for (size_t i = 0; i < snapshot_.units.size(); ++i) {
    row(RowJson(QuestionRowOf(snapshot_.units[i], snapshot_.unit_totals[i])));
  }
  return true;
}

std::string AidanBenchResults::LeaderboardText(bool simulated) const { return FormatLeaderboard(snapshot_, simulated); }

absl::Status WriteResultsFolder(const std::string& dir, const AidanSnapshot& snapshot, const ResultsOptions& options) {
  const AidanBenchResults part(snapshot);
  return WriteSweepResults(dir, {&part}, options);
}

absl::Status WriteSummaryFiles(const std::string& dir, const AidanSnapshot& snapshot, const ResultsOptions& options) {
  const AidanBenchResults part(snapshot);
  return WriteSweepSummaryFiles(dir, {&part}, options);
}

Json SummaryJson(const AidanSnapshot& snapshot, const ResultsOptions& options) {
  const AidanBenchResults part(snapshot);
  return SweepSummaryJson({&part}, options);
}

std::string FormatLeaderboard(const AidanSnapshot& snapshot, const ResultsOptions& options) {
  return FormatLeaderboard(snapshot, !options.simulated_models.empty());
}

}  // namespace noveltygrid
