// `noveltygrid correlate`: a results folder's leaderboard against an external one.
#include <cstdio>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "common/json_util.h"
#include "common/records.h"
#include "coordinator/report/correlate/correlation_output.h"
#include "coordinator/report/correlate/leaderboard_correlation.h"
#include "coordinator/report/results_files.h"

namespace noveltygrid::cli {
namespace {

constexpr char kUsage[] =
    "correlate DIR LEADERBOARD.csv [--column NAME] [--model-column NAME] [--map MAP.csv]\n"
    "       [--benchmark aidanbench|noveltybench] [--metric NAME] [--json]";
constexpr char kSummary[] =
    "Rank correlation between the per-model scores of DIR/summary.json's leaderboard (AidanBench: valid\n"
    "answers at the best temperature; NoveltyBench: mean utility) and a column of an external leaderboard\n"
    "CSV: Spearman rho, Kendall tau-b (both with ties), Pearson r and R^2 over the models on both, with\n"
    "the pairs, their ranks and the unmatched names. Models match by exact name, or through --map: a CSV\n"
    "with a header row and rows `sweep_model,leaderboard_model`. At least 3 models must match. The CSV's\n"
    "model column is the first named model or name (any case); its score column the first numeric one not\n"
    "named rank...; rows whose score is not a number are skipped and listed. No p-values.";

const std::vector<FlagSpec>& Flags() {
  static const auto* flags = new std::vector<FlagSpec>{
      {"column", "NAME", "the leaderboard's score column (default: the first numeric one)"},
      {"model-column", "NAME", "the leaderboard's model column (default: the first named model or name)"},
      {"map", "MAP.csv", "sweep model -> leaderboard name, one `sweep_model,leaderboard_model` row each"},
      {"benchmark", "NAME", "aidanbench or noveltybench (default: the folder's first leaderboard)"},
      {"metric", "NAME", "another numeric field of the sweep's leaderboard entries (e.g. novelty_sum)"},
      {"json", "", "print JSON instead of text"},
  };
  return *flags;
}

int UsageError(const std::string& message) {
  std::fprintf(stderr, "noveltygrid correlate: %s\nUsage: noveltygrid %s (see --help)\n", message.c_str(), kUsage);
  return 2;
}

int Fail(const absl::Status& status) {
  std::fprintf(stderr, "noveltygrid correlate: %s\n", std::string(status.message()).c_str());
  return 1;
}

}  // namespace

int RunCorrelateCommand(const std::vector<std::string>& args) {
  int exit = 0;
  const std::optional<ParsedArgs> parsed = ParseOrHelp(args, Flags(), kUsage, kSummary, UsageError, &exit);
  if (!parsed) return exit;
  if (parsed->positional.size() != 2) return UsageError("expected a results folder and a leaderboard CSV");
  CorrelateOptions options;
  options.leaderboard_path = parsed->positional[1];
  options.columns.score = parsed->Get("column");
  options.columns.model = parsed->Get("model-column");
  options.map_path = parsed->Get("map");
  options.benchmark = parsed->Get("benchmark");
  options.metric = parsed->Get("metric");
  if (parsed->Has("benchmark") && HeadlineMetric(options.benchmark).empty()) {
    return UsageError(
        absl::StrCat("unknown --benchmark '", options.benchmark, "'; expected ", kAidanBench, " or ", kNoveltyBench));
  }
  const std::string summary_path = (std::filesystem::path(parsed->positional[0]) / kSummaryFileName).string();
  absl::StatusOr<Json> summary = ReadJsonFile(summary_path);
  if (!summary.ok()) return Fail(summary.status());
  absl::StatusOr<Correlation> correlation = CorrelateWithLeaderboard(*summary, options);
  if (!correlation.ok()) return Fail(correlation.status());
  if (parsed->Has("json")) {
    std::printf("%s\n", DumpJsonPretty(CorrelationJson(*correlation)).c_str());
  } else {
    std::fputs(CorrelationText(*correlation).c_str(), stdout);
  }
  return 0;
}

}  // namespace noveltygrid::cli
