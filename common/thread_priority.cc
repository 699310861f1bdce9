#include "common/thread_priority.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <thread>

namespace noveltygrid {

namespace {

// PRIO_PROCESS with a thread id addresses that thread alone (Linux keeps nice values per thread).
id_t ThisThread() { return static_cast<id_t>(syscall(SYS_gettid)); }

}  // namespace

int ThreadNice() { return getpriority(PRIO_PROCESS, ThisThread()); }  // cannot fail for the caller itself

void RunAtLowerPriority(int lower_by, absl::FunctionRef<void()> f) {
  const int nice = std::min(19, ThreadNice() + std::max(0, lower_by));
  std::thread runner([&] {
    setpriority(PRIO_PROCESS, ThisThread(), nice);  // best effort: see the header
    f();
  });
  runner.join();
}

}  // namespace noveltygrid
