#include <cstdio>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/noveltybench_flags.h"
#include "common/config.h"
#include "common/json_util.h"
#include "common/noveltybench/rows.h"
#include "coordinator/benchmarks/aidanbench/aidan_import.h"
#include "coordinator/benchmarks/aidanbench/aidan_reducer.h"
#include "coordinator/benchmarks/aidanbench/aidan_results.h"

namespace noveltygrid::cli {
namespace {

constexpr char kUsage[] =
    "import aidanbench FILE.json --out DIR [--preset reference-2025|paper-2024]\n"
    "       noveltygrid import noveltybench FILE.jsonl --out DIR [--patience P] [--temperature T]";
constexpr char kSummary[] =
    "Scores a results file in the AidanBench reference layout\n"
    "({\"models\": {MODEL: {TEMP: {QUESTION: [answers]}}}}) and writes the same results folder as a run:\n"
    "answers.jsonl, summary.json and leaderboard.txt. The preset must match the judge scale the file was\n"
    "scored with (reference-2025: 0-100, paper-2024: 1-10). `import noveltybench --help` for NoveltyBench.";

constexpr char kNoveltyUsage[] = "import noveltybench FILE.jsonl --out DIR [--patience P] [--temperature T]";
constexpr char kNoveltySummary[] =
    "Recomputes distinct and utility for every row of a NoveltyBench scores.jsonl (the reference's\n"
    "layout: {id, prompt, model, generations, partition, generation_scores, ...}; a samples.jsonl is\n"
    "read too) from the row's recorded partition and quality, and writes the same results folder as a\n"
    "run: samples.jsonl, summary.json and leaderboard.txt. generation_scores must be the reference's\n"
    "quality buckets (1..10 where a generation opens a class, 0 elsewhere). distinct counts classes, as\n"
    "the reference's summary does (its per-row \"distinct\" field is classes - 1). The reference's\n"
    "scores.jsonl records no temperature; its runs sample at 1.0, which is assumed unless --temperature\n"
    "says otherwise (summary.json: \"temperature_assumed\").";

const std::vector<FlagSpec>& Flags() {
  static const auto* flags = new std::vector<FlagSpec>{
      {"out", "DIR", "results folder to write (created if missing)"},
      {"preset", "NAME", "scoring rules: reference-2025 (default) or paper-2024"},
  };
  return *flags;
}

int UsageError(const std::string& message, const char* usage = kUsage) {
  std::fprintf(stderr, "noveltygrid import: %s\nUsage: noveltygrid %s (see --help)\n", message.c_str(), usage);
  return 2;
}

int Fail(const absl::Status& status) {
  std::fprintf(stderr, "noveltygrid import: %s\n", std::string(status.message()).c_str());
  return 1;
}

// `import noveltybench ...`; `args` is everything after "noveltybench".
int RunImportNoveltyBench(const std::vector<std::string>& args) {
  std::vector<FlagSpec> flags = {{"out", "DIR", "results folder to write (created if missing)"}};
  for (FlagSpec& f : NoveltySourceFlags()) flags.push_back(std::move(f));
  int exit = 0;
  const std::optional<ParsedArgs> parsed = ParseOrHelp(
      args, flags, kNoveltyUsage, kNoveltySummary,
      [](const std::string& message) { return UsageError(message, kNoveltyUsage); }, &exit);
  if (!parsed) return exit;
  if (parsed->positional.size() != 1)
    return UsageError("expected exactly one FILE.jsonl after noveltybench", kNoveltyUsage);
  if (parsed->Get("out").empty()) return UsageError("--out DIR is required", kNoveltyUsage);
  absl::StatusOr<NoveltySourceOptions> options = NoveltySourceOptionsFromArgs(*parsed);
  if (!options.ok()) return UsageError(std::string(options.status().message()), kNoveltyUsage);

  const std::string& file = parsed->positional[0];
  absl::StatusOr<std::vector<noveltybench::NoveltyRow>> rows = noveltybench::ReadNoveltyRows(file);
  if (!rows.ok()) return Fail(rows.status());
  absl::StatusOr<NoveltyResults> results = ScoreRecordedRows(*std::move(rows), *options);
  if (!results.ok()) return Fail(results.status());
  results->run = Json{{"command", "import noveltybench"}, {"source", file}};
  return WriteNoveltyFolder("import", parsed->Get("out"), *results);
}

}  // namespace

int RunImportCommand(const std::vector<std::string>& args) {
  // NoveltyBench has flags of its own; dispatch before parsing with the AidanBench ones.
  if (!args.empty() && args[0] == "noveltybench") {
    return RunImportNoveltyBench(std::vector<std::string>(args.begin() + 1, args.end()));
  }
  int exit = 0;
  const std::optional<ParsedArgs> parsed = ParseOrHelp(
      args, Flags(), kUsage, kSummary, [](const std::string& message) { return UsageError(message); }, &exit);
  if (!parsed) return exit;
  const std::vector<std::string>& positional = parsed->positional;
  if (positional.empty()) return UsageError("name what to import: aidanbench FILE.json or noveltybench FILE.jsonl");
  if (positional[0] == "noveltybench") return UsageError("put noveltybench first: import noveltybench FILE.jsonl ...");
  if (positional[0] != "aidanbench") {
    return UsageError(absl::StrCat("unknown format '", positional[0], "'; expected aidanbench or noveltybench"));
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
  for (UnitResult& unit : imported->units) reducer.Add(std::move(unit));
  reducer.SetRunInfo(Json{{"command", "import aidanbench"}, {"source", file}});
  ResultsOptions options;
  options.simulated_models = SimulatedModelIds(imported->models, {});
  const AidanSnapshot snapshot = reducer.Snapshot();
  if (absl::Status written = WriteResultsFolder(out, snapshot, options); !written.ok()) return Fail(written);
  std::fputs(FormatLeaderboard(snapshot, options).c_str(), stdout);
  return 0;
}

}  // namespace noveltygrid::cli
