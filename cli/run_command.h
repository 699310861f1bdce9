#ifndef NOVELTYGRID_CLI_RUN_COMMAND_H_
#define NOVELTYGRID_CLI_RUN_COMMAND_H_

#include <string>
#include <vector>

namespace noveltygrid::cli {

// `noveltygrid run CONFIG.yaml --out DIR [--seed N] [--concurrency N]`: the whole sweep in this process.
int RunRunCommand(const std::vector<std::string>& args);

}  // namespace noveltygrid::cli

#endif  // NOVELTYGRID_CLI_RUN_COMMAND_H_
