#include "common/yaml_fields.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace noveltygrid {

namespace {

// How a node looks, for "is ..." in messages.
std::string Describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return "empty";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Map:
      return "a map";
    case YAML::NodeType::Scalar:
      return absl::StrCat("'", node.Scalar(), "'");
  }
  return "of an unknown kind";
}

size_t EditDistance(absl::string_view a, absl::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

bool IsNameStart(char c) { return absl::ascii_isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsNameChar(char c) { return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// YAML allows a leading '+' that from_chars does not.
absl::string_view DropPlus(absl::string_view text) {
  if (text.size() > 1 && text[0] == '+' && text[1] != '-') text.remove_prefix(1);
  return text;
}

// A scalar's text (a leading '+' allowed) read whole as a T; nullopt when it is not one.
template <typename T>
std::optional<T> ReadWhole(absl::string_view text) {
  const absl::string_view digits = DropPlus(text);
  T value = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || end != digits.data() + digits.size() || digits.empty()) return std::nullopt;
  return value;
}

}  // namespace

std::string JoinKey(absl::string_view prefix, absl::string_view key) {
  return prefix.empty() ? std::string(key) : absl::StrCat(prefix, ".", key);
}

absl::Status YamlFields::Error(absl::string_view key, absl::string_view what, absl::string_view expected) const {
  return absl::InvalidArgumentError(
      absl::StrCat(file_, ": ", key, key.empty() ? "" : ": ", what, "; expected ", expected));
}

absl::StatusOr<std::map<std::string, YAML::Node>> YamlFields::Entries(const YAML::Node& node, absl::string_view key,
                                                                      const std::vector<std::string>& allowed) const {
  const std::string expected_keys = absl::StrCat("one of: ", absl::StrJoin(allowed, ", "));
  if (!node.IsMap()) {
    return Error(key, absl::StrCat(key.empty() ? "the document is " : "is ", Describe(node)),
                 absl::StrCat("a map (keys: ", absl::StrJoin(allowed, ", "), ")"));
  }
  std::map<std::string, YAML::Node> entries;
  for (const auto& entry : node) {
    if (!entry.first.IsScalar()) {
      return Error(key, absl::StrCat("has a key that is ", Describe(entry.first)),
                   absl::StrCat("plain keys, ", expected_keys));
    }
    const std::string name = entry.first.Scalar();
    const std::string full_key = JoinKey(key, name);
    if (std::find(allowed.begin(), allowed.end(), name) == allowed.end()) {
      std::string what = "unknown key";
      for (const std::string& candidate : allowed) {
        if (EditDistance(name, candidate) <= 2) {
          what = absl::StrCat("unknown key (did you mean '", candidate, "'?)");
          break;
        }
      }
      return Error(full_key, what, expected_keys);
    }
    if (!entries.emplace(name, entry.second).second) {
      return Error(full_key, "appears twice", "each key at most once");
    }
  }
  return entries;
}

absl::StatusOr<std::string> YamlFields::Expand(const std::string& raw, absl::string_view key) const {
  std::string out;
  size_t i = 0;
  while (true) {
    const size_t start = raw.find("${", i);
    if (start == std::string::npos) break;
    out.append(raw, i, start - i);
    const size_t end = raw.find('}', start + 2);
    const std::string name = end == std::string::npos ? std::string() : raw.substr(start + 2, end - start - 2);
    if (name.empty() || !IsNameStart(name[0]) || !std::all_of(name.begin(), name.end(), IsNameChar)) {
      return Error(key, absl::StrCat("'", raw, "' has a malformed ${...} reference"),
                   "${NAME} with NAME made of letters, digits and underscores");
    }
    std::optional<std::string> value = env_ ? env_(name) : std::nullopt;
    if (!value.has_value()) {
      return Error(key, absl::StrCat("environment variable ", name, " is not set"),
                   absl::StrCat(name, " to be set in the environment (the value refers to ${", name, "})"));
    }
    out += *value;
    i = end + 1;
  }
  out.append(raw, i, std::string::npos);
  return out;
}

absl::StatusOr<std::string> YamlFields::Scalar(const YAML::Node& node, absl::string_view key,
                                               absl::string_view expected) const {
  if (!node.IsScalar()) return Error(key, absl::StrCat("is ", Describe(node)), expected);
  return Expand(node.Scalar(), key);
}

absl::StatusOr<std::string> YamlFields::String(const YAML::Node& node, absl::string_view key,
                                               absl::string_view expected) const {
  absl::StatusOr<std::string> value = Scalar(node, key, expected);
  if (value.ok() && value->empty()) return Error(key, "is an empty string", expected);
  return value;
}

absl::StatusOr<int64_t> YamlFields::Integer(const YAML::Node& node, absl::string_view key, int64_t min,
                                            int64_t max) const {
  // Bounds at or beyond the range of int only guard against overflow; messages leave them out.
  const bool has_min = min > std::numeric_limits<int>::min();
  const bool has_max = max < std::numeric_limits<int>::max();
  std::string expected = "an integer";
  if (has_min && has_max) {
    expected = absl::StrCat("an integer between ", min, " and ", max);
  } else if (has_min) {
    expected = absl::StrCat("an integer >= ", min);
  } else if (has_max) {
    expected = absl::StrCat("an integer <= ", max);
  }
  absl::StatusOr<std::string> text = Scalar(node, key, expected);
  if (!text.ok()) return text.status();
  const std::optional<int64_t> value = ReadWhole<int64_t>(*text);
  if (!value.has_value()) return Error(key, absl::StrCat("'", *text, "' is not an integer"), expected);
  if (*value < min || *value > max) return Error(key, absl::StrCat(*value, " is out of range"), expected);
  return *value;
}

absl::StatusOr<uint64_t> YamlFields::Unsigned(const YAML::Node& node, absl::string_view key) const {
  constexpr char kExpected[] = "a non-negative integer";
  absl::StatusOr<std::string> text = Scalar(node, key, kExpected);
  if (!text.ok()) return text.status();
  const std::optional<uint64_t> value = ReadWhole<uint64_t>(*text);
  if (!value.has_value()) return Error(key, absl::StrCat("'", *text, "' is not a non-negative integer"), kExpected);
  return *value;
}

absl::StatusOr<double> YamlFields::Number(const YAML::Node& node, absl::string_view key, double min, double max) const {
  const std::string expected = absl::StrCat("a number between ", min, " and ", max);
  absl::StatusOr<std::string> text = Scalar(node, key, expected);
  if (!text.ok()) return text.status();
  const std::optional<double> value = ReadWhole<double>(*text);
  if (!value.has_value() || !std::isfinite(*value)) {
    return Error(key, absl::StrCat("'", *text, "' is not a number"), expected);
  }
  if (*value < min || *value > max) {
    return Error(key, absl::StrCat(*text, " is outside [", min, ", ", max, "]"), expected);
  }
  return *value;
}

absl::StatusOr<bool> YamlFields::Bool(const YAML::Node& node, absl::string_view key) const {
  constexpr char kExpected[] = "true or false";
  absl::StatusOr<std::string> text = Scalar(node, key, kExpected);
  if (!text.ok()) return text.status();
  const std::string lower = absl::AsciiStrToLower(*text);
  if (lower == "true" || lower == "yes" || lower == "on") return true;
  if (lower == "false" || lower == "no" || lower == "off") return false;
  return Error(key, absl::StrCat("'", *text, "' is not a boolean"), kExpected);
}

absl::Status YamlFields::NonEmptyList(const YAML::Node& node, absl::string_view key, absl::string_view element) const {
  const std::string expected = absl::StrCat("a non-empty list of ", element);
  if (!node.IsSequence()) return Error(key, absl::StrCat("is ", Describe(node)), expected);
  if (node.size() == 0) return Error(key, "is an empty list", expected);
  return absl::OkStatus();
}

}  // namespace noveltygrid
