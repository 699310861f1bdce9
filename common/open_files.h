// The process's open-file limit, which caps its connections: over HTTP/1.1 every request in flight
// holds one, and a worker with thousands of loops needs thousands of descriptors.
#ifndef NOVELTYGRID_COMMON_OPEN_FILES_H_
#define NOVELTYGRID_COMMON_OPEN_FILES_H_

#include <optional>

namespace noveltygrid {

// Raises the soft limit to the hard one (the system's say). Best effort: call before threads start.
void RaiseOpenFileLimit();

// How many connections the soft limit leaves room for, `reserved` descriptors kept for everything
// else (at least 64); nullopt when the limit is unlimited or unknown.
std::optional<int> ConnectionRoom(int reserved = 256);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COMMON_OPEN_FILES_H_
