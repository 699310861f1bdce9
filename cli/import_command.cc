#include "cli/import_command.h"

#include <cstdio>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "cli/args.h"
#include "common/config.h"
#include "common/json_util.h"
#include "coordinator/reduce/aidan_import.h"
#include "coordinator/reduce/aidan_reducer.h"
#include "coordinator/report/results_writer.h"

namespace noveltygrid::cli {
namespace {

constexpr char kUsage[] = "import aidanbench FILE.json --out DIR [--preset reference-2025|paper-2024]";
constexpr char kSummary[] =
    "Scores a results file in the AidanBench reference layout\n"
    "({\"models\": {MODEL: {TEMP: {QUESTION: [answers]}}}}) and writes the same results folder as a run:\n"
    "answers.jsonl, summary.json and leaderboard.txt. The preset must match the judge scale the file was\n"
    "scored with (reference-2025: 0-100, paper-2024: 1-10). Importing NoveltyBench scores.jsonl arrives\n"
    "with issue 6.";

const std::vector<FlagSpec>& Flags() {
  static const auto* flags = new std::vector<FlagSpec>{
      {"out", "DIR", "results folder to write (created if missing)"},
      {"preset", "NAME", "scoring rules: reference-2025 (default) or paper-2024"},
  };
  return *flags;
}

int UsageError(const std::string& message) {
  std::fprintf(stderr, "noveltygrid import: %s\nUsage: noveltygrid %s (see --help)\n", message.c_str(),
               kUsage);
  return 2;
}

int Fail(const absl::Status& status) {
  std::fprintf(stderr, "noveltygrid import: %s\n", std::string(status.message()).c_str());
  return 1;
}

}  // namespace

int RunImportCommand(const std::vector<std::string>& args) {
  absl::StatusOr<ParsedArgs> parsed = ParseArgs(args, Flags());
  if (!parsed.ok()) return UsageError(std::string(parsed.status().message()));
  if (parsed->help) {
    std::fputs(HelpText(kUsage, kSummary, Flags()).c_str(), stdout);
    return 0;
  }
  const std::vector<std::string>& positional = parsed->positional;
  if (positional.empty()) return UsageError("name what to import: aidanbench FILE.json");
  if (positional[0] == "noveltybench") {
    std::fputs("noveltygrid import noveltybench: not supported yet (arrives with issue 6)\n", stderr);
    return 2;
  }
  if (positional[0] != "aidanbench") {
    return UsageError(absl::StrCat("unknown format '", positional[0], "'; expected aidanbench"));
  }
  if (positional.size() != 2) return UsageError("expected exactly one FILE.json after aidanbench");
  if (!parsed->Has("out") || parsed->Get("out").empty()) return UsageError("--out DIR is required");
  absl::StatusOr<AidanPreset> preset = FindAidanPreset(parsed->Get("preset", "reference-2025"));
  if (!preset.ok()) return UsageError(std::string(preset.status().message()));

  const std::string& file = positional[1];
  const std::string out = parsed->Get("out");
  absl::StatusOr<AidanImport> imported = ImportAidanReferenceFile(file, *preset);
  if (!imported.ok()) return Fail(imported.status());

  AidanReducer reducer(*preset, imported->models, imported->temperatures);
  for (AidanUnitResult& unit : imported->units) reducer.Add(std::move(unit));
  reducer.SetRunInfo(Json{{"command", "import aidanbench"}, {"source", file}});
  ResultsOptions options;
  options.simulated_models = SimulatedModelIds(imported->models, {});
  const AidanSnapshot snapshot = reducer.Snapshot();
  if (absl::Status written = WriteResultsFolder(out, snapshot, options); !written.ok()) return Fail(written);
  std::fputs(FormatLeaderboard(snapshot, options).c_str(), stdout);
  return 0;
}

}  // namespace noveltygrid::cli
