// Progress of a long sweep on the terminal: one line redrawn in place on a TTY, or a plain line every
// ten percent when stderr is a file or a pipe (CI logs). Thread-safe.
#ifndef NOVELTYGRID_CLI_PROGRESS_H_
#define NOVELTYGRID_CLI_PROGRESS_H_

#include <chrono>
#include <cstdint>
#include <string>

#include "absl/synchronization/mutex.h"

namespace noveltygrid::cli {

class Progress {
 public:
  Progress(std::string label, int64_t total_units, int64_t already_done);

  // One unit finished with `answers` records.
  void UnitDone(int64_t answers, bool failed);
  // Clears the live line and prints the final tally.
  void Finish();

 private:
  void Draw(bool final) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string label_;
  const int64_t total_;
  const bool tty_;
  const std::chrono::steady_clock::time_point start_;
  absl::Mutex mu_;
  int64_t done_ ABSL_GUARDED_BY(mu_);
  int64_t done_this_run_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t answers_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t failed_ ABSL_GUARDED_BY(mu_) = 0;
  int last_decile_ ABSL_GUARDED_BY(mu_) = -1;
  std::chrono::steady_clock::time_point last_draw_ ABSL_GUARDED_BY(mu_);
};

}  // namespace noveltygrid::cli

#endif  // NOVELTYGRID_CLI_PROGRESS_H_
