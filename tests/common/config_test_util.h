// Helpers shared by the sweep config tests (config_test.cc: the top level; config_aidanbench_test.cc and
// config_noveltybench_test.cc: the benchmark sections).
#ifndef NOVELTYGRID_TESTS_COMMON_CONFIG_TEST_UTIL_H_
#define NOVELTYGRID_TESTS_COMMON_CONFIG_TEST_UTIL_H_

#include <string>

#include "absl/status/status.h"
#include "common/config.h"
#include "tests/common/test_files.h"

namespace noveltygrid::configtest {

using ::noveltygrid::testing_files::SharedData;
using ::noveltygrid::testing_files::TempDir;

inline const std::string kPaperQuestions = SharedData("aidanbench/questions-paper-65.jsonl");
inline const std::string kReferenceTemplates = SharedData("aidanbench/prompts-reference.json");

// A minimal valid config with absolute data paths, plus `extra` at the end.
inline std::string Config(const std::string& extra = "") {
  return "models: [sim:explorer, sim:steady]\n"
         "temperatures: [0.2, 0.7]\n"
         "aidanbench:\n"
         "  questions: " +
         kPaperQuestions + "\n" + extra;
}

inline std::string MessageOf(const absl::Status& status) { return std::string(status.message()); }

inline absl::Status ParseStatus(const std::string& text, const std::string& path = "examples/bad.yaml") {
  return ParseSweepConfig(text, path).status();
}

// The error message of parsing `text` as `path` ("" when it parses).
inline std::string ParseError(const std::string& text, const std::string& path = "examples/bad.yaml") {
  return MessageOf(ParseStatus(text, path));
}

inline const std::string kCurated = SharedData("noveltybench/curated.jsonl");

// A NoveltyBench-only config over the curated prompts, plus `extra` lines inside the section.
inline std::string NoveltyConfig(const std::string& extra = "", const std::string& top = "") {
  return "models: [sim:explorer, sim:steady]\n"
         "temperatures: [0.7, 1.0]\n" +
         top +
         "noveltybench:\n"
         "  prompts: " +
         kCurated + "\n" + extra;
}

// Three prompts without paraphrases, as a wildchat-like file.
inline std::string WriteWildchat(const TempDir& dir) {
  return dir.Write("wildchat.jsonl",
                   "{\"id\": \"w0\", \"prompt\": \"Name a colour.\"}\n"
                   "{\"id\": \"w1\", \"prompt\": \"Name a fruit.\"}\n"
                   "{\"id\": \"w2\", \"prompt\": \"Name a city.\"}\n");
}

}  // namespace noveltygrid::configtest

#endif  // NOVELTYGRID_TESTS_COMMON_CONFIG_TEST_UTIL_H_
