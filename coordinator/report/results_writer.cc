#include "coordinator/report/results_writer.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <system_error>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/aidan_scoring.h"
#include "common/records_json.h"
#include "common/status_macros.h"
#include "coordinator/report/leaderboard.h"
#include "coordinator/report/novelty_sweep_results.h"
#include "coordinator/report/noveltybench_results.h"

namespace noveltygrid {

namespace {

Json OptionalNumber(const std::optional<double>& value) { return value.has_value() ? Json(*value) : Json(nullptr); }

Json CellJson(const AidanCell& cell, const AidanPreset& preset) {
  const AidanTotals& t = cell.totals;
  Json j{{"valid_answers", t.valid_answers},   {"novelty_sum", t.novelty_sum}, {"coherence_sum", t.coherence_sum},
         {"stored_answers", t.stored_answers}, {"questions", t.questions},     {"mmr_sum", t.mmr_sum}};
  if (cell.has_llm_novelty) j["llm_novelty_sum"] = t.llm_novelty_sum;
  j["errors"] = t.errors;
  j["max_iterations"] = cell.max_iterations;
  j["preset"] = preset.name;
  return j;
}

Json RowJson(const AidanQuestionRow& row) {
  return Json{{"model", row.model},
              {"temperature", row.temperature},
              {"question_id", row.question_id},
              {"question", row.question},
              {"iterations", row.iterations},
              {"valid_answers", row.valid_answers},
              {"avg_coherence", OptionalNumber(row.avg_coherence)},
              {"avg_novelty", OptionalNumber(row.avg_novelty)},
              {"avg_mmr", OptionalNumber(row.avg_mmr)},
              {"stop_reason", row.stop_reason},
              {"error", row.error},
              {"unit_id", row.unit_id}};
}

}  // namespace

bool IsSimulatedModelId(const std::string& id) { return absl::StartsWith(id, "sim:") || id == "lexical"; }

std::vector<std::string> SimulatedModelIds(const std::vector<std::string>& models,
                                           const std::vector<std::string>& helpers) {
  const bool all = std::any_of(helpers.begin(), helpers.end(), IsSimulatedModelId);
  std::vector<std::string> simulated;
  for (const std::string& m : models) {
    if (all || IsSimulatedModelId(m)) simulated.push_back(m);
  }
  return simulated;
}

std::string FormatLeaderboard(const AidanSnapshot& snapshot, const ResultsOptions& options) {
  return FormatLeaderboard(snapshot, !options.simulated_models.empty());
}

std::string AidanAnswersJsonl(const AidanSnapshot& snapshot) {
  std::string out;
  for (const UnitResult& unit : snapshot.units) {
    const UnitSpec& u = unit.unit;
    for (const StepRecord& a : unit.answers) {
      Json line{{"benchmark", kAidanBench},
                {"model", u.model},
                {"temperature", u.temperature},
                {"question_id", u.item_id},
                {"question", u.item_text}};
      // The answer's own fields, named once in records_json; "error" goes last.
      const Json fields = StepToJson(a);
      for (const auto& [key, value] : fields.items()) {
        if (key != "error") line[key] = value;
      }
      line["mmr"] = AidanMmr(snapshot.preset, a);
      line["unit_id"] = u.id;
      if (!a.error.empty()) line["error"] = a.error;
      absl::StrAppend(&out, DumpJson(line), "\n");
    }
  }
  return out;
}

namespace {

// "calls" and "run" of summary.json: the benchmarks' merged, with costs where prices are known.
void AddCallsAndRun(const AidanSnapshot* aidan, const NoveltySnapshot* novelty, const ResultsOptions& options,
                    Json& summary) {
  CallStats calls;
  Json run = Json::object();
  if (aidan != nullptr) {
    MergeCallStats(aidan->calls, calls);
    if (aidan->run.is_object()) run.update(aidan->run);
  }
  if (novelty != nullptr) {
    MergeCallStats(novelty->calls, calls);
    if (novelty->run.is_object()) run.update(novelty->run);
  }
  summary["calls"] = CallStatsToJson(calls);
  summary["run"] = std::move(run);
  if (options.prices.empty()) return;
  Json costs = Json::object();
  double total = 0;
  for (const auto& [key, counters] : calls) {
    const size_t colon = key.find(':');  // "ROLE:MODEL"
    if (colon == std::string::npos) continue;
    const std::string model = key.substr(colon + 1);
    auto price = options.prices.find(model);
    if (price == options.prices.end()) continue;
    const double dollars = (static_cast<double>(counters.prompt_tokens) * price->second.prompt_per_million +
                            static_cast<double>(counters.completion_tokens) * price->second.completion_per_million) /
                           1e6;
    summary["calls"][key]["cost_usd"] = dollars;
    costs[model] = costs.value(model, 0.0) + dollars;
    total += dollars;
  }
  costs["total"] = total;
  summary["run"]["cost_usd"] = std::move(costs);
}

const AidanSnapshot* Ptr(const std::optional<AidanSnapshot>& s) { return s.has_value() ? &*s : nullptr; }
const NoveltySnapshot* Ptr(const std::optional<NoveltySnapshot>& s) { return s.has_value() ? &*s : nullptr; }

std::string LeaderboardText(const AidanSnapshot* aidan, const NoveltySnapshot* novelty, const ResultsOptions& options) {
  const bool simulated = !options.simulated_models.empty();
  std::string out;
  if (aidan != nullptr) out = FormatLeaderboard(*aidan, simulated);
  if (novelty != nullptr) {
    if (!out.empty()) out += "\n";
    out += FormatNoveltySweepLeaderboard(*novelty, simulated);
  }
  return out;
}

absl::Status WriteSummaries(const std::string& dir, const AidanSnapshot* aidan, const NoveltySnapshot* novelty,
                            const ResultsOptions& options) {
  const std::filesystem::path root(dir);
  RETURN_IF_ERROR(WriteFileAtomically((root / kSummaryFileName).string(),
                                      DumpJsonPretty(SweepSummaryJson(aidan, novelty, options))));
  return WriteFileAtomically((root / kLeaderboardFileName).string(), LeaderboardText(aidan, novelty, options));
}

absl::Status WriteFolder(const std::string& dir, const AidanSnapshot* aidan, const NoveltySnapshot* novelty,
                         const ResultsOptions& options) {
  if (aidan == nullptr && novelty == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("nothing to write to ", dir, ": no benchmark results"));
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return absl::InternalError(absl::StrCat("cannot create results folder ", dir, ": ", ec.message()));
  const std::filesystem::path root(dir);
  if (aidan != nullptr) {
    RETURN_IF_ERROR(WriteFileAtomically((root / kAnswersFileName).string(), AidanAnswersJsonl(*aidan)));
  }
  if (novelty != nullptr) {
    RETURN_IF_ERROR(WriteFileAtomically((root / kSamplesFileName).string(), NoveltySweepSamplesJsonl(*novelty)));
  }
  return WriteSummaries(dir, aidan, novelty, options);
}

}  // namespace

Json SweepSummaryJson(const AidanSnapshot* aidan, const NoveltySnapshot* novelty, const ResultsOptions& options) {
  Json summary = Json::object();
  if (!options.simulated_models.empty()) {
    summary["simulated"] = true;
    summary["notice"] = kSimulatedNotice;
    summary["simulated_models"] = options.simulated_models;
  }
  Json leaderboard = Json::object();
  if (aidan != nullptr) {
    Json cells = Json::object();
    for (const AidanCell& cell : aidan->cells) {
      cells[cell.model][FormatTemperature(cell.temperature)] = CellJson(cell, aidan->preset);
    }
    summary["aidanbench"] = std::move(cells);
    Json board = Json::array();
    for (const AidanBest& best : aidan->leaderboard) {
      board.push_back(Json{{"model", best.model},
                           {"best_temperature", best.temperature},
                           {"valid_answers", best.totals.valid_answers},
                           {"novelty_sum", best.totals.novelty_sum}});
    }
    leaderboard["aidanbench"] = std::move(board);
  }
  if (novelty != nullptr) {
    summary["noveltybench"] = NoveltySweepSectionJson(*novelty);
    leaderboard["noveltybench"] = NoveltySweepLeaderboardJson(*novelty);
  }
  summary["leaderboard"] = std::move(leaderboard);
  if (aidan != nullptr) {
    Json rows = Json::array();
    for (const AidanQuestionRow& row : aidan->rows) rows.push_back(RowJson(row));
    summary["questions"] = Json{{"aidanbench", std::move(rows)}};
  }
  AddCallsAndRun(aidan, novelty, options, summary);
  return summary;
}

Json SummaryJson(const AidanSnapshot& snapshot, const ResultsOptions& options) {
  return SweepSummaryJson(&snapshot, nullptr, options);
}

absl::Status WriteSweepResults(const std::string& dir, const std::optional<AidanSnapshot>& aidan,
                               const std::optional<NoveltySnapshot>& novelty, const ResultsOptions& options) {
  return WriteFolder(dir, Ptr(aidan), Ptr(novelty), options);
}

absl::Status WriteSweepSummaryFiles(const std::string& dir, const std::optional<AidanSnapshot>& aidan,
                                    const std::optional<NoveltySnapshot>& novelty, const ResultsOptions& options) {
  return WriteSummaries(dir, Ptr(aidan), Ptr(novelty), options);
}

std::string SweepLeaderboardText(const std::optional<AidanSnapshot>& aidan,
                                 const std::optional<NoveltySnapshot>& novelty, const ResultsOptions& options) {
  return LeaderboardText(Ptr(aidan), Ptr(novelty), options);
}

absl::Status WriteResultsFolder(const std::string& dir, const AidanSnapshot& snapshot, const ResultsOptions& options) {
  return WriteFolder(dir, &snapshot, nullptr, options);
}

absl::Status WriteSummaryFiles(const std::string& dir, const AidanSnapshot& snapshot, const ResultsOptions& options) {
  return WriteSummaries(dir, &snapshot, nullptr, options);
}

}  // namespace noveltygrid
