#include <cstdio>
#include <optional>

#include "absl/status/status.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/leaderboard_flags.h"
#include "common/config.h"
#include "coordinator/report/results_reader.h"

namespace noveltygrid::cli {
namespace {

constexpr char kUsage[] = "report DIR [--preset reference-2025|paper-2024] [--leaderboard FILE.csv]";
constexpr char kSummary[] =
    "Rebuilds summary.json and leaderboard.txt of a results folder from its answers.jsonl (AidanBench)\n"
    "and/or samples.jsonl (NoveltyBench) and prints the leaderboard. \"calls\", \"run\", each question's stop\n"
    "reason and the NoveltyBench settings (patience, partitioner, ...) are kept from the existing summary.json.\n"
    "--preset re-scores the AidanBench answers under other rules (answers.jsonl is then rewritten too).\n"
    "report.html is written again too; --leaderboard adds its comparison with an external leaderboard.";

const std::vector<FlagSpec>& Flags() {
  static const auto* flags = [] {
    auto* all = new std::vector<FlagSpec>{
        {"preset", "NAME", "score with these rules instead of the recorded ones"},
    };
    for (FlagSpec& f : LeaderboardFlags()) all->push_back(std::move(f));
    return all;
  }();
  return *flags;
}

int UsageError(const std::string& message) {
  std::fprintf(stderr, "noveltygrid report: %s\nUsage: noveltygrid %s (see --help)\n", message.c_str(), kUsage);
  return 2;
}

}  // namespace

int RunReportCommand(const std::vector<std::string>& args) {
  int exit = 0;
  const std::optional<ParsedArgs> parsed = ParseOrHelp(args, Flags(), kUsage, kSummary, UsageError, &exit);
  if (!parsed) return exit;
  if (parsed->positional.size() != 1) return UsageError("expected exactly one results folder");
  std::optional<AidanPreset> preset;
  if (parsed->Has("preset")) {
    absl::StatusOr<AidanPreset> found = FindAidanPreset(parsed->Get("preset"));
    if (!found.ok()) return UsageError(std::string(found.status().message()));
    preset = *found;
  }
  absl::StatusOr<std::optional<CorrelateOptions>> leaderboard = LeaderboardOption(*parsed);
  if (!leaderboard.ok()) return UsageError(std::string(leaderboard.status().message()));
  absl::StatusOr<RebuildOutcome> rebuilt = RebuildResultsFolder(parsed->positional[0], preset, *leaderboard);
  if (!rebuilt.ok()) {
    std::fprintf(stderr, "noveltygrid report: %s\n", std::string(rebuilt.status().message()).c_str());
    return 1;
  }
  for (const std::string& note : rebuilt->notes) {
    std::fprintf(stderr, "noveltygrid report: note: %s\n", note.c_str());
  }
  std::fputs(rebuilt->leaderboard.c_str(), stdout);
  return 0;
}

}  // namespace noveltygrid::cli
