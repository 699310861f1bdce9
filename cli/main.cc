// noveltygrid: the one binary. Subcommands parse their own flags; nothing below main reads argv.
#include <cstdio>
#include <string>
#include <vector>

#include "cli/import_command.h"
#include "cli/report_command.h"
#include "cli/run_command.h"

namespace {

constexpr char kUsage[] =
    "Usage: noveltygrid COMMAND [ARGS]\n"
    "\n"
    "Measures how many different, good ideas language models produce (AidanBench, NoveltyBench).\n"
    "\n"
    "Commands:\n"
    "  run CONFIG.yaml --out DIR      run a whole sweep in this process\n"
    "  import aidanbench FILE --out DIR\n"
    "                                 score a results file in the AidanBench reference layout\n"
    "  report DIR                     rebuild summary.json and the leaderboard from a results folder\n"
    "\n"
    "Not available yet (planned): coordinator, worker, status (issue 3), serve-sim (issue 5),\n"
    "repartition and NoveltyBench import (issue 6).\n"
    "\n"
    "Run `noveltygrid COMMAND --help` for the flags of a command.\n";

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::fputs(kUsage, args.empty() ? stderr : stdout);
    return args.empty() ? 2 : 0;
  }
  const std::string command = args[0];
  args.erase(args.begin());
  if (command == "run") return noveltygrid::cli::RunRunCommand(args);
  if (command == "import") return noveltygrid::cli::RunImportCommand(args);
  if (command == "report") return noveltygrid::cli::RunReportCommand(args);
  if (command == "coordinator" || command == "worker" || command == "status" || command == "serve-sim" ||
      command == "repartition") {
    std::fprintf(stderr, "noveltygrid %s: not available in this build yet; see `noveltygrid --help`\n",
                 command.c_str());
    return 2;
  }
  std::fprintf(stderr, "noveltygrid: unknown command '%s'\n\n%s", command.c_str(), kUsage);
  return 2;
}
