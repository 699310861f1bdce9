#include "common/noveltybench/prompts.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/json_util.h"
#include "common/prompts.h"
#include "common/status_macros.h"

namespace noveltygrid::noveltybench {

// The project's own wording. Conventions the simulated judge (and any tag-reading judge) relies on:
// the prompt sits in <question>, the answers in <answer1>/<answer2> (equivalence) or <answer>
// (quality), each the LAST such tag (the instructions come first, nothing tag-like after them); the
// groups judge lists the responses in <response1>, <response2>, ... and asks for <groups>; the
// equivalence judge asks for 0..100 and never mentions "1 to 10"; the quality judge says "from 1 to
// 10".
NoveltyPrompts DefaultNoveltyPrompts() {
  NoveltyPrompts p;
  p.in_context_followup =
      "Please give me a different answer -- one that differs in substance from every answer you have "
      "given so far, not only in wording.";
  p.system_prompt =
      "You are a creative assistant. Whenever a request leaves room for more than one good answer, "
      "give an original one: avoid the most obvious, most common choice.";
  p.equivalence_judge =
      "You are deciding whether two responses to the same request are functionally the same: a "
      "reader who has seen the first would gain nothing new from the second. Look at the substance "
      "(the idea, the choice, the plot, the item named), not the wording, length or style.\n\n"
      "Rate how likely it is that the two are the same, on a scale from 0 to 100:\n"
      "- 0 to 20: clearly different choices or ideas.\n"
      "- 21 to 50: related, but each offers something the other does not.\n"
      "- 51 to 80: mostly the same idea with minor differences.\n"
      "- above 80: the same answer, possibly in other words.\n\n"
      "The request:\n<question>{prompt}</question>\n\n"
      "First response:\n<answer1>{answer1}</answer1>\n\n"
      "Second response:\n<answer2>{answer2}</answer2>\n\n"
      "Reply with only your rating: one whole number from 0 to 100 inside "
      "<similarity_score></similarity_score> XML tags, and nothing else.";
  p.groups_judge =
      "You are sorting {count} responses to the same request into groups of functionally equivalent "
      "responses: two belong together when a reader who has seen one would gain nothing new from the "
      "other. Look at the substance (the idea, the choice, the plot, the item named), not the wording, "
      "length or style.\n\n"
      "The request:\n<question>{prompt}</question>\n\n"
      "The responses:\n{responses}\n\n"
      "Give every response a group number. Responses that are the same share a number; a response "
      "unlike all before it starts the next number (1, 2, 3, ... in order of first appearance). Reply "
      "with only the {count} group numbers, in the order of the responses, separated by commas, inside "
      "<groups></groups> XML tags, and nothing else.";
  p.quality_judge =
      "You are rating the quality of one response to a user's request: is it coherent, relevant, "
      "well written and does it do what was asked?\n\n"
      "Rate the response's quality from 1 to 10:\n"
      "- 1 to 2: nonsensical, off-topic or unusable.\n"
      "- 3 to 4: relevant but badly flawed.\n"
      "- 5 to 6: acceptable, with clear weaknesses.\n"
      "- 7 to 8: good; small flaws at most.\n"
      "- 9 to 10: excellent.\n\n"
      "The request:\n<question>{prompt}</question>\n\n"
      "The response to rate:\n<answer>{response}</answer>\n\n"
      "Reply with only your rating: one whole number from 1 to 10 inside "
      "<coherence_score></coherence_score> XML tags, and nothing else.";
  return p;
}

namespace {

struct PromptKey {
  const char* name;
  std::string NoveltyPrompts::*member;
  std::vector<const char*> placeholders;  // each must occur in the replacement
};

const std::vector<PromptKey>& PromptKeys() {
  static const std::vector<PromptKey>* const kKeys = new std::vector<PromptKey>{
      {"in_context_followup", &NoveltyPrompts::in_context_followup, {}},
      {"system_prompt", &NoveltyPrompts::system_prompt, {}},
      {"equivalence_judge", &NoveltyPrompts::equivalence_judge, {"{prompt}", "{answer1}", "{answer2}"}},
      {"groups_judge", &NoveltyPrompts::groups_judge, {"{prompt}", "{responses}"}},
      {"quality_judge", &NoveltyPrompts::quality_judge, {"{prompt}", "{response}"}},
  };
  return *kKeys;
}

}  // namespace

absl::StatusOr<NoveltyPrompts> LoadNoveltyPrompts(const std::string& path) {
  ASSIGN_OR_RETURN(Json json, ReadJsonFile(path));
  auto error = [&path](absl::string_view key, absl::string_view what, absl::string_view expected) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", key, ": ", what, "; expected ", expected));
  };
  if (!json.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": the file holds a JSON ", json.type_name(),
                                                   "; expected an object with any of the keys ",
                                                   KeyNames(PromptKeys())));
  }
  NoveltyPrompts prompts = DefaultNoveltyPrompts();
  for (const auto& [name, value] : json.items()) {
    if (name.rfind('_', 0) == 0) continue;  // comments such as "_about"
    const PromptKey* key = FindKey(PromptKeys(), name);
    if (key == nullptr) return error(name, "unknown key", absl::StrCat("one of: ", KeyNames(PromptKeys())));
    if (!value.is_string()) return error(name, absl::StrCat("is a ", value.type_name()), "a string");
    std::string text = value.get<std::string>();
    if (text.empty()) return error(name, "is empty", "the wording to use (leave the key out for the default)");
    for (const char* placeholder : key->placeholders) {
      if (text.find(placeholder) == std::string::npos) {
        return error(name, absl::StrCat("has no ", placeholder, " placeholder"),
                     absl::StrCat("a template containing ", absl::StrJoin(key->placeholders, ", ")));
      }
    }
    prompts.*(key->member) = std::move(text);
  }
  return prompts;
}

std::string EquivalenceJudgePrompt(const NoveltyPrompts& prompts, const std::string& prompt, const std::string& answer1,
                                   const std::string& answer2) {
  return FillTemplate(prompts.equivalence_judge, {{"prompt", prompt}, {"answer1", answer1}, {"answer2", answer2}});
}

std::string GroupsJudgePrompt(const NoveltyPrompts& prompts, const std::string& prompt,
                              const std::vector<std::string>& responses) {
  std::string listed;
  for (size_t i = 0; i < responses.size(); ++i) {
    absl::StrAppend(&listed, i == 0 ? "" : "\n\n", "<response", i + 1, ">", responses[i], "</response", i + 1, ">");
  }
  return FillTemplate(prompts.groups_judge,
                      {{"prompt", prompt}, {"responses", listed}, {"count", absl::StrCat(responses.size())}});
}

std::string QualityJudgePrompt(const NoveltyPrompts& prompts, const std::string& prompt, const std::string& response) {
  return FillTemplate(prompts.quality_judge, {{"prompt", prompt}, {"response", response}});
}

}  // namespace noveltygrid::noveltybench
