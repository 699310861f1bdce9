// Plain-text tables for leaderboard.txt: every benchmark's leaderboard is rendered with these, so
// they all look alike.
#ifndef NOVELTYGRID_COORDINATOR_REPORT_TEXT_TABLE_H_
#define NOVELTYGRID_COORDINATOR_REPORT_TEXT_TABLE_H_

#include <string>
#include <vector>

namespace noveltygrid {

// The line under a leaderboard's title when its numbers come from the simulated models.
inline constexpr char kSimulatedLeaderboardLine[] =
    "SIMULATED MODELS -- numbers measure the built-in simulator, not a real LLM";

// Rows of cells, the first row the header (underlined with dashes). Column 0 left-aligned, the rest
// right-aligned, two spaces between columns; trailing spaces trimmed.
std::string RenderTable(const std::vector<std::vector<std::string>>& table);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_REPORT_TEXT_TABLE_H_
