#include "common/config_reader.h"

#include <filesystem>
#include <system_error>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace noveltygrid {

absl::StatusOr<std::vector<double>> ConfigReader::Temperatures(const YAML::Node& node, const std::string& key) const {
  RETURN_IF_ERROR(fields_.NonEmptyList(node, key, "numbers between 0 and 2"));
  std::vector<double> temperatures;
  for (size_t i = 0; i < node.size(); ++i) {
    const std::string element_key = absl::StrCat(key, "[", i, "]");
    ASSIGN_OR_RETURN(double t, fields_.Number(node[i], element_key, 0, 2));
    for (size_t j = 0; j < temperatures.size(); ++j) {
      if (temperatures[j] == t) {
        return fields_.Error(element_key, absl::StrCat(t, " is listed twice (also ", key, "[", j, "])"),
                             "distinct temperatures");
      }
    }
    temperatures.push_back(t);
  }
  return temperatures;
}

absl::StatusOr<int> ConfigReader::Int(const YAML::Node& node, const std::string& key, int min, int max) const {
  ASSIGN_OR_RETURN(int64_t value, fields_.Integer(node, key, min, max));
  return static_cast<int>(value);
}

absl::Status ConfigReader::Wrap(const std::string& key, const absl::Status& inner, absl::string_view expected) const {
  const absl::string_view message = inner.message();
  if (absl::StrContains(message, "; expected ")) {
    return absl::InvalidArgumentError(absl::StrCat(fields_.file(), ": ", key, ": ", message));
  }
  return fields_.Error(key, message, expected);
}

std::string ConfigReader::Resolve(const std::string& path) const {
  std::filesystem::path p(path);
  if (p.is_relative()) p = std::filesystem::path(fields_.file()).parent_path() / p;
  std::error_code ec;
  std::filesystem::path absolute = std::filesystem::absolute(p, ec);
  return (ec ? p : absolute).lexically_normal().string();
}

const YAML::Node* ConfigReader::Find(const std::map<std::string, YAML::Node>& entries, const std::string& key) {
  auto it = entries.find(key);
  return it == entries.end() ? nullptr : &it->second;
}

}  // namespace noveltygrid
