// Process: a child process for integration tests -- the real `noveltygrid` binary started with
// arguments and extra environment variables, its stdout and stderr captured through pipes.
//
// Nothing here sleeps to synchronise: WaitForLine blocks on what the child writes, Wait blocks on the
// child's exit. Every child has a hard deadline after which it is SIGKILLed, so a broken test fails
// instead of hanging CI, and the destructor kills and reaps a child that is still running.
//
// Thread-safe. Internally: one thread per pipe appends what it reads to the captured text, one thread
// waits for the child's exit and one enforces the deadline; all of them are joined by the destructor. The child is only
// reaped after its exit was recorded under the lock, so Signal() never reaches a recycled pid.
#ifndef NOVELTYGRID_TESTS_INTEGRATION_PROCESS_H_
#define NOVELTYGRID_TESTS_INTEGRATION_PROCESS_H_

#include <sys/types.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace noveltygrid::testing {

struct ProcessOptions {
  std::vector<std::string> args;               // args[0] is the executable's path
  std::map<std::string, std::string> env;      // added to (or replacing in) this process's environment
  std::vector<std::string> unset_env;          // removed from the inherited environment
  absl::Duration timeout = absl::Seconds(90);  // hard limit: SIGKILL after this long
};

class Process {
 public:
  enum class Stream { kStdout, kStderr };

  // Starts the child. Fails when it cannot be spawned (e.g. the executable does not exist).
  static absl::StatusOr<std::unique_ptr<Process>> Start(ProcessOptions options);
  ~Process();  // SIGKILLs a child still running, reaps it, joins every thread

  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  pid_t pid() const { return pid_; }

  // Blocks until a complete line of `stream` satisfies `match` and returns it. Fails when the stream
  // ends (the child closed it or exited) or `timeout` passes first.
  absl::StatusOr<std::string> WaitForLine(Stream stream, const std::function<bool(const std::string&)>& match,
                                          absl::Duration timeout = absl::Seconds(30));
  // The common case: a stdout line starting with `prefix`.
  absl::StatusOr<std::string> WaitForStdoutPrefix(const std::string& prefix,
                                                  absl::Duration timeout = absl::Seconds(30));

  // Sends `signal` unless the child already exited.
  void Signal(int signal);

  // Blocks until the child exits (or the hard deadline kills it) and both pipes are drained.
  // Returns the exit code, or 128 + signal number when a signal ended it.
  int Wait();
  // Like Wait(), but gives up after `timeout`: nullopt when the child is still running.
  std::optional<int> WaitFor(absl::Duration timeout);

  bool timed_out() const;  // the hard deadline killed the child
  std::string Stdout() const;
  std::string Stderr() const;
  // Both, labelled, for failure messages.
  std::string Output() const;

 private:
  struct Captured {
    std::string text;
    bool closed = false;
  };

  Process(pid_t pid, absl::Duration timeout);
  void ReadPipe(int fd, Stream stream);
  void Reap();
  void Watchdog();
  Captured& captured(Stream stream) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return stream == Stream::kStdout ? stdout_ : stderr_;
  }
  bool Finished() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return exit_code_.has_value() && stdout_.closed && stderr_.closed;
  }

  // Constant after construction.
  const pid_t pid_;
  const absl::Time deadline_;

  mutable absl::Mutex mu_;
  Captured stdout_ ABSL_GUARDED_BY(mu_);
  Captured stderr_ ABSL_GUARDED_BY(mu_);
  bool exited_ ABSL_GUARDED_BY(mu_) = false;  // the child is a zombie or reaped: never signal it again
  std::optional<int> exit_code_ ABSL_GUARDED_BY(mu_);
  bool timed_out_ ABSL_GUARDED_BY(mu_) = false;

  std::thread stdout_reader_;
  std::thread stderr_reader_;
  std::thread reaper_;
  std::thread watchdog_;
};

}  // namespace noveltygrid::testing

#endif  // NOVELTYGRID_TESTS_INTEGRATION_PROCESS_H_
