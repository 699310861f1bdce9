// Thread priorities within one process. Linux keeps a nice value per thread, and a thread starts with
// the nice value of the thread that created it: a library's threads can be given a lower priority than
// the process's own by creating them from a thread that lowered its own first.
//
// The coordinator uses it so that its committers -- which every commit waits for -- run before gRPC's
// reactor threads when they contend for a core (coordinator/sweep_coordinator.cc).
// Lowering a priority needs no privilege (raising one back would need CAP_SYS_NICE).
#ifndef NOVELTYGRID_COMMON_THREAD_PRIORITY_H_
#define NOVELTYGRID_COMMON_THREAD_PRIORITY_H_

#include "absl/functional/function_ref.h"

namespace noveltygrid {

// The calling thread's nice value (-20..19).
int ThreadNice();

// Runs `f` on a new thread whose nice value is the caller's plus `lower_by` (at most 19), and waits for
// it; threads `f` starts inherit that value. Should the nice value not change (it cannot fail for a
// positive `lower_by` on Linux), `f` runs anyway, at the caller's priority.
void RunAtLowerPriority(int lower_by, absl::FunctionRef<void()> f);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COMMON_THREAD_PRIORITY_H_
