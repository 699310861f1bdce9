#include "coordinator/report/text_table.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "common/json_util.h"

namespace noveltygrid {

std::string RenderTable(const std::vector<std::vector<std::string>>& table) {
  std::vector<size_t> widths;
  for (const auto& row : table) {
    widths.resize(std::max(widths.size(), row.size()), 0);
    for (size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  std::string out;
  for (size_t r = 0; r < table.size(); ++r) {
    std::string line;
    for (size_t c = 0; c < table[r].size(); ++c) {
      const std::string& text = table[r][c];
      const std::string pad(widths[c] - text.size(), ' ');
      absl::StrAppend(&line, c == 0 ? "" : "  ", c == 0 ? text + pad : pad + text);
    }
    line.erase(line.find_last_not_of(' ') + 1);
    absl::StrAppend(&out, line, "\n");
    if (r == 0) {
      size_t total = 0;
      for (size_t w : widths) total += w;
      absl::StrAppend(&out, std::string(total + 2 * (widths.size() - 1), '-'), "\n");
    }
  }
  return out;
}

std::string LeaderboardTitle(absl::string_view title, bool simulated) {
  std::string out = absl::StrCat(title, "\n");
  if (simulated) absl::StrAppend(&out, kSimulatedLeaderboardLine, "\n");
  return out;
}

std::vector<std::string> LeaderboardHeader(std::vector<std::string> columns, const std::vector<double>& temperatures) {
  for (double t : temperatures) columns.push_back(absl::StrCat("T=", FormatTemperature(t)));
  return columns;
}

}  // namespace noveltygrid
