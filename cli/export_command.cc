// `noveltygrid export`: a results folder's rows in a benchmark's reference layout, through the
// benchmark registry's export_reference.
#include <cstdio>
#include <filesystem>
#include <optional>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "common/json_util.h"
#include "coordinator/benchmarks/registry.h"
#include "coordinator/report/results_files.h"

namespace noveltygrid::cli {
namespace {

namespace fs = std::filesystem;

constexpr char kUsage[] = "export DIR --format aidanbench|noveltybench --out PATH [--repeat N] [--force]";
constexpr char kSummary[] =
    "Writes a results folder's rows in the reference implementation's layout, for the reference's tools\n"
    "and for `import`, which reads them back to the same summary numbers.\n"
    "\n"
    "  aidanbench    DIR/answers.jsonl -> the file PATH: {\"models\": {MODEL: {TEMP: {QUESTION: [answers]}}}},\n"
    "                each answer {answer_num, answer, embedding_dissimilarity_score (novelty), coherence_score,\n"
    "                processing_time, [llm_dissimilarity_score]}. processing_time is null (results folders\n"
    "                keep no timings). An answer that ended its question in an error is left out (the\n"
    "                reference stored none): valid answers and score sums are unchanged. Question ids and\n"
    "                stop reasons are not in the layout; import derives them. Import with the results'\n"
    "                --preset.\n"
    "  noveltybench  DIR/samples.jsonl -> PATH/[DATASET/][MODE/][T<TEMP>/]MODEL/ with scores.jsonl and\n"
    "                summary.json {mean_distinct, mean_utility}; a level only where the results hold more\n"
    "                than one value of it, a \"/\" in MODEL nests folders. Rows are the reference's {id,\n"
    "                prompt, model, generations, partition, distinct (classes), generation_scores,\n"
    "                partition_scores, utility}, with \"temperature\" when it is not 1.0 (the reference's,\n"
    "                which import assumes). Failed units (no partition) are left out. Import each\n"
    "                scores.jsonl with the results' --patience.\n"
    "\n"
    "The layouts hold one pass: the rows of repeat 0 are written (--repeat N for another), the other\n"
    "repeats left out. PATH must not exist (an empty folder is fine) unless --force, which replaces the\n"
    "files the export writes and leaves anything else in PATH alone. Notes on stderr say what was left\n"
    "out and what import needs; stdout lists the files written. Exit 0, 1 on a failure (DIR without the\n"
    "format's rows file, malformed rows, PATH existing or unwritable), 2 on bad usage.";

const std::vector<FlagSpec>& Flags() {
  static const auto* flags = new std::vector<FlagSpec>{
      {"format", "NAME", "the reference layout: aidanbench or noveltybench"},
      {"out", "PATH", "the file (aidanbench) or folder (noveltybench) to write"},
      {"repeat", "N", "which repeat to write (default 0)"},
      {"force", "", "write even when PATH exists"},
  };
  return *flags;
}

int UsageError(const std::string& message) {
  std::fprintf(stderr, "noveltygrid export: %s\nUsage: noveltygrid %s (see --help)\n", message.c_str(), kUsage);
  return 2;
}

int Fail(const std::string& message) {
  std::fprintf(stderr, "noveltygrid export: %s\n", message.c_str());
  return 1;
}

// Why `dir` cannot be exported as `entry`'s format, naming the formats it does hold.
std::string MissingRows(const std::string& dir, const BenchmarkEntry& entry) {
  std::vector<std::string> held;
  for (const BenchmarkEntry& other : BenchmarkRegistry()) {
    if (fs::exists(fs::path(dir) / other.rows_file)) held.push_back(other.name);
  }
  std::string message = absl::StrCat(dir, " has no ", entry.rows_file, ": it holds no ", entry.name, " results");
  if (!held.empty())
    absl::StrAppend(&message, " (it holds ", absl::StrJoin(held, ", "), "; try --format ", held[0], ")");
  return message;
}

// Empty when `out` may be written: absent, an empty folder, or `force`.
std::string OutProblem(const std::string& out, bool force) {
  std::error_code ec;
  if (!fs::exists(out, ec) || force) return "";
  if (fs::is_directory(out, ec) && fs::is_empty(out, ec)) return "";
  return absl::StrCat(out, " exists; choose another --out, or pass --force to replace the files the export writes");
}

}  // namespace

int RunExportCommand(const std::vector<std::string>& args) {
  int exit = 0;
  const std::optional<ParsedArgs> parsed = ParseOrHelp(args, Flags(), kUsage, kSummary, UsageError, &exit);
  if (!parsed) return exit;
  if (parsed->positional.size() != 1) return UsageError("expected exactly one results folder DIR");
  const std::string format = parsed->Get("format");
  std::vector<std::string> formats;
  const BenchmarkEntry* entry = nullptr;
  for (const BenchmarkEntry& e : BenchmarkRegistry()) {
    formats.push_back(e.name);
    if (e.name == format) entry = &e;
  }
  if (format.empty()) return UsageError(absl::StrCat("--format is required: ", absl::StrJoin(formats, " or ")));
  if (entry == nullptr) {
    return UsageError(absl::StrCat("unknown format '", format, "'; expected ", absl::StrJoin(formats, " or ")));
  }
  const std::string out = parsed->Get("out");
  if (out.empty()) return UsageError("--out PATH is required");
  absl::StatusOr<long long> repeat = parsed->GetInt("repeat", 0);
  if (!repeat.ok()) return UsageError(std::string(repeat.status().message()));
  if (*repeat < 0 || *repeat > 1'000'000) return UsageError(absl::StrCat("--repeat expects 0 or more, got ", *repeat));

  const std::string& dir = parsed->positional[0];
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return Fail(absl::StrCat(dir, " is not a folder; give a results folder"));
  const fs::path rows = fs::path(dir) / entry->rows_file;
  if (!fs::exists(rows, ec)) return Fail(MissingRows(dir, *entry));
  if (const std::string problem = OutProblem(out, parsed->Has("force")); !problem.empty()) return Fail(problem);

  std::vector<std::string> notes;
  std::optional<Json> summary;
  const fs::path summary_path = fs::path(dir) / kSummaryFileName;
  if (fs::exists(summary_path, ec)) {
    absl::StatusOr<Json> read = ReadJsonFile(summary_path.string());
    if (read.ok()) {
      summary = *std::move(read);
    } else {
      notes.push_back(absl::StrCat("ignored ", kSummaryFileName, ": ", read.status().message()));
    }
  }
  const ExportRequest request{rows.string(), out, summary.has_value() ? &*summary : nullptr, static_cast<int>(*repeat)};
  absl::StatusOr<ExportOutcome> exported = entry->export_reference(request);
  if (!exported.ok()) return Fail(std::string(exported.status().message()));
  for (const std::string& note : exported->notes) notes.push_back(note);
  for (const std::string& note : notes) std::fprintf(stderr, "noveltygrid export: note: %s\n", note.c_str());
  for (const std::string& file : exported->written) std::printf("wrote %s\n", file.c_str());
  return 0;
}

}  // namespace noveltygrid::cli
