#include "cli/config_args.h"

namespace noveltygrid::cli {

absl::StatusOr<SweepConfig> LoadConfigArgs(const ParsedArgs& args) {
  absl::StatusOr<SweepConfig> config = LoadSweepConfig(args.positional.at(0));
  if (!config.ok()) return absl::InvalidArgumentError(config.status().message());
  absl::StatusOr<long long> seed = args.GetInt("seed", static_cast<long long>(config->seed));
  absl::StatusOr<long long> concurrency = args.GetInt("concurrency", config->concurrency);
  if (!seed.ok()) return seed.status();
  if (!concurrency.ok()) return concurrency.status();
  if (*seed < 0 || *concurrency < 1) return absl::InvalidArgumentError("--seed must be >= 0, --concurrency >= 1");
  config->seed = static_cast<uint64_t>(*seed);
  config->concurrency = static_cast<int>(*concurrency);
  return config;
}

}  // namespace noveltygrid::cli
