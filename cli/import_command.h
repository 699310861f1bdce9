// `noveltygrid import`: turn results recorded elsewhere into a NoveltyGrid results folder.
#ifndef NOVELTYGRID_CLI_IMPORT_COMMAND_H_
#define NOVELTYGRID_CLI_IMPORT_COMMAND_H_

#include <string>
#include <vector>

namespace noveltygrid::cli {

// `noveltygrid import aidanbench FILE.json --out DIR [--preset reference-2025|paper-2024]`; `args` is
// everything after "import". Writes the results folder, prints the leaderboard and returns 0; 1 on a
// failure (unreadable or malformed file, unwritable folder), 2 on bad usage.
int RunImportCommand(const std::vector<std::string>& args);

}  // namespace noveltygrid::cli

#endif  // NOVELTYGRID_CLI_IMPORT_COMMAND_H_
