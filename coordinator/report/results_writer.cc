#include "coordinator/report/results_writer.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/call_cost.h"
#include "common/records_json.h"
#include "common/status_macros.h"

namespace noveltygrid {

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

namespace {

// "calls" and "run" of summary.json: the benchmarks' merged, with costs where prices are known.
void AddCallsAndRun(const ResultsParts& parts, const ResultsOptions& options, Json& summary) {
  CallStats calls;
  Json run = Json::object();
  for (const BenchmarkResults* part : parts) {
    MergeCallStats(part->calls(), calls);
    if (part->run().is_object()) run.update(part->run());
  }
  summary["calls"] = CallStatsToJson(calls);
  summary["run"] = std::move(run);
  if (options.prices.empty()) return;
  const CallCosts priced = PriceCalls(calls, options.prices);
  for (const auto& [key, dollars] : priced.by_key) summary["calls"][key]["cost_usd"] = dollars;
  Json costs = Json::object();
  for (const auto& [model, dollars] : priced.by_model) costs[model] = dollars;
  costs["total"] = priced.total;
  summary["run"]["cost_usd"] = std::move(costs);
}

std::string LeaderboardText(const ResultsParts& parts, const ResultsOptions& options) {
  const bool simulated = !options.simulated_models.empty();
  std::string out;
  for (const BenchmarkResults* part : parts) {
    if (!out.empty()) out += "\n";
    out += part->LeaderboardText(simulated);
  }
  return out;
}

}  // namespace

ResultsParts PartsOf(const std::vector<std::unique_ptr<BenchmarkResults>>& owned) {
  ResultsParts parts;
  for (const auto& part : owned) parts.push_back(part.get());
  return parts;
}

Json SweepSummaryJson(const ResultsParts& parts, const ResultsOptions& options) {
  Json summary = Json::object();
  if (!options.simulated_models.empty()) {
    summary["simulated"] = true;
    summary["notice"] = kSimulatedNotice;
    summary["simulated_models"] = options.simulated_models;
  }
  Json leaderboard = Json::object();
  Json questions = Json::object();
  for (const BenchmarkResults* part : parts) {
    summary[part->name()] = part->Section();
    leaderboard[part->name()] = part->Leaderboard();
    if (std::optional<Json> table = part->Questions()) questions[part->name()] = *std::move(table);
  }
  summary["leaderboard"] = std::move(leaderboard);
  if (!questions.empty()) summary["questions"] = std::move(questions);
  AddCallsAndRun(parts, options, summary);
  return summary;
}

std::string SweepLeaderboardText(const ResultsParts& parts, const ResultsOptions& options) {
  return LeaderboardText(parts, options);
}

absl::Status WriteSweepSummaryFiles(const std::string& dir, const ResultsParts& parts, const ResultsOptions& options) {
  const std::filesystem::path root(dir);
  RETURN_IF_ERROR(
      WriteFileAtomically((root / kSummaryFileName).string(), DumpJsonPretty(SweepSummaryJson(parts, options))));
  return WriteFileAtomically((root / kLeaderboardFileName).string(), LeaderboardText(parts, options));
}

absl::Status WriteSweepResults(const std::string& dir, const ResultsParts& parts, const ResultsOptions& options) {
  if (parts.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("nothing to write to ", dir, ": no benchmark results"));
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return absl::InternalError(absl::StrCat("cannot create results folder ", dir, ": ", ec.message()));
  const std::filesystem::path root(dir);
  for (const BenchmarkResults* part : parts) {
    // Streamed: a large sweep's rows need not fit in memory (see coordinator/benchmarks/unit_source.h).
    ASSIGN_OR_RETURN(std::unique_ptr<AtomicFileWriter> rows,
                     AtomicFileWriter::Create((root / part->RowsFileName()).string()));
    RETURN_IF_ERROR(part->WriteRows([&rows](std::string_view piece) { return rows->Append(piece); }));
    RETURN_IF_ERROR(rows->Commit());
  }
  return WriteSweepSummaryFiles(dir, parts, options);
}

}  // namespace noveltygrid
