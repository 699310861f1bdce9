#include "coordinator/report/results_reader.h"

#include <filesystem>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/append_unique.h"
#include "common/json_util.h"
#include "common/status_macros.h"
#include "coordinator/benchmarks/registry.h"

namespace noveltygrid {

namespace {

namespace fs = std::filesystem;

// The strings of the array `list` (nullopt when it is not an array).
std::optional<std::vector<std::string>> StringsOf(const Json& list) {
  if (!list.is_array()) return std::nullopt;
  std::vector<std::string> models;
  for (const Json& m : list) {
    if (m.is_string()) models.push_back(m.get<std::string>());
  }
  return models;
}

std::optional<std::vector<std::string>> SimulatedModelsOf(const Json& summary) {
  if (!summary.is_object() || !summary.contains("simulated_models")) return std::nullopt;
  return StringsOf(summary.at("simulated_models"));
}

std::vector<std::string> TemperatureNotAppliedOf(const Json& summary) {
  if (!summary.is_object()) return {};
  auto it = summary.find("temperature_not_applied");
  if (it == summary.end() || !it->is_object() || !it->contains("models")) return {};
  return StringsOf(it->at("models")).value_or(std::vector<std::string>());
}

}  // namespace

absl::StatusOr<RebuildOutcome> RebuildResultsFolder(const std::string& dir, const std::optional<AidanPreset>& preset,
                                                    const std::optional<CorrelateOptions>& correlate) {
  const fs::path root(dir);
  std::vector<const BenchmarkEntry*> present;
  std::vector<std::string> rows_files;
  for (const BenchmarkEntry& entry : BenchmarkRegistry()) {
    rows_files.push_back(entry.rows_file);
    if (fs::exists(root / entry.rows_file)) present.push_back(&entry);
  }
  if (present.empty()) {
    return absl::NotFoundError(absl::StrCat(dir, " has no ", absl::StrJoin(rows_files, " or "),
                                            "; give a results folder written by run, coordinator or import"));
  }

  RebuildOutcome out;
  std::optional<Json> old_summary;
  const std::string summary_path = (root / kSummaryFileName).string();
  if (!fs::exists(summary_path)) {
    out.notes.push_back(absl::StrCat("no ", kSummaryFileName, " to keep calls, run and stop reasons from; ",
                                     present.front()->without_summary));
  } else if (absl::StatusOr<Json> summary = ReadJsonFile(summary_path); !summary.ok()) {
    out.notes.push_back(absl::StrCat("ignored the old ", kSummaryFileName, ": ", summary.status().message()));
  } else {
    old_summary = *std::move(summary);
  }

  // The run-dependent "calls" and "run" are kept once, with the first benchmark.
  std::vector<std::string> models;
  std::vector<std::string> helpers;
  for (const BenchmarkEntry* entry : present) {
    RebuildRequest request{(root / entry->rows_file).string(), old_summary.has_value() ? &*old_summary : nullptr,
                           /*keep_calls=*/out.parts.empty(), preset};
    ASSIGN_OR_RETURN(std::unique_ptr<BenchmarkResults> part, entry->rebuild(request, out.notes));
    for (const std::string& m : part->Models()) AppendUnique(models, m);
    for (const std::string& h : part->HelperModels()) helpers.push_back(h);
    out.parts.push_back(std::move(part));
  }
  std::optional<std::vector<std::string>> recorded =
      old_summary.has_value() ? SimulatedModelsOf(*old_summary) : std::nullopt;
  out.options.simulated_models = recorded.value_or(SimulatedModelIds(models, helpers));
  if (old_summary.has_value()) out.options.temperature_not_applied = TemperatureNotAppliedOf(*old_summary);
  out.options.correlate = correlate;
  const ResultsParts parts = PartsOf(out.parts);
  RETURN_IF_ERROR(WriteSweepSummaryFiles(dir, parts, out.options, &out.leaderboard));
  return out;
}

}  // namespace noveltygrid
