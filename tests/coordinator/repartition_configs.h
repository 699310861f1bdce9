// Helpers of the `repartition --config` tests: a sweep config with a noveltybench: section, a
// providers: section pointing the simulated family at a serve-sim, and reading what the command wrote.
#ifndef NOVELTYGRID_TESTS_COORDINATOR_REPARTITION_CONFIGS_H_
#define NOVELTYGRID_TESTS_COORDINATOR_REPARTITION_CONFIGS_H_

#include <filesystem>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/json_util.h"
#include "gtest/gtest.h"
#include "tests/common/test_files.h"
#include "tests/coordinator/noveltybench_test_runs.h"

namespace noveltygrid::cli::testing_runs {

// A sweep config holding `noveltybench` (partitioner settings appended verbatim) and `providers`.
inline std::string WriteConfig(const TempDir& dir, const std::string& name, const std::string& noveltybench,
                               const std::string& providers = "") {
  std::string yaml = "name: repartition\nseed: 3\nmodels: [sim:steady]\ntemperatures: [1.0]\n";
  if (noveltybench.empty()) {
    absl::StrAppend(&yaml, "aidanbench:\n  questions: ", NOVELTYGRID_SOURCE_DIR,
                    "/datasets/aidanbench/questions-paper-65.jsonl\n");
  } else {
    absl::StrAppend(&yaml, "noveltybench:\n  prompts: ", SharedData("noveltybench/curated.jsonl"), "\n", noveltybench);
  }
  absl::StrAppend(&yaml, providers);
  return dir.Write(name, yaml);
}

inline std::string SimProvider(int port, const std::string& extra = "") {
  return absl::StrCat("providers:\n  sim:\n    base_url: http://127.0.0.1:", port, "/v1\n", extra);
}

inline Json ReadJson(const std::filesystem::path& path) {
  absl::StatusOr<Json> json = ReadJsonFile(path.string());
  EXPECT_TRUE(json.ok()) << json.status();
  return json.value_or(Json());
}

inline std::string Contents(const std::filesystem::path& path) {
  absl::StatusOr<std::string> text = ReadFile(path.string());
  EXPECT_TRUE(text.ok()) << text.status();
  return text.value_or("");
}

}  // namespace noveltygrid::cli::testing_runs

#endif  // NOVELTYGRID_TESTS_COORDINATOR_REPARTITION_CONFIGS_H_
