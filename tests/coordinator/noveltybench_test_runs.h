// The five published NoveltyBench reference runs under ../shared/data, and helpers the NoveltyBench
// command tests share.
#ifndef NOVELTYGRID_TESTS_COORDINATOR_NOVELTYBENCH_TEST_RUNS_H_
#define NOVELTYGRID_TESTS_COORDINATOR_NOVELTYBENCH_TEST_RUNS_H_

#include <array>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "common/json_util.h"
#include "gtest/gtest.h"
#include "tests/common/test_files.h"
#include "tests/coordinator/capture_command.h"

// The NoveltyBench command tests (noveltybench_import_test.cc, noveltybench_repartition*_test.cc) live
// in this namespace.
namespace noveltygrid::cli::testing_runs {

using ::noveltygrid::testing_files::SharedData;
using ::noveltygrid::testing_files::TempDir;

struct ReferenceRun {
  const char* folder;  // under noveltybench/reference-runs/
  const char* model;   // the rows' "model"
  std::string ScoresPath() const {
    return SharedData(std::string("noveltybench/reference-runs/") + folder + "/scores.jsonl");
  }
  std::string SummaryPath() const {
    return SharedData(std::string("noveltybench/reference-runs/") + folder + "/summary.json");
  }
};

inline constexpr std::array<ReferenceRun, 5> kReferenceRuns = {{
    {"Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-8B-Instruct"},
    {"claude-3-5-sonnet-v2@20241022", "claude-3-5-sonnet-v2@20241022"},
    {"gemini-2.0-flash", "gemini-2.0-flash"},
    {"gemma-2-2b-it", "google/gemma-2-2b-it"},
    {"gpt-4o-2024-11-20", "gpt-4o-2024-11-20"},
}};

inline std::vector<Json> ReadJsonLines(const std::string& path) {
  std::vector<Json> lines;
  absl::StatusOr<std::string> text = ReadFile(path);
  EXPECT_TRUE(text.ok()) << text.status();
  for (absl::string_view line : absl::StrSplit(text.value_or(""), '\n', absl::SkipEmpty())) {
    lines.push_back(Json::parse(std::string(line)));
  }
  return lines;
}

}  // namespace noveltygrid::cli::testing_runs

#endif  // NOVELTYGRID_TESTS_COORDINATOR_NOVELTYBENCH_TEST_RUNS_H_
