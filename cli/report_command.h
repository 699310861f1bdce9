// `noveltygrid report`: rebuild summary.json and leaderboard.txt from a results folder.
#ifndef NOVELTYGRID_CLI_REPORT_COMMAND_H_
#define NOVELTYGRID_CLI_REPORT_COMMAND_H_

#include <string>
#include <vector>

namespace noveltygrid::cli {

// `noveltygrid report DIR [--preset NAME]`; `args` is everything after "report". Prints the leaderboard
// and returns 0; 1 on a failure, 2 on bad usage.
int RunReportCommand(const std::vector<std::string>& args);

}  // namespace noveltygrid::cli

#endif  // NOVELTYGRID_CLI_REPORT_COMMAND_H_
