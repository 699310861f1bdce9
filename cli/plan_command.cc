// `noveltygrid plan`: what a sweep will run and cost, read from its results folder or Redis without
// changing either.
#include <cstdio>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/config_args.h"
#include "common/config.h"
#include "common/storage/store_factory.h"
#include "coordinator/sweep_coordinator.h"

namespace noveltygrid::cli {
namespace {

const std::vector<FlagSpec>& Flags() {
  static const auto* flags = new std::vector<FlagSpec>{
      {"out", "DIR", "results folder whose journal holds the committed units (read only)"},
      {"redis", "URL", "the committed units in Redis instead (default $NOVELTYGRID_REDIS_URL; read only)"},
      SeedFlag(),
      ConcurrencyFlag(),
      {"json", "", "print JSON instead of a table"},
  };
  return *flags;
}

int Fail(const absl::Status& status, int code) {
  std::fprintf(stderr, "noveltygrid plan: %s\n", std::string(status.message()).c_str());
  return code;
}

}  // namespace

int RunPlanCommand(const std::vector<std::string>& raw_args) {
  const std::string usage = "plan CONFIG.yaml [--out DIR] [--redis URL] [--seed N] [--concurrency N] [--json]";
  const std::string summary =
      "Per benchmark and model: units total, already committed and to run, with the estimated requests,\n"
      "prompt and completion tokens, dollars (prices:) and wall time of the units to run. Changes nothing.";
  int exit = 0;
  const std::optional<ParsedArgs> args = ParseConfigCommand("plan", raw_args, Flags(), usage, summary, &exit);
  if (!args) return exit;
  absl::StatusOr<SweepConfig> config = LoadConfigArgs(*args);
  if (!config.ok()) return Fail(config.status(), 2);
  std::unique_ptr<Store> store;
  if (const std::string url = args->GetOrEnv("redis", "NOVELTYGRID_REDIS_URL"); !url.empty()) {
    absl::StatusOr<std::unique_ptr<Store>> opened = OpenStore(url);
    if (!opened.ok()) return Fail(opened.status(), absl::IsInvalidArgument(opened.status()) ? 2 : 1);
    store = std::move(*opened);
  }
  absl::StatusOr<PlanEstimate> estimate = EstimateSweep(*config, args->Get("out"), store.get());
  if (!estimate.ok()) return Fail(estimate.status(), 1);
  if (args->Has("json")) {
    std::printf("%s\n", PlanJson(*estimate).dump(2).c_str());
  } else {
    std::fputs(PlanTable(*estimate).c_str(), stdout);
    std::printf("%s\n", PlanLine(*estimate).c_str());
  }
  return 0;
}

}  // namespace noveltygrid::cli
