// noveltygrid: the one binary. Subcommands parse their own flags; nothing below main reads argv.
#include <cstdio>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "cli/commands.h"
#include "cli/signals.h"
#include "common/open_files.h"

namespace {

constexpr char kUsage[] =
    "Usage: noveltygrid COMMAND [ARGS]\n"
    "\n"
    "Measures how many different, good ideas language models produce (AidanBench, NoveltyBench).\n"
    "\n"
    "Commands:\n"
    "  run CONFIG.yaml --out DIR      run a whole sweep (AidanBench and/or NoveltyBench) in this process\n"
    "  plan CONFIG.yaml [--out DIR]   units to run and their estimated requests, tokens, dollars, time\n"
    "  import aidanbench FILE --out DIR\n"
    "                                 score a results file in the AidanBench reference layout\n"
    "  import noveltybench FILE.jsonl --out DIR\n"
    "                                 rescore a NoveltyBench scores.jsonl (distinct, utility)\n"
    "  export DIR --format aidanbench|noveltybench --out PATH\n"
    "                                 write a results folder in a benchmark's reference layout\n"
    "  repartition FILE.jsonl --partitioner unigram|--config CONFIG.yaml --out DIR\n"
    "                                 re-partition recorded NoveltyBench generations; agreement.json\n"
    "  coordinator --config CONFIG.yaml --listen HOST:PORT --out DIR\n"
    "                                 serve a sweep's units to workers over gRPC\n"
    "  worker --coordinator HOST:PORT lease and run units\n"
    "  status --coordinator HOST:PORT units done / leased / pending per model, workers alive\n"
    "  report DIR                     rebuild summary.json and the leaderboard from a results folder\n"
    "  correlate DIR LEADERBOARD.csv  rank correlation (Spearman, Kendall, Pearson) with an external leaderboard\n"
    "  serve-sim --listen HOST:PORT   the simulated models behind an OpenAI-compatible HTTP API\n"
    "\n"
    "A sweep config may hold AidanBench, NoveltyBench or both (see examples/both-benchmarks.yaml).\n"
    "\n"
    "Run `noveltygrid COMMAND --help` for the flags of a command.\n";

}  // namespace

int main(int argc, char** argv) {
  // Debian's Abseil is built without NDEBUG, so every mutex lock would update a global deadlock graph
  // (measured: 2.5% of a busy worker's instructions). The code is checked under tests and sanitizers.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::fputs(kUsage, args.empty() ? stderr : stdout);
    return args.empty() ? 2 : 0;
  }
  const std::string command = args[0];
  if (command == "run" || command == "coordinator" || command == "worker" || command == "serve-sim") {
    // Before any thread starts (gRPC's included): these handle SIGTERM/SIGINT in one thread, to drain.
    noveltygrid::cli::BlockTerminationSignals();
    // A connection per request in flight (HTTP/1.1): thousands of loops need thousands of descriptors,
    // more than a soft limit of 1,024 allows. The hard limit is the system's say.
    noveltygrid::RaiseOpenFileLimit();
  }
  args.erase(args.begin());
  if (command == "run") return noveltygrid::cli::RunRunCommand(args);
  if (command == "plan") return noveltygrid::cli::RunPlanCommand(args);
  if (command == "import") return noveltygrid::cli::RunImportCommand(args);
  if (command == "export") return noveltygrid::cli::RunExportCommand(args);
  if (command == "report") return noveltygrid::cli::RunReportCommand(args);
  if (command == "correlate") return noveltygrid::cli::RunCorrelateCommand(args);
  if (command == "coordinator") return noveltygrid::cli::RunCoordinatorCommand(args);
  if (command == "worker") return noveltygrid::cli::RunWorkerCommand(args);
  if (command == "status") return noveltygrid::cli::RunStatusCommand(args);
  if (command == "serve-sim") return noveltygrid::cli::RunServeSimCommand(args);
  if (command == "repartition") return noveltygrid::cli::RunRepartitionCommand(args);
  std::fprintf(stderr, "noveltygrid: unknown command '%s'\n\n%s", command.c_str(), kUsage);
  return 2;
}
