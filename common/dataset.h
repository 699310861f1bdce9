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

// One line of an AidanBench question file: {"id": ..., "question": ...}, optionally with the
// SciAidanBench layout's string "domain" and "subdomain" (a subdomain needs a domain). Empty when absent.
struct Question {
  std::string id;
  std::string text;
  std::string domain;
  std::string subdomain;
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
