// CheckYamlExpansion: how large a YAML document is once its aliases are expanded, which is what every
// walk of the tree yaml-cpp builds visits. yaml-cpp shares an anchored node between its aliases, so
// loading a "billion laughs" document (nine aliases of a list of nine aliases of ...) is cheap, but
// reading it -- checking every value, turning extra_body into JSON -- expands it again and again; an
// alias inside the node it names makes a cycle no walk leaves. The config loader refuses both before
// it reads anything. Internal to the config library.
#ifndef NOVELTYGRID_COMMON_YAML_EXPANSION_H_
#define NOVELTYGRID_COMMON_YAML_EXPANSION_H_

#include <cstdint>
#include <optional>
#include <string>

#include "yaml-cpp/yaml.h"

namespace noveltygrid {

// The most values (maps, lists and scalars, aliases counted as what they name) a sweep config may
// hold: a config written out by hand has a few hundred.
inline constexpr int64_t kMaxConfigValues = 100'000;

struct YamlExpansionError {
  YAML::Mark mark;   // where the document passed the limit, or of the alias that makes a cycle
  std::string what;  // worded for "<file>: line L, column C: <what>"
};

// Nullopt when the first document of `text` expands to at most `max_values` values and no alias lies
// inside the node it names. Reads the text with yaml-cpp's event parser, no tree; malformed YAML is
// reported as an error too (with yaml-cpp's message).
std::optional<YamlExpansionError> CheckYamlExpansion(const std::string& text, int64_t max_values = kMaxConfigValues);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COMMON_YAML_EXPANSION_H_
