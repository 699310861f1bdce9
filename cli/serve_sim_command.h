// `noveltygrid serve-sim`: the simulated model family behind an OpenAI-compatible HTTP API (see
// sim_server/sim_server.h for the endpoints, faults and latency it simulates).
#ifndef NOVELTYGRID_CLI_SERVE_SIM_COMMAND_H_
#define NOVELTYGRID_CLI_SERVE_SIM_COMMAND_H_

#include <string>
#include <vector>

namespace noveltygrid::cli {

// Serves until SIGTERM or SIGINT (main must have blocked them with BlockTerminationSignals), then
// exits 0. Exit 2 for bad flags, 1 when the address cannot be bound.
int RunServeSimCommand(const std::vector<std::string>& args);

}  // namespace noveltygrid::cli

#endif  // NOVELTYGRID_CLI_SERVE_SIM_COMMAND_H_
