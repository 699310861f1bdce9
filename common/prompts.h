// Prompt templates for AidanBench: the generation prompt, the coherence judge and the similarity judge.
//
// Templates load from a JSON file in the layout of ../shared/data/aidanbench/prompts-reference.json
// (keys generation_base, generation_instructions, generation_previous_block, previous_answer_item,
// previous_answers_separator, coherence_judge, similarity_judge; placeholders {question}, {answer},
// {previous_answers}, {index}, {answer1}, {answer2}). An optional key coherence_judge_1_10 holds the
// 1-10 judge used by the paper-2024 preset. The project's own default wording is built in.
//
// Placeholders are substituted in a single left-to-right pass, so text inside a question or an answer
// that looks like a placeholder is never expanded.
#ifndef NOVELTYGRID_COMMON_PROMPTS_H_
#define NOVELTYGRID_COMMON_PROMPTS_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_join.h"
#include "absl/types/span.h"

namespace noveltygrid {

struct PromptTemplates {
  std::string generation_base;
  std::string generation_instructions;
  std::string generation_previous_block;
  std::string previous_answer_item;
  std::string previous_answers_separator;
  std::string coherence_judge;       // 0-100 judge
  std::string coherence_judge_1_10;  // may be empty when the file has none
  std::string similarity_judge;

  // generation_base + generation_instructions (+ previous block when `previous` is non-empty), each
  // with {question} filled; the block's {previous_answers} is previous_answer_item per answer ({index}
  // from 1, {answer}) joined by previous_answers_separator.
  std::string GenerationPrompt(const std::string& question, const std::vector<std::string>& previous) const;
  // The judge prompt for the given scale: coherence_judge_1_10 for 10 (coherence_judge when that is
  // empty -- the config loader refuses a 1-10 preset without it), coherence_judge otherwise.
  std::string CoherencePrompt(const std::string& question, const std::string& answer, int scale_max) const;
  std::string SimilarityPrompt(const std::string& question, const std::string& answer1,
                               const std::string& answer2) const;
};

// One loop's generation prompt, iteration after iteration: the head (base and instructions with the
// question) is filled once; Prompt() formats the earlier answers straight into the prompt it returns,
// so a loop holds its answers once, in its records, not again as formatted text between iterations.
// Prompt(n, answer) equals templates.GenerationPrompt(question, the n answers). `templates` must
// outlive it.
class GenerationPromptBuilder {
 public:
  GenerationPromptBuilder(const PromptTemplates& templates, std::string question);
  // The prompt with `count` earlier answers; answer(i) is the (i+1)-th ({index} counts from 1).
  std::string Prompt(size_t count, absl::FunctionRef<std::string_view(size_t)> answer) const;
  // The prompt with no earlier answers: every later prompt starts with it.
  const std::string& head() const { return head_; }

 private:
  const PromptTemplates* templates_;
  std::string question_;
  std::string head_;  // generation_base + generation_instructions, filled
};

// The project's own wording (same structure as the reference file).
const PromptTemplates& DefaultPromptTemplates();

// Loads a template file; every required key must be a string.
absl::StatusOr<PromptTemplates> LoadPromptTemplates(const std::string& path);

// Replaces {name} placeholders from `values` in one pass; unknown {...} text is left as it is.
using TemplateValue = std::pair<std::string_view, std::string_view>;  // {name, text}
std::string FillTemplate(std::string_view tmpl, absl::Span<const TemplateValue> values);
// The same pass appending to *out, each value written by `append(name, out)`, which returns false for a
// name it does not fill (that text is then kept as it is); it must append nothing when it returns false.
// `name` is a view into `tmpl` (GenerationPromptBuilder finds the placeholders' places by it).
void FillTemplateInto(std::string_view tmpl, absl::FunctionRef<bool(std::string_view name, std::string* out)> append,
                      std::string* out);

// For the loaders of prompt files (this one's and noveltybench/prompts.h's), whose keys are a table of
// entries with a `name`: the entry named `name` (null when none is), and every name for messages.
template <typename Key>
const Key* FindKey(const std::vector<Key>& keys, std::string_view name) {
  for (const Key& key : keys) {
    if (name == key.name) return &key;
  }
  return nullptr;
}
template <typename Key>
std::string KeyNames(const std::vector<Key>& keys) {
  std::vector<std::string> names;
  for (const Key& key : keys) names.push_back(key.name);
  return absl::StrJoin(names, ", ");
}

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COMMON_PROMPTS_H_
