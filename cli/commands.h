// The entry points of the `noveltygrid` subcommands, one per command. Each takes everything after the
// command's name, prints its own usage and errors, and returns the process exit code: 0 on success,
// 1 on a failure, 2 on bad usage unless said otherwise.
#ifndef NOVELTYGRID_CLI_COMMANDS_H_
#define NOVELTYGRID_CLI_COMMANDS_H_

#include <string>
#include <vector>

namespace noveltygrid::cli {

// `run` and `coordinator`: the budget (budget_usd:, budgets:) stopped the sweep; what is committed is
// written and a re-run with a higher budget continues.
inline constexpr int kExitBudget = 3;

// `noveltygrid run CONFIG.yaml --out DIR [--seed N] [--concurrency N]`: the whole sweep in this process.
int RunRunCommand(const std::vector<std::string>& args);

// `noveltygrid plan CONFIG.yaml [--out DIR] [--redis URL] [--json]`: units and estimated cost of a sweep
// (cli/plan_command.cc); read only. 0, 1 on a failure (unreadable journal, Redis), 2 on bad usage.
int RunPlanCommand(const std::vector<std::string>& args);

// The cluster (cli/cluster_commands.cc).
// `noveltygrid coordinator --config CONFIG.yaml --listen HOST:PORT --out DIR`
int RunCoordinatorCommand(const std::vector<std::string>& args);
// `noveltygrid worker --coordinator HOST:PORT [--concurrency N]`
int RunWorkerCommand(const std::vector<std::string>& args);
// `noveltygrid status --coordinator HOST:PORT`
int RunStatusCommand(const std::vector<std::string>& args);

// `noveltygrid import aidanbench FILE.json --out DIR [--preset reference-2025|paper-2024]`: turn results
// recorded elsewhere into a NoveltyGrid results folder. Writes the results folder, prints the
// leaderboard and returns 0; 1 on a failure (unreadable or malformed file, unwritable folder), 2 on bad
// usage.
int RunImportCommand(const std::vector<std::string>& args);

// `noveltygrid export DIR --format aidanbench|noveltybench --out PATH [--repeat N] [--force]`: a results
// folder's rows in the benchmark's reference layout (the registry's export_reference), which `import`
// reads back to the same summary numbers. Lists the files written on stdout, notes on what the layout
// could not hold on stderr, and returns 0; 1 on a failure (DIR without the format's rows file,
// malformed rows, PATH existing without --force, unwritable PATH), 2 on bad usage (unknown format).
int RunExportCommand(const std::vector<std::string>& args);

// `noveltygrid report DIR [--preset NAME]`: rebuild summary.json and leaderboard.txt from a results
// folder. Prints the leaderboard and returns 0; 1 on a failure, 2 on bad usage.
int RunReportCommand(const std::vector<std::string>& args);

// `noveltygrid correlate DIR LEADERBOARD.csv [--column NAME] [--model-column NAME] [--map MAP.csv]
// [--benchmark NAME] [--metric NAME] [--json]`: Spearman, Kendall tau-b and Pearson between DIR's
// leaderboard and an external one (cli/correlate_command.cc). Prints them and the matched pairs and
// returns 0; 1 on a failure (unreadable or malformed file, fewer than 3 models matched, a constant
// side), 2 on bad usage.
int RunCorrelateCommand(const std::vector<std::string>& args);

// `noveltygrid repartition FILE.jsonl --out DIR [--partitioner NAME] [--config CONFIG.yaml]
// [--threshold T] [--redis URL] [--patience P] [--temperature T]`: re-partition recorded NoveltyBench
// generations with another partitioner, without generating again, and say how far the new partitions
// agree with the recorded ones. unigram runs offline; classifier, embedding and llm take their settings
// and model from the config's noveltybench: section and ask the model for every row, 32 rows at a time.
// Writes the results folder and agreement.json, prints the leaderboard and the agreement, returns 0; 1
// on a failure (unreadable or malformed file, a failed model call -- named by the row's FILE:LINE --,
// Redis unreachable, unwritable folder); 2 on bad usage: a model-backed partitioner without --config,
// a config without noveltybench:, a --partitioner the config contradicts, a partition model that
// cannot be built (unknown id, provider key not set).
int RunRepartitionCommand(const std::vector<std::string>& args);

// `noveltygrid serve-sim`: the simulated model family behind an OpenAI-compatible HTTP API (see
// sim_server/sim_server.h for the endpoints, faults and latency it simulates). Serves until SIGTERM or
// SIGINT (main must have blocked them with BlockTerminationSignals), then exits 0. Exit 2 for bad
// flags, 1 when the address cannot be bound.
int RunServeSimCommand(const std::vector<std::string>& args);

}  // namespace noveltygrid::cli

#endif  // NOVELTYGRID_CLI_COMMANDS_H_
