#ifndef NOVELTYGRID_CLI_CLUSTER_COMMANDS_H_
#define NOVELTYGRID_CLI_CLUSTER_COMMANDS_H_

#include <string>
#include <vector>

namespace noveltygrid::cli {

// `noveltygrid coordinator --config CONFIG.yaml --listen HOST:PORT --out DIR`
int RunCoordinatorCommand(const std::vector<std::string>& args);
// `noveltygrid worker --coordinator HOST:PORT [--concurrency N]`
int RunWorkerCommand(const std::vector<std::string>& args);
// `noveltygrid status --coordinator HOST:PORT`
int RunStatusCommand(const std::vector<std::string>& args);

}  // namespace noveltygrid::cli

#endif  // NOVELTYGRID_CLI_CLUSTER_COMMANDS_H_
