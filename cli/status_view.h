// What `noveltygrid status` prints, and the progress figures of a coordinator's status: one place
// turns a noveltygrid.v1.StatusResponse into text, JSON and the progress line's figures.
#ifndef NOVELTYGRID_CLI_STATUS_VIEW_H_
#define NOVELTYGRID_CLI_STATUS_VIEW_H_

#include <string>

#include "cli/progress.h"
#include "common/json_util.h"
#include "noveltygrid/v1/coordinator.pb.h"

namespace noveltygrid::cli {

ProgressFigures FiguresOf(const v1::StatusResponse& status);

// The text of `status`: the units line, the progress line's figures, the per-model table and the
// workers alive with their calls waiting.
std::string StatusText(const v1::StatusResponse& status);
Json StatusJson(const v1::StatusResponse& status);

}  // namespace noveltygrid::cli

#endif  // NOVELTYGRID_CLI_STATUS_VIEW_H_
