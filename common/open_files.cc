#include "common/open_files.h"

#include <sys/resource.h>

#include <algorithm>
#include <limits>

namespace noveltygrid {

void RaiseOpenFileLimit() {
  struct rlimit limit;
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= limit.rlim_max) return;
  limit.rlim_cur = limit.rlim_max;
  setrlimit(RLIMIT_NOFILE, &limit);  // a refusal leaves the old limit, which ConnectionRoom then follows
}

std::optional<int> ConnectionRoom(int reserved) {
  struct rlimit limit;
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return std::nullopt;
  const rlim_t keep = static_cast<rlim_t>(std::max(reserved, 0));
  const rlim_t room = limit.rlim_cur > keep + 64 ? limit.rlim_cur - keep : 64;
  return static_cast<int>(std::min<rlim_t>(room, std::numeric_limits<int>::max()));
}

}  // namespace noveltygrid
