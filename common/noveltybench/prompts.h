// The wording NoveltyBench sends besides the benchmark prompt itself: the follow-up turn of the
// in-context mode, the system message of the system-prompt mode, and the two LLM-judge templates (the
// llm partitioner and llm quality). The defaults are the project's own; a JSON file with any of the
// keys in_context_followup, system_prompt, equivalence_judge, quality_judge replaces those entries
// (the reference's wording can be kept in such a file).
//
// Placeholders: equivalence_judge {prompt}, {answer1}, {answer2}; quality_judge {prompt}, {response};
// substituted in one left-to-right pass (text inside a generation is never expanded).
#ifndef NOVELTYGRID_COMMON_NOVELTYBENCH_PROMPTS_H_
#define NOVELTYGRID_COMMON_NOVELTYBENCH_PROMPTS_H_

#include <string>

#include "absl/status/statusor.h"

namespace noveltygrid::noveltybench {

// The reply budget of the LLM judges (llm partitioner, llm quality).
inline constexpr int kJudgeMaxTokens = 1000;

struct NoveltyPrompts {
  std::string in_context_followup;
  std::string system_prompt;
  std::string equivalence_judge;  // must ask for <similarity_score>0..100</similarity_score>
  std::string quality_judge;      // must ask for <coherence_score>1..10</coherence_score>
};

NoveltyPrompts DefaultNoveltyPrompts();

// The defaults with the file's entries over them. NotFound for a missing file; InvalidArgument naming
// the file and key for malformed JSON, an unknown key, a non-string value or a template without its
// placeholders.
absl::StatusOr<NoveltyPrompts> LoadNoveltyPrompts(const std::string& path);

std::string EquivalenceJudgePrompt(const NoveltyPrompts& prompts, const std::string& prompt, const std::string& answer1,
                                   const std::string& answer2);
std::string QualityJudgePrompt(const NoveltyPrompts& prompts, const std::string& prompt, const std::string& response);

}  // namespace noveltygrid::noveltybench

#endif  // NOVELTYGRID_COMMON_NOVELTYBENCH_PROMPTS_H_
