// InlineExecutor: runs each task at once on the scheduling thread, so that a limiter's `go` callbacks
// have run when its admission round returns. For the limiter tests.
#ifndef NOVELTYGRID_TESTS_WORKER_LIMITS_INLINE_EXECUTOR_H_
#define NOVELTYGRID_TESTS_WORKER_LIMITS_INLINE_EXECUTOR_H_

#include <utility>

#include "common/executor.h"

namespace noveltygrid::testing {

class InlineExecutor : public Executor {
 public:
  void Schedule(Task task) override { std::move(task)(); }
};

}  // namespace noveltygrid::testing

#endif  // NOVELTYGRID_TESTS_WORKER_LIMITS_INLINE_EXECUTOR_H_
