// ConfigReader: what every section of the sweep config loader reads with -- typed YAML values with
// errors in the project's format (YamlFields), numbers, temperature lists, paths relative to the
// config file, and errors from the files the config names. Internal to the config library (config.cc
// and the section parsers, config_sections.h); immutable once built.
#ifndef NOVELTYGRID_COMMON_CONFIG_READER_H_
#define NOVELTYGRID_COMMON_CONFIG_READER_H_

#include <limits>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/env_lookup.h"
#include "common/yaml_fields.h"
#include "yaml-cpp/yaml.h"

namespace noveltygrid {

class ConfigReader {
 public:
  ConfigReader(const std::string& path, const EnvLookup& env) : fields_(path, env) {}

 protected:
  // A non-empty list of distinct numbers in [0, 2].
  absl::StatusOr<std::vector<double>> Temperatures(const YAML::Node& node, const std::string& key) const;

  absl::StatusOr<int> Int(const YAML::Node& node, const std::string& key, int min,
                          int max = std::numeric_limits<int>::max()) const;

  // An error from loading a file the config names, as "<config>: <key>: <inner message>".
  absl::Status Wrap(const std::string& key, const absl::Status& inner, absl::string_view expected) const;

  // Relative paths are relative to the config file's folder; the result is absolute and normal.
  std::string Resolve(const std::string& path) const;

  // The entry under `key`, or null.
  static const YAML::Node* Find(const std::map<std::string, YAML::Node>& entries, const std::string& key);

  YamlFields fields_;
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COMMON_CONFIG_READER_H_
