// --leaderboard FILE [--leaderboard-column NAME] [--leaderboard-map MAP.csv]: an external leaderboard that
// report.html compares the sweep's model scores with (a correlation section and scatter), for `run`,
// `coordinator` and `report`. `noveltygrid correlate` prints the same comparison on its own.
#ifndef NOVELTYGRID_CLI_LEADERBOARD_FLAGS_H_
#define NOVELTYGRID_CLI_LEADERBOARD_FLAGS_H_

#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "cli/args.h"
#include "coordinator/report/correlate/leaderboard_correlation.h"

namespace noveltygrid::cli {

// The three flags, to append to a command's own.
std::vector<FlagSpec> LeaderboardFlags();

// The comparison the flags ask for; nullopt without --leaderboard. InvalidArgument when a companion flag
// comes without --leaderboard, or when the leaderboard or the map cannot be read or has no usable column
// -- checked when the command starts, so a long sweep does not end with a page that could not compare.
absl::StatusOr<std::optional<CorrelateOptions>> LeaderboardOption(const ParsedArgs& args);

}  // namespace noveltygrid::cli

#endif  // NOVELTYGRID_CLI_LEADERBOARD_FLAGS_H_
