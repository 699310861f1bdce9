// The sweep config of a command that takes CONFIG.yaml (run, plan): loaded, with the --seed and
// --concurrency overrides applied (when the command has those flags and they are given).
#ifndef NOVELTYGRID_CLI_CONFIG_ARGS_H_
#define NOVELTYGRID_CLI_CONFIG_ARGS_H_

#include "absl/status/statusor.h"
#include "cli/args.h"
#include "common/config.h"

namespace noveltygrid::cli {

// The flags LoadConfigArgs reads.
inline FlagSpec SeedFlag() { return {"seed", "N", "override the config's seed"}; }
inline FlagSpec ConcurrencyFlag() { return {"concurrency", "N", "override the config's number of loops in flight"}; }

// InvalidArgument for a bad config or a bad override (--seed < 0, --concurrency < 1).
absl::StatusOr<SweepConfig> LoadConfigArgs(const ParsedArgs& args);

}  // namespace noveltygrid::cli

#endif  // NOVELTYGRID_CLI_CONFIG_ARGS_H_
