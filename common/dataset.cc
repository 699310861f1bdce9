#include "common/dataset.h"

#include <string_view>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "absl/strings/str_cat.h"
#include "common/json_util.h"
#include "common/status_macros.h"
#include "common/text.h"

namespace noveltygrid {

namespace {

// Where a line of a JSONL file failed, and what a good line looks like.
class LineContext {
 public:
  LineContext(const std::string& path, int line, const char* expected)
      : path_(path), line_(line), expected_(expected) {}

  absl::Status Error(absl::string_view what) const {
    return absl::InvalidArgumentError(absl::StrCat(path_, ":", line_, ": ", what, "; expected ", expected_));
  }

  // A string field; `required` false returns "" for an absent or null field.
  absl::StatusOr<std::string> String(const Json& object, const char* name, bool required) const {
    auto it = object.find(name);
    if (it == object.end() || (!required && it->is_null())) {
      if (required) return Error(absl::StrCat("missing field \"", name, "\""));
      return std::string();
    }
    if (!it->is_string()) {
      return Error(absl::StrCat("field \"", name, "\" is ", it->type_name(), ", not a string"));
    }
    std::string value = it->get<std::string>();
    if (required && value.empty()) return Error(absl::StrCat("field \"", name, "\" is empty"));
    return value;
  }

  int line() const { return line_; }

 private:
  const std::string& path_;
  int line_;
  const char* expected_;
};

// Calls `handle` with every non-blank line of a JSONL file, parsed as a JSON object, and refuses
// duplicate ids (as returned by `handle`) and a file without items.
absl::Status ForEachJsonLine(const std::string& path, const char* item_name, const char* expected,
                             absl::FunctionRef<absl::StatusOr<std::string>(const Json&, const LineContext&)> handle) {
  ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  absl::flat_hash_map<std::string, int> first_line_of_id;
  std::string_view rest = text;
  int line_number = 0;
  while (!rest.empty()) {
    const size_t newline = rest.find('\n');
    std::string_view line = rest.substr(0, newline);
    rest.remove_prefix(newline == std::string_view::npos ? rest.size() : newline + 1);
    ++line_number;
    if (StripWhitespace(line).empty()) continue;
    const LineContext context(path, line_number, expected);
    absl::StatusOr<Json> object = ParseJson(line);
    if (!object.ok()) return context.Error(absl::StrCat("malformed JSON (", object.status().message(), ")"));
    if (!object->is_object()) {
      return context.Error(absl::StrCat("the line is a JSON ", object->type_name(), ", not an object"));
    }
    ASSIGN_OR_RETURN(std::string id, handle(*object, context));
    auto [it, inserted] = first_line_of_id.emplace(id, line_number);
    if (!inserted) {
      return context.Error(absl::StrCat("duplicate id \"", id, "\" (first used on line ", it->second, ")"));
    }
  }
  if (first_line_of_id.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": no ", item_name, " (the file is empty); expected ", expected));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<Question>> LoadQuestions(const std::string& path) {
  std::vector<Question> questions;
  static constexpr char kExpected[] =
      "one JSON object per line with string fields \"id\" and \"question\", optional string \"domain\" and "
      "optional string \"subdomain\" (with a domain)";
  RETURN_IF_ERROR(ForEachJsonLine(
      path, "questions", kExpected, [&](const Json& object, const LineContext& line) -> absl::StatusOr<std::string> {
        Question q;
        ASSIGN_OR_RETURN(q.id, line.String(object, "id", true));
        ASSIGN_OR_RETURN(q.text, line.String(object, "question", true));
        ASSIGN_OR_RETURN(q.domain, line.String(object, "domain", false));
        ASSIGN_OR_RETURN(q.subdomain, line.String(object, "subdomain", false));
        if (!q.subdomain.empty() && q.domain.empty()) {
          return line.Error(absl::StrCat("subdomain \"", q.subdomain, "\" without a domain"));
        }
        questions.push_back(std::move(q));
        return questions.back().id;
      }));
  return questions;
}

absl::StatusOr<std::vector<BenchPrompt>> LoadBenchPrompts(const std::string& path) {
  static constexpr char kExpected[] =
      "one JSON object per line with string fields \"id\" and \"prompt\", optional string "
      "\"category\" and optional list of strings \"prompt_paraphrases\"";
  std::vector<BenchPrompt> prompts;
  RETURN_IF_ERROR(ForEachJsonLine(
      path, "prompts", kExpected, [&](const Json& object, const LineContext& line) -> absl::StatusOr<std::string> {
        BenchPrompt p;
        ASSIGN_OR_RETURN(p.id, line.String(object, "id", true));
        ASSIGN_OR_RETURN(p.text, line.String(object, "prompt", true));
        ASSIGN_OR_RETURN(p.category, line.String(object, "category", false));
        auto it = object.find("prompt_paraphrases");
        if (it != object.end() && !it->is_null()) {
          if (!it->is_array()) {
            return line.Error(absl::StrCat("field \"prompt_paraphrases\" is ", it->type_name(), ", not a list"));
          }
          for (size_t i = 0; i < it->size(); ++i) {
            const Json& paraphrase = (*it)[i];
            if (!paraphrase.is_string()) {
              return line.Error(
                  absl::StrCat("prompt_paraphrases[", i, "] is ", paraphrase.type_name(), ", not a string"));
            }
            p.paraphrases.push_back(paraphrase.get<std::string>());
          }
        }
        prompts.push_back(std::move(p));
        return prompts.back().id;
      }));
  return prompts;
}

}  // namespace noveltygrid
