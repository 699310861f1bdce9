// The flags `import noveltybench` and `repartition` share: how recorded rows become samples.
#ifndef NOVELTYGRID_CLI_NOVELTYBENCH_FLAGS_H_
#define NOVELTYGRID_CLI_NOVELTYBENCH_FLAGS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cli/args.h"
#include "coordinator/benchmarks/noveltybench/noveltybench_results.h"

namespace noveltygrid::cli {

// --patience P and --temperature T.
std::vector<FlagSpec> NoveltySourceFlags();

// InvalidArgument naming the flag for a value that is not a number in range.
absl::StatusOr<NoveltySourceOptions> NoveltySourceOptionsFromArgs(const ParsedArgs& args);

// Writes the results folder (and agreement.json when `agreement` is an object), prints the
// leaderboard on stdout; 0, or 1 with the error on stderr prefixed with `command`.
int WriteNoveltyFolder(const std::string& command, const std::string& dir, const NoveltyResults& results,
                       const Json& agreement = Json());

}  // namespace noveltygrid::cli

#endif  // NOVELTYGRID_CLI_NOVELTYBENCH_FLAGS_H_
