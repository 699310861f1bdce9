// Readers of a written results folder shared by the results writer tests (results_writer_test.cc,
// sweep_results_test.cc, ...) and the integration tests: a file's text, summary.json and an object's
// keys, failing the test on a read error.
#ifndef NOVELTYGRID_TESTS_COORDINATOR_RESULTS_FOLDER_UTIL_H_
#define NOVELTYGRID_TESTS_COORDINATOR_RESULTS_FOLDER_UTIL_H_

#include <filesystem>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/json_util.h"
#include "coordinator/report/results_files.h"
#include "gtest/gtest.h"

namespace noveltygrid::testing_units {

inline std::string Slurp(const std::filesystem::path& path) {
  absl::StatusOr<std::string> text = ReadFile(path.string());
  EXPECT_TRUE(text.ok()) << text.status();
  return text.value_or("");
}

inline Json SummaryOf(const std::filesystem::path& dir) {
  absl::StatusOr<Json> json = ReadJsonFile((dir / kSummaryFileName).string());
  EXPECT_TRUE(json.ok()) << json.status();
  return json.value_or(Json());
}

inline std::vector<std::string> Keys(const Json& object) {
  std::vector<std::string> keys;
  for (const auto& [key, value] : object.items()) keys.push_back(key);
  return keys;
}

// Breakdowns (summary.json's by_domain, by_subdomain, by_category): each of `counts` of `whole` equals the
// sum of its `groups`' (an object of objects), each of `sums` is theirs to rounding.
inline void ExpectGroupsAddUp(const Json& whole, const Json& groups, const std::vector<const char*>& counts,
                              const std::vector<const char*>& sums = {}) {
  for (const char* count : counts) {
    long long sum = 0;
    for (const auto& [name, group] : groups.items()) sum += group.at(count).get<long long>();
    EXPECT_EQ(sum, whole.at(count).get<long long>()) << count;
  }
  for (const char* total : sums) {
    double sum = 0;
    for (const auto& [name, group] : groups.items()) sum += group.at(total).get<double>();
    EXPECT_NEAR(sum, whole.at(total).get<double>(), 1e-9) << total;
  }
}

// `summary` without its "calls" and "run", pretty-printed: what a rebuild without the old summary.json
// keeps.
inline std::string WithoutCallsAndRun(Json summary) {
  summary.erase("calls");
  summary.erase("run");
  return DumpJsonPretty(summary);
}

}  // namespace noveltygrid::testing_units

#endif  // NOVELTYGRID_TESTS_COORDINATOR_RESULTS_FOLDER_UTIL_H_
