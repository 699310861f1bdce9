// Typed, validated reading of YAML values for the config loader, with errors in the project's format:
//   "<file>: <dotted.key>: <what is wrong>; expected <what is expected>"
//
// Every scalar goes through `${NAME}` expansion (from the injected environment lookup) before it is
// typed, so `seed: ${SEED}` works as well as `judge: ${JUDGE_MODEL}`. Internal to the config library
// (config.cc, its sections and provider_yaml.cc). Const methods only; safe to share once built.
#ifndef NOVELTYGRID_COMMON_YAML_FIELDS_H_
#define NOVELTYGRID_COMMON_YAML_FIELDS_H_

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/env_lookup.h"
#include "yaml-cpp/yaml.h"

namespace noveltygrid {

// "a.b" from ("a", "b"); just "b" at the top level.
std::string JoinKey(absl::string_view prefix, absl::string_view key);

class YamlFields {
 public:
  YamlFields(std::string file, EnvLookup env) : file_(std::move(file)), env_(std::move(env)) {}

  const std::string& file() const { return file_; }

  // "<file>: <key>: <what>; expected <expected>" (without "<key>: " when key is empty).
  absl::Status Error(absl::string_view key, absl::string_view what, absl::string_view expected) const;

  // The entries of a map, after refusing a non-map, unknown keys (listing `allowed`) and repeated keys.
  absl::StatusOr<std::map<std::string, YAML::Node>> Entries(const YAML::Node& node, absl::string_view key,
                                                            const std::vector<std::string>& allowed) const;

  // A scalar, `${NAME}`-expanded. `expected` describes the value for error messages.
  absl::StatusOr<std::string> Scalar(const YAML::Node& node, absl::string_view key, absl::string_view expected) const;
  // A non-empty scalar.
  absl::StatusOr<std::string> String(const YAML::Node& node, absl::string_view key, absl::string_view expected) const;
  absl::StatusOr<int64_t> Integer(const YAML::Node& node, absl::string_view key,
                                  int64_t min = std::numeric_limits<int64_t>::min(),
                                  int64_t max = std::numeric_limits<int64_t>::max()) const;
  absl::StatusOr<uint64_t> Unsigned(const YAML::Node& node, absl::string_view key) const;
  absl::StatusOr<double> Number(const YAML::Node& node, absl::string_view key, double min, double max) const;
  absl::StatusOr<bool> Bool(const YAML::Node& node, absl::string_view key) const;

  // A non-empty list; `element` describes one entry for error messages.
  absl::Status NonEmptyList(const YAML::Node& node, absl::string_view key, absl::string_view element) const;

  // `${NAME}` references replaced from the environment (one pass; values are not re-expanded).
  absl::StatusOr<std::string> Expand(const std::string& raw, absl::string_view key) const;

 private:
  std::string file_;
  EnvLookup env_;
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COMMON_YAML_FIELDS_H_
