// Executor: where callbacks run. Model replies and engine steps are scheduled here rather than run on
// the caller's stack, so a long loop never grows the stack and no thread blocks on a model call.
//
// Thread-safe. ThreadPool runs tasks on a fixed set of threads in FIFO order; its destructor runs every
// task already scheduled, then joins.
#ifndef NOVELTYGRID_COMMON_EXECUTOR_H_
#define NOVELTYGRID_COMMON_EXECUTOR_H_

#include <deque>
#include <thread>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "absl/synchronization/mutex.h"

namespace noveltygrid {

using Task = absl::AnyInvocable<void() &&>;

class Executor {
 public:
  virtual ~Executor() = default;
  virtual void Schedule(Task task) = 0;
};

class ThreadPool : public Executor {
 public:
  explicit ThreadPool(int threads);
  ~ThreadPool() override;
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  void Schedule(Task task) override;

 private:
  void WorkLoop();

  absl::Mutex mu_;
  std::deque<Task> queue_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::thread> threads_;
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COMMON_EXECUTOR_H_
