// Environment lookup for `${NAME}` expansion and API keys, injected so tests need not touch the
// process environment.
#ifndef NOVELTYGRID_COMMON_ENV_LOOKUP_H_
#define NOVELTYGRID_COMMON_ENV_LOOKUP_H_

#include <functional>
#include <optional>
#include <string>

namespace noveltygrid {

// Looks up an environment variable for `${NAME}` expansion; nullopt when it is not set.
using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;

// The process environment (std::getenv), the default lookup.
std::optional<std::string> ProcessEnv(const std::string& name);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COMMON_ENV_LOOKUP_H_
