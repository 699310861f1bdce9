// Benchmark datasets: AidanBench questions and NoveltyBench prompts, read from JSONL.
//
// Loaders refuse a missing or empty file, a malformed line, a missing field and duplicate ids, with a
// message naming the file and the line.
#ifndef NOVELTYGRID_COMMON_DATASET_H_
#define NOVELTYGRID_COMMON_DATASET_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace noveltygrid {

// One line of an AidanBench question file: {"id": ..., "question": ...}.
struct Question {
  std::string id;
  std::string text;
};

// One line of a NoveltyBench prompt file (curated.jsonl format):
// {"id", "prompt", optional "category", optional "prompt_paraphrases": [...]}.
struct BenchPrompt {
  std::string id;
  std::string category;
  std::string text;
  std::vector<std::string> paraphrases;
};

absl::StatusOr<std::vector<Question>> LoadQuestions(const std::string& path);
absl::StatusOr<std::vector<BenchPrompt>> LoadBenchPrompts(const std::string& path);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COMMON_DATASET_H_
