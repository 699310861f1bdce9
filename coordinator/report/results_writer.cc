#include "coordinator/report/results_writer.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <system_error>
#include <thread>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "common/call_cost.h"
#include "common/hashing.h"
#include "common/records_json.h"
#include "common/status_macros.h"
#include "coordinator/report/html_report.h"

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
  if (!options.temperature_not_applied.empty()) {
    absl::StrAppend(&out, "\nTemperature not applied to ", absl::StrJoin(options.temperature_not_applied, ", "), ": ",
                    kTemperatureNotAppliedNote, "\n");
  }
  return out;
}

}  // namespace

ResultsParts PartsOf(const std::vector<std::unique_ptr<BenchmarkResults>>& owned) {
  ResultsParts parts;
  for (const auto& part : owned) parts.push_back(part.get());
  return parts;
}

Json SummaryWithoutQuestions(const ResultsParts& parts, const ResultsOptions& options) {
  Json summary = Json::object();
  if (!options.simulated_models.empty()) {
    summary["simulated"] = true;
    summary["notice"] = kSimulatedNotice;
    summary["simulated_models"] = options.simulated_models;
  }
  if (!options.temperature_not_applied.empty()) {
    summary["temperature_not_applied"] =
        Json{{"models", options.temperature_not_applied}, {"note", kTemperatureNotAppliedNote}};
  }
  Json leaderboard = Json::object();
  for (const BenchmarkResults* part : parts) {
    summary[part->name()] = part->Section();
    leaderboard[part->name()] = part->Leaderboard();
  }
  summary["leaderboard"] = std::move(leaderboard);
  AddCallsAndRun(parts, options, summary);
  return summary;
}

namespace {

constexpr char kQuestionsAfter[] = "leaderboard";

// `pretty` (a value pretty-printed at indent 0) as it prints nested `indent` spaces deep.
std::string Nested(std::string pretty, int indent) {
  return absl::StrReplaceAll(pretty, {{"\n", "\n" + std::string(indent, ' ')}});
}

std::string PrettyValue(const Json& value) { return value.dump(2, ' ', false, Json::error_handler_t::replace); }

// summary.json, byte for byte DumpJsonPretty(SweepSummaryJson(...)), with each question table streamed
// a row at a time: a large sweep's table is never built whole.
absl::Status WriteSummaryJson(const ResultsParts& parts, const ResultsOptions& options, AtomicFileWriter& out) {
  absl::Status status;
  const auto write = [&](std::string_view piece) {
    if (status.ok()) status = out.Append(piece);
  };
  const Json summary = SummaryWithoutQuestions(parts, options);
  write("{");
  bool first = true;
  for (const auto& [key, value] : summary.items()) {
    write(absl::StrCat(first ? "\n  " : ",\n  ", DumpJson(key), ": ", Nested(PrettyValue(value), 2)));
    first = false;
    if (key != kQuestionsAfter) continue;
    bool any_table = false;
    for (const BenchmarkResults* part : parts) {
      bool first_row = true;
      const bool has_table = part->ForEachQuestionRow([&](const Json& row) {
        if (first_row) {
          write(absl::StrCat(any_table ? ",\n    " : ",\n  \"questions\": {\n    ", DumpJson(part->name()), ": ["));
        }
        write(absl::StrCat(first_row ? "\n      " : ",\n      ", Nested(PrettyValue(row), 6)));
        if (first_row) any_table = true;
        first_row = false;
      });
      if (has_table && first_row) {  // a table without rows
        write(absl::StrCat(any_table ? ",\n    " : ",\n  \"questions\": {\n    ", DumpJson(part->name()), ": []"));
        any_table = true;
      } else if (has_table) {
        write("\n    ]");
      }
    }
    if (any_table) write("\n  }");
  }
  write("\n}\n");
  return status;
}

}  // namespace

Json SweepSummaryJson(const ResultsParts& parts, const ResultsOptions& options) {
  Json questions = Json::object();
  for (const BenchmarkResults* part : parts) {
    Json table = Json::array();
    if (part->ForEachQuestionRow([&table](const Json& row) { table.push_back(row); })) {
      questions[part->name()] = std::move(table);
    }
  }
  Json rest = SummaryWithoutQuestions(parts, options);
  Json summary = Json::object();
  for (auto& [key, value] : rest.items()) {
    summary[key] = std::move(value);
    if (key == kQuestionsAfter && !questions.empty()) summary["questions"] = std::move(questions);
  }
  return summary;
}

std::string SweepLeaderboardText(const ResultsParts& parts, const ResultsOptions& options) {
  return LeaderboardText(parts, options);
}

namespace {

// `leaderboard` receives leaderboard.txt's text once it is written.
absl::Status WriteSummaryAndLeaderboard(const std::string& dir, const ResultsParts& parts,
                                        const ResultsOptions& options, std::string* leaderboard) {
  const std::filesystem::path root(dir);
  ASSIGN_OR_RETURN(std::unique_ptr<AtomicFileWriter> summary,
                   AtomicFileWriter::Create((root / kSummaryFileName).string()));
  RETURN_IF_ERROR(WriteSummaryJson(parts, options, *summary));
  RETURN_IF_ERROR(summary->Commit());
  std::string text = LeaderboardText(parts, options);
  RETURN_IF_ERROR(WriteFileAtomically((root / kLeaderboardFileName).string(), text));
  if (leaderboard != nullptr) *leaderboard = std::move(text);
  return absl::OkStatus();
}

}  // namespace

absl::Status WriteSweepSummaryFiles(const std::string& dir, const ResultsParts& parts, const ResultsOptions& options,
                                    std::string* leaderboard) {
  std::string written;
  RETURN_IF_ERROR(WriteSummaryAndLeaderboard(dir, parts, options, &written));
  RETURN_IF_ERROR(WriteHtmlReport(dir, parts, options));
  if (leaderboard != nullptr) *leaderboard = std::move(written);
  return absl::OkStatus();
}

namespace {

std::string RowsStampPath(const std::filesystem::path& root) { return (root / ".noveltygrid" / "rows.stamp").string(); }

// A rows file's size and modification time ({} when it is missing).
Json FileIdentity(const std::filesystem::path& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return Json::object();
  return Json{{"size", static_cast<int64_t>(st.st_size)},
              {"mtime_ns", static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec}};
}

// True when the rows file `name` is as written under `key` (see ResultsOptions::rows_key).
bool RowsUpToDate(const Json& stamp, const std::string& key, const std::filesystem::path& root,
                  const std::string& name) {
  if (key.empty() || !stamp.is_object() || stamp.value("key", "") != key) return false;
  const Json identity = FileIdentity(root / name);
  return !identity.empty() && stamp.contains("files") && stamp["files"].is_object() &&
         stamp["files"].value(name, Json::object()) == identity;
}

// The rows file of `part` at `path`, replaced atomically.
absl::Status WriteRowsFile(const std::string& path, const BenchmarkResults& part) {
  ASSIGN_OR_RETURN(std::unique_ptr<AtomicFileWriter> rows, AtomicFileWriter::Create(path));
  RETURN_IF_ERROR(part.WriteRows([&rows](std::string_view piece) { return rows->Append(piece); }));
  return rows->Commit();
}

// What report.html is drawn from besides the rows: the summary but for "run" (its seconds change on
// every re-open), the prices and the external leaderboard asked for, with its files as they are now. A page written
// under another key is drawn again.
std::string ReportKey(const ResultsParts& parts, const ResultsOptions& options) {
  Json summary = SummaryWithoutQuestions(parts, options);
  summary.erase("run");
  StableHasher hash;
  hash.Add(options.rows_key).Add(DumpJson(summary));
  for (const auto& [model, price] : options.prices) {
    hash.Add(model).Add(price.prompt_per_million).Add(price.completion_per_million);
  }
  if (options.correlate) {
    const CorrelateOptions& c = *options.correlate;
    hash.Add(c.leaderboard_path)
        .Add(c.columns.model)
        .Add(c.columns.score)
        .Add(c.map_path)
        .Add(c.benchmark)
        .Add(c.metric);
    hash.Add(DumpJson(FileIdentity(c.leaderboard_path))).Add(DumpJson(FileIdentity(c.map_path)));
  }
  return HexId(hash.Finish());
}

}  // namespace

absl::Status WriteSweepResults(const std::string& dir, const ResultsParts& parts, const ResultsOptions& options,
                               std::string* leaderboard) {
  if (parts.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("nothing to write to ", dir, ": no benchmark results"));
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return absl::InternalError(absl::StrCat("cannot create results folder ", dir, ": ", ec.message()));
  const std::filesystem::path root(dir);
  const std::string stamp_path = RowsStampPath(root);
  absl::StatusOr<Json> stamp = std::filesystem::exists(stamp_path) ? ReadJsonFile(stamp_path) : Json(nullptr);
  if (!stamp.ok()) stamp = Json(nullptr);  // a damaged stamp only costs a rewrite
  ResultsParts stale_rows;
  for (const BenchmarkResults* part : parts) {
    if (!RowsUpToDate(*stamp, options.rows_key, root, part->RowsFileName())) stale_rows.push_back(part);
  }
  if (!stale_rows.empty()) {  // no stamp may vouch for a rows file while it is being replaced
    std::filesystem::remove(stamp_path, ec);
    if (ec) return absl::InternalError(absl::StrCat("cannot remove ", stamp_path, ": ", ec.message()));
  }
  // report.html reads the answers again (its per-question plots), so it too is kept when its rows and
  // the page are as stamped: a finished sweep opened again reads nothing back.
  const std::string report_key = options.rows_key.empty() ? "" : ReportKey(parts, options);
  const bool report_fresh = stale_rows.empty() && RowsUpToDate(*stamp, options.rows_key, root, kReportFileName) &&
                            stamp->value("report_key", "") == report_key;
  // The files are independent (each reads the parts, which are snapshots): the summary and the page are
  // written on threads of their own while this one streams the rows, so a sweep's end waits for the
  // longest of them rather than their sum.
  absl::Status summary_written, report_written;
  std::string leaderboard_written;
  // jthreads: joined on every way out of this scope.
  std::jthread summary_thread(
      [&] { summary_written = WriteSummaryAndLeaderboard(dir, parts, options, &leaderboard_written); });
  std::jthread report_thread;
  if (!report_fresh) report_thread = std::jthread([&] { report_written = WriteHtmlReport(dir, parts, options); });
  absl::Status rows_written;
  for (const BenchmarkResults* part : stale_rows) {
    // Streamed: a large sweep's rows need not fit in memory (see coordinator/benchmarks/unit_source.h).
    rows_written = WriteRowsFile((root / part->RowsFileName()).string(), *part);
    if (!rows_written.ok()) break;
  }
  summary_thread.join();
  if (report_thread.joinable()) report_thread.join();  // (a rows error does not stop the other files)
  RETURN_IF_ERROR(rows_written);
  RETURN_IF_ERROR(summary_written);
  RETURN_IF_ERROR(report_written);
  if (options.rows_key.empty()) {
    std::filesystem::remove(stamp_path, ec);
  } else if (!report_fresh) {
    Json files = Json::object();
    for (const BenchmarkResults* part : parts) files[part->RowsFileName()] = FileIdentity(root / part->RowsFileName());
    files[kReportFileName] = FileIdentity(root / kReportFileName);
    std::filesystem::create_directories(root / ".noveltygrid", ec);
    RETURN_IF_ERROR(WriteFileAtomically(
        stamp_path, DumpJson(Json{{"key", options.rows_key}, {"files", files}, {"report_key", report_key}}) + "\n"));
  }
  if (leaderboard != nullptr) *leaderboard = std::move(leaderboard_written);
  return absl::OkStatus();
}

}  // namespace noveltygrid
