#include "cli/leaderboard_flags.h"

#include "absl/strings/str_cat.h"
#include "coordinator/report/correlate/external_leaderboard.h"

namespace noveltygrid::cli {

std::vector<FlagSpec> LeaderboardFlags() {
  return {
      {"leaderboard", "FILE.csv", "an external leaderboard: report.html adds its rank correlation and scatter"},
      {"leaderboard-column", "NAME", "its score column (default: the first numeric one; see `correlate`)"},
      {"leaderboard-map", "MAP.csv", "sweep model -> leaderboard name rows, when the names differ"},
  };
}

absl::StatusOr<std::optional<CorrelateOptions>> LeaderboardOption(const ParsedArgs& args) {
  if (!args.Has("leaderboard")) {
    for (const char* companion : {"leaderboard-column", "leaderboard-map"}) {
      if (args.Has(companion)) return absl::InvalidArgumentError(absl::StrCat("--", companion, " needs --leaderboard"));
    }
    return std::nullopt;
  }
  CorrelateOptions options;
  options.leaderboard_path = args.Get("leaderboard");
  options.columns.score = args.Get("leaderboard-column");
  options.map_path = args.Get("leaderboard-map");
  if (absl::StatusOr<ExternalLeaderboard> read = ReadExternalLeaderboard(options.leaderboard_path, options.columns);
      !read.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--leaderboard: ", read.status().message()));
  }
  if (!options.map_path.empty()) {
    if (absl::StatusOr<ModelNameMap> map = ReadModelNameMap(options.map_path); !map.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("--leaderboard-map: ", map.status().message()));
    }
  }
  return options;
}

}  // namespace noveltygrid::cli
