#include "common/prompts.h"

#include <initializer_list>
#include <string_view>
#include <utility>

#include "absl/container/inlined_vector.h"
#include "absl/functional/function_ref.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/json_util.h"
#include "common/status_macros.h"

namespace noveltygrid {

void FillTemplateInto(std::string_view tmpl, absl::FunctionRef<bool(std::string_view name, std::string* out)> append,
                      std::string* out) {
  size_t i = 0;
  while (i < tmpl.size()) {
    const size_t open = tmpl.find('{', i);
    if (open == std::string_view::npos) break;
    out->append(tmpl.substr(i, open - i));
    const size_t close = tmpl.find('}', open + 1);
    if (close == std::string_view::npos) {
      i = open;
      break;
    }
    if (append(tmpl.substr(open + 1, close - open - 1), out)) {
      i = close + 1;
    } else {
      // Not a placeholder we fill: keep the brace and look for one starting after it, so that
      // "{{question}" still yields "{" followed by the question.
      out->push_back('{');
      i = open + 1;
    }
  }
  out->append(tmpl.substr(i));
}

std::string FillTemplate(std::string_view tmpl, absl::Span<const TemplateValue> values) {
  size_t size = tmpl.size();  // room for one of each value: most templates name each once
  for (const TemplateValue& value : values) size += value.second.size();
  std::string out;
  out.reserve(size);
  FillTemplateInto(
      tmpl,
      [&values](std::string_view name, std::string* into) {
        for (const auto& [key, replacement] : values) {
          if (key == name) {
            into->append(replacement);
            return true;
          }
        }
        return false;
      },
      &out);
  return out;
}

std::string PromptTemplates::GenerationPrompt(const std::string& question,
                                              const std::vector<std::string>& previous) const {
  return GenerationPromptBuilder(*this, question).Prompt(previous.size(), [&previous](size_t i) -> std::string_view {
    return previous[i];
  });
}

GenerationPromptBuilder::GenerationPromptBuilder(const PromptTemplates& templates, std::string question)
    : templates_(&templates), question_(std::move(question)) {
  const TemplateValue q[] = {{"question", question_}};
  head_ = FillTemplate(templates.generation_base, q);
  head_ += FillTemplate(templates.generation_instructions, q);
}

namespace {

// A template cut at the placeholders in `names`, as FillTemplateInto reads it (whose names are views
// into the template): text[k] (a view into the template) comes before placeholder slot[k], an index
// into `names`; text has one entry more than slot.
struct TemplateCut {
  absl::InlinedVector<std::string_view, 4> text;
  absl::InlinedVector<size_t, 3> slot;
};

TemplateCut CutTemplate(std::string_view tmpl, std::initializer_list<std::string_view> names) {
  TemplateCut cut;
  size_t from = 0;  // where the text after the last placeholder found starts
  std::string unused;
  FillTemplateInto(
      tmpl,
      [&](std::string_view name, std::string*) {
        for (size_t k = 0; k < names.size(); ++k) {
          if (name != names.begin()[k]) continue;
          const size_t open = static_cast<size_t>(name.data() - tmpl.data()) - 1;  // its '{'
          cut.text.push_back(tmpl.substr(from, open - from));
          cut.slot.push_back(k);
          from = open + name.size() + 2;
          return true;
        }
        return false;
      },
      &unused);
  cut.text.push_back(tmpl.substr(from));
  return cut;
}

}  // namespace

std::string GenerationPromptBuilder::Prompt(size_t count, absl::FunctionRef<std::string_view(size_t)> answer) const {
  if (count == 0) return head_;
  const PromptTemplates& t = *templates_;
  // Room for everything but the digits of the indexes, so that the prompt is allocated once or twice.
  size_t size = head_.size() + t.generation_previous_block.size() + question_.size();
  for (size_t i = 0; i < count; ++i) {
    size += answer(i).size() + t.previous_answer_item.size() + t.previous_answers_separator.size() + 4;
  }
  std::string prompt;
  prompt.reserve(size);
  prompt += head_;
  // Both templates cut once a prompt, not once an answer.
  const TemplateCut block = CutTemplate(t.generation_previous_block, {"question", "previous_answers"});
  const TemplateCut item = CutTemplate(t.previous_answer_item, {"index", "answer"});
  for (size_t b = 0; b < block.slot.size(); ++b) {
    prompt += block.text[b];
    if (block.slot[b] == 0) {
      prompt += question_;
      continue;
    }
    for (size_t i = 0; i < count; ++i) {
      if (i > 0) prompt += t.previous_answers_separator;
      for (size_t k = 0; k < item.slot.size(); ++k) {
        prompt += item.text[k];
        if (item.slot[k] == 0) {
          absl::StrAppend(&prompt, i + 1);
        } else {
          prompt += answer(i);
        }
      }
      prompt += item.text.back();
    }
  }
  prompt += block.text.back();
  return prompt;
}

std::string PromptTemplates::CoherencePrompt(const std::string& question, const std::string& answer,
                                             int scale_max) const {
  // An empty 1-10 judge never reaches here for a 1-10 preset: the config loader refuses that pair.
  const std::string& tmpl = scale_max == 10 && !coherence_judge_1_10.empty() ? coherence_judge_1_10 : coherence_judge;
  return FillTemplate(tmpl, {{"question", question}, {"answer", answer}});
}

std::string PromptTemplates::SimilarityPrompt(const std::string& question, const std::string& answer1,
                                              const std::string& answer2) const {
  return FillTemplate(similarity_judge, {{"question", question}, {"answer1", answer1}, {"answer2", answer2}});
}

// The project's own wording. Conventions other code relies on: the question sits in
// <question>...</question>; answers are asked for in <answer> tags; earlier answers are items
// <previous_answer id='N'> inside a <previous_answers> block; in the judge prompts the real question
// and answer are the LAST <question>/<answer> tags (the rubric comes first, nothing tag-like after),
// the 0-100 judge says "0 to 100" and never "1 to 10" (not even inside a band such as "81-100"), and
// the 1-10 judge says "1 to 10".
const PromptTemplates& DefaultPromptTemplates() {
  static const PromptTemplates* const kDefault = [] {
    auto* t = new PromptTemplates;
    t->generation_base =
        "Please respond to the question below.\n"
        "<question>{question}</question>\n"
        "Write your response between <answer></answer> XML tags.\n";
    t->generation_instructions =
        "Give a single, direct answer; offering several alternatives is not allowed. "
        "Keep it short.\n";
    t->generation_previous_block =
        "IMPORTANT: your answer must be new -- it must differ from every answer you already gave.\n"
        "Those earlier answers are listed below, each in its own previous_answer tag.\n"
        "<previous_answers>\n{previous_answers}\n</previous_answers>";
    t->previous_answer_item = "<previous_answer id='{index}'>\n{answer}\n</previous_answer>";
    t->previous_answers_separator = "\n\n";
    t->coherence_judge =
        "You are grading one answer to one question for coherence and plausibility.\n\n"
        "Use this rubric, on a scale from 0 to 100:\n"
        "- 0 to 20: incoherent or nonsensical; unrelated to the question, self-contradictory, or "
        "impossible.\n"
        "- 21 to 40: badly flawed; large logical gaps or a clear misreading of the question.\n"
        "- 41 to 60: partly coherent; the question is understood but valid points are mixed with "
        "errors.\n"
        "- 61 to 80: mostly coherent; sound reasoning and plausible claims with small gaps.\n"
        "- above 80: fully coherent; addresses the question precisely with well-grounded, "
        "consistent claims.\n\n"
        "The question:\n<question>{question}</question>\n\n"
        "The answer to grade:\n<answer>{answer}</answer>\n\n"
        "Reply with only your grade: one whole number from 0 to 100 inside "
        "<coherence_score></coherence_score> XML tags, and nothing else.";
    t->coherence_judge_1_10 =
        "You are grading one answer to one question for coherence and plausibility.\n\n"
        "Use this rubric, on a scale from 1 to 10:\n"
        "- 1 or 2: incoherent or nonsensical; unrelated to the question, self-contradictory, or "
        "impossible.\n"
        "- 3 or 4: badly flawed; large logical gaps or a clear misreading of the question.\n"
        "- 5 or 6: partly coherent; the question is understood but valid points are mixed with "
        "errors.\n"
        "- 7 or 8: mostly coherent; sound reasoning and plausible claims with small gaps.\n"
        "- 9 or 10: fully coherent; addresses the question precisely with well-grounded, "
        "consistent claims.\n\n"
        "The question:\n<question>{question}</question>\n\n"
        "The answer to grade:\n<answer>{answer}</answer>\n\n"
        "Reply with only your grade: one whole number from 1 to 10 inside "
        "<coherence_score></coherence_score> XML tags, and nothing else.";
    t->similarity_judge =
        "You are comparing two answers to the same question and judging how close they are in "
        "meaning. Look at the underlying ideas, not the wording.\n\n"
        "Use this rubric, on a scale from 0 to 100:\n"
        "- 0 to 20: entirely different ideas.\n"
        "- 21 to 40: a concept or two in common.\n"
        "- 41 to 60: some central ideas shared.\n"
        "- 61 to 80: largely the same idea with small differences.\n"
        "- above 80: the same meaning, possibly in other words.\n\n"
        "The question:\n<question>{question}</question>\n\n"
        "First answer:\n<answer1>{answer1}</answer1>\n\n"
        "Second answer:\n<answer2>{answer2}</answer2>\n\n"
        "Reply with only your score: one whole number from 0 to 100 inside "
        "<similarity_score></similarity_score> XML tags, and nothing else.";
    return t;
  }();
  return *kDefault;
}

namespace {

struct TemplateKey {
  const char* name;
  std::string PromptTemplates::*member;
  bool required;
  std::vector<const char*> placeholders;  // each must occur in the template
};

const std::vector<TemplateKey>& TemplateKeys() {
  static const std::vector<TemplateKey>* const kKeys = new std::vector<TemplateKey>{
      {"generation_base", &PromptTemplates::generation_base, true, {"{question}"}},
      {"generation_instructions", &PromptTemplates::generation_instructions, true, {}},
      {"generation_previous_block", &PromptTemplates::generation_previous_block, true, {"{previous_answers}"}},
      {"previous_answer_item", &PromptTemplates::previous_answer_item, true, {"{answer}"}},
      {"previous_answers_separator", &PromptTemplates::previous_answers_separator, true, {}},
      {"coherence_judge", &PromptTemplates::coherence_judge, true, {"{answer}"}},
      {"coherence_judge_1_10", &PromptTemplates::coherence_judge_1_10, false, {"{answer}"}},
      {"similarity_judge", &PromptTemplates::similarity_judge, false, {"{answer1}", "{answer2}"}},
  };
  return *kKeys;
}

}  // namespace

absl::StatusOr<PromptTemplates> LoadPromptTemplates(const std::string& path) {
  ASSIGN_OR_RETURN(Json json, ReadJsonFile(path));
  auto error = [&](absl::string_view key, absl::string_view what, absl::string_view expected) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", key, ": ", what, "; expected ", expected));
  };
  if (!json.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": the file holds a JSON ", json.type_name(),
                                                   "; expected an object with keys ", KeyNames(TemplateKeys())));
  }
  for (const auto& [key, value] : json.items()) {
    if (key.rfind('_', 0) == 0) continue;  // comments such as "_about"
    if (FindKey(TemplateKeys(), key) == nullptr)
      return error(key, "unknown key", absl::StrCat("one of: ", KeyNames(TemplateKeys())));
  }
  PromptTemplates templates;
  for (const TemplateKey& key : TemplateKeys()) {
    auto it = json.find(key.name);
    if (it == json.end()) {
      if (!key.required) continue;
      return error(key.name, "missing", "a string template");
    }
    if (!it->is_string()) {
      return error(key.name, absl::StrCat("is a ", it->type_name()), "a string template");
    }
    std::string text = it->get<std::string>();
    if (text.empty() && !key.required) continue;  // same as absent
    for (const char* placeholder : key.placeholders) {
      if (text.find(placeholder) == std::string::npos) {
        return error(key.name, absl::StrCat("has no ", placeholder, " placeholder"),
                     absl::StrCat("a template containing ", absl::StrJoin(key.placeholders, " and ")));
      }
    }
    templates.*key.member = std::move(text);
  }
  return templates;
}

}  // namespace noveltygrid
