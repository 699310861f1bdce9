#include "sim_server/sim_request_json.h"

#include <algorithm>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace noveltygrid::sim_json {

absl::Status Invalid(absl::string_view message) { return absl::InvalidArgumentError(message); }

const Json* Find(const Json& object, const char* key) {
  auto it = object.find(key);
  return it == object.end() || it->is_null() ? nullptr : &*it;
}

absl::StatusOr<Json> ParseObject(absl::string_view body) {
  absl::StatusOr<Json> json = ParseJson(std::string_view(body.data(), body.size()));
  if (!json.ok()) {
    return Invalid(absl::StrCat("the request body: ", json.status().message(),
                                "; send one JSON object with Content-Type application/json"));
  }
  if (!json->is_object()) return Invalid("the request body must be a JSON object");
  return json;
}

absl::StatusOr<std::string> RequiredString(const Json& object, const char* key) {
  const Json* value = Find(object, key);
  if (value == nullptr) return Invalid(absl::StrCat("'", key, "' is required"));
  if (!value->is_string()) return Invalid(absl::StrCat("'", key, "' must be a string"));
  return value->get<std::string>();
}

absl::StatusOr<std::optional<int64_t>> OptionalInt(const Json& object, const char* key) {
  const Json* value = Find(object, key);
  if (value == nullptr) return std::optional<int64_t>();
  if (!value->is_number_integer()) return Invalid(absl::StrCat("'", key, "' must be an integer"));
  if (value->is_number_unsigned()) return std::optional<int64_t>(static_cast<int64_t>(value->get<uint64_t>()));
  return std::optional<int64_t>(value->get<int64_t>());
}

absl::StatusOr<int> MaxTokens(int64_t requested) {
  if (requested < 1) return Invalid("'max_tokens' must be at least 1");
  return static_cast<int>(std::min<int64_t>(requested, 1'000'000'000));
}

absl::StatusOr<std::string> TextContent(const Json* content, absl::string_view what, absl::string_view separator) {
  if (content == nullptr) return std::string();
  if (content->is_string()) return content->get<std::string>();
  if (!content->is_array()) return Invalid(absl::StrCat(what, " must be a string or an array of text parts"));
  std::vector<std::string> texts;
  for (const Json& part : *content) {
    const Json* type = part.is_object() ? Find(part, "type") : nullptr;
    const Json* text = part.is_object() ? Find(part, "text") : nullptr;
    if (type == nullptr || *type != "text" || text == nullptr || !text->is_string()) {
      return Invalid(absl::StrCat("only {\"type\": \"text\", \"text\": ...} parts are supported in ", what));
    }
    texts.push_back(text->get<std::string>());
  }
  return absl::StrJoin(texts, separator);
}

absl::StatusOr<std::string> MessageContent(const Json& message, absl::string_view separator) {
  return TextContent(Find(message, "content"), "message 'content'", separator);
}

}  // namespace noveltygrid::sim_json
