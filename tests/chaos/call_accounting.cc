#include "tests/chaos/call_accounting.h"

#include <fstream>
#include <iterator>
#include <map>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "nlohmann/json.hpp"

namespace noveltygrid::testing {
namespace {

// Each generation line of `parts`, with how often it occurs.
std::map<std::string, int64_t> GenerationLines(const std::vector<CallLogPart>& parts,
                                               const std::vector<std::string>& models) {
  std::map<std::string, int64_t> lines;
  for (const CallLogPart& part : parts) {
    std::string text = ReadText(part.path);
    if (part.end >= 0 && part.end < static_cast<int64_t>(text.size())) text.resize(part.end);
    text.erase(0, std::min<size_t>(part.begin, text.size()));
    for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
      for (const std::string& model : models) {
        if (absl::StartsWith(line, absl::StrCat("chat ", model, " "))) ++lines[std::string(line)];
      }
    }
  }
  return lines;
}

}  // namespace

int64_t CountGenerations(const std::vector<CallLogPart>& parts, const std::vector<std::string>& models) {
  int64_t n = 0;
  for (const auto& [line, count] : GenerationLines(parts, models)) n += count;
  return n;
}

int64_t RepeatedGenerations(const std::vector<CallLogPart>& expected, const std::vector<CallLogPart>& actual,
                            const std::vector<std::string>& models) {
  const std::map<std::string, int64_t> once = GenerationLines(expected, models);
  int64_t repeated = 0;
  for (const auto& [line, count] : GenerationLines(actual, models)) {
    const auto it = once.find(line);
    repeated += std::max<int64_t>(0, count - (it == once.end() ? 0 : it->second));
  }
  return repeated;
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::set<std::string> UnitIds(const std::string& jsonl_path) {
  std::set<std::string> ids;
  for (absl::string_view line : absl::StrSplit(ReadText(jsonl_path), '\n', absl::SkipEmpty())) {
    const nlohmann::json row = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (row.is_object() && row.contains("unit_id") && row["unit_id"].is_string()) ids.insert(row["unit_id"]);
  }
  return ids;
}

int64_t CountMatches(const std::string& text, const std::string& needle) {
  int64_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++n;
  return n;
}

int64_t FaultsInjected(const std::string& serve_sim_stderr) {
  for (absl::string_view line : absl::StrSplit(serve_sim_stderr, '\n', absl::SkipEmpty())) {
    const nlohmann::json stats = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (stats.is_object() && stats.contains("faults_injected") && stats["faults_injected"].is_number_integer()) {
      return stats["faults_injected"].get<int64_t>();
    }
  }
  return 0;
}

}  // namespace noveltygrid::testing
