// The wording NoveltyBench sends besides the benchmark prompt itself: the follow-up turn of the
// in-context mode, the system message of the system-prompt mode, and the LLM-judge templates (the
// llm and llm-groups partitioners, llm quality). The defaults are the project's own; a JSON file with
// any of the keys in_context_followup, system_prompt, equivalence_judge, groups_judge, quality_judge
// replaces those entries (the reference's wording can be kept in such a file).
//
// Placeholders: equivalence_judge {prompt}, {answer1}, {answer2}; groups_judge {prompt}, {responses}
// (and optionally {count}); quality_judge {prompt}, {response}; substituted in one left-to-right pass
// (text inside a generation is never expanded).
#ifndef NOVELTYGRID_COMMON_NOVELTYBENCH_PROMPTS_H_
#define NOVELTYGRID_COMMON_NOVELTYBENCH_PROMPTS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace noveltygrid::noveltybench {

// The reply budget of the LLM judges (llm partitioner, llm quality).
inline constexpr int kJudgeMaxTokens = 1000;

struct NoveltyPrompts {
  std::string in_context_followup;
  std::string system_prompt;
  std::string equivalence_judge;  // must ask for <similarity_score>0..100</similarity_score>
  // Must ask for one group number per response, in order, comma-separated in <groups></groups>.
  std::string groups_judge;
  std::string quality_judge;  // must ask for <coherence_score>1..10</coherence_score>
};

NoveltyPrompts DefaultNoveltyPrompts();

// The defaults with the file's entries over them. NotFound for a missing file; InvalidArgument naming
// the file and key for malformed JSON, an unknown key, a non-string value or a template without its
// placeholders.
absl::StatusOr<NoveltyPrompts> LoadNoveltyPrompts(const std::string& path);

std::string EquivalenceJudgePrompt(const NoveltyPrompts& prompts, const std::string& prompt, const std::string& answer1,
                                   const std::string& answer2);
// The responses are numbered from 1 in the order given, each in <responseN></responseN> tags, one
// blank line apart; {count} is their number.
std::string GroupsJudgePrompt(const NoveltyPrompts& prompts, const std::string& prompt,
                              const std::vector<std::string>& responses);
std::string QualityJudgePrompt(const NoveltyPrompts& prompts, const std::string& prompt, const std::string& response);

}  // namespace noveltygrid::noveltybench

#endif  // NOVELTYGRID_COMMON_NOVELTYBENCH_PROMPTS_H_
