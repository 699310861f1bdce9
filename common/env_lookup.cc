#include "common/env_lookup.h"

#include <cstdlib>

namespace noveltygrid {

std::optional<std::string> ProcessEnv(const std::string& name) {
  const char* value = std::getenv(name.c_str());
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

}  // namespace noveltygrid
