#include "common/storage/store_guard.h"

#include <cstdio>

namespace noveltygrid {

bool StoreGuard::Allow() {
  absl::MutexLock lock(&mu_);
  return !down_ || absl::Now() >= retry_at_;
}

void StoreGuard::Record(const absl::Status& status) {
  absl::MutexLock lock(&mu_);
  if (status.ok()) {
    if (down_) std::fprintf(stderr, "noveltygrid: %s: the store answers again\n", what_.c_str());
    down_ = false;
    return;
  }
  if (!down_) {
    std::fprintf(stderr, "noveltygrid: warning: %s unavailable (%s); continuing without it, results are unchanged\n",
                 what_.c_str(), std::string(status.message()).c_str());
  }
  down_ = true;
  retry_at_ = absl::Now() + cool_down_;
}

}  // namespace noveltygrid
