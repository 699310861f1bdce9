// Progress of a long sweep on the terminal. On a TTY one line redrawn in place a few times a second:
//
//   quickstart [#########-----------] 937/940 units 99.7% | 2.1 units/s, 61.3 answers/s |
//     1.23M tokens, $3.41 | calls: 3 retrying, 3 in flight (oldest 31s) | 7m12s, eta 2s
//
// (one line; wrapped here). When stderr is a file or a pipe (CI logs): the same line without the bar,
// once every ten percent and at least once a minute (so a sweep that stands still says what its calls
// wait for). The figures come from a sampler (the coordinator's status in this
// process); the line is a pure function of them (ProgressLine), tested without a clock.
#ifndef NOVELTYGRID_CLI_PROGRESS_H_
#define NOVELTYGRID_CLI_PROGRESS_H_

#include <cstdint>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <thread>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/call_cost.h"

namespace noveltygrid::cli {

struct ProgressFigures {
  int64_t units_total = 0;
  int64_t units_done = 0;  // resumed ones included
  int64_t units_failed = 0;
  int64_t units_done_this_run = 0;  // for the rates
  int64_t answers_this_run = 0;
  int64_t tokens = 0;              // prompt + completion of the committed units
  std::optional<double> cost_usd;  // when the config has prices
  CallWaits calls;                 // the workers' model calls waiting
  absl::Duration elapsed;          // since this run started
};

// "45s", "7m12s", "2h03m".
std::string ShortDuration(absl::Duration d);
// "950", "12.3k", "1.23M", "4.56G".
std::string FormatCount(int64_t n);
// "calls: 3 retrying, 2 at provider limits, 5 in flight (oldest 31s) | 1 unit(s) stalled (unit ...)"; ""
// when no call waits and no unit is stalled.
std::string CallWaitsText(const CallWaits& calls);

// The progress line of `label` (no newline). `bar_width` > 0 draws a bar of that many cells first.
std::string ProgressLine(const std::string& label, const ProgressFigures& f, int bar_width);

class Progress {
 public:
  using Sampler = std::function<ProgressFigures()>;
  // Draws on `out` (default stderr; TTY when it is one) from a thread of its own until Finish().
  // `sample` is called from that thread and must be thread-safe.
  Progress(std::string label, Sampler sample, FILE* out = stderr);
  ~Progress();  // Finish()

  // A unit finished: a line is due sooner than the next tick (non-TTY: when its tenth changed).
  void Poke();
  // Stops the thread and prints the final line (once).
  void Finish();

 private:
  void Loop();
  // Draws `f` if it is due (`final`: always, unless a plain line already showed the same tally).
  void Draw(const ProgressFigures& f, bool final) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string label_;
  const Sampler sample_;
  FILE* const out_;
  const bool tty_;
  absl::Mutex mu_;
  bool poked_ ABSL_GUARDED_BY(mu_) = false;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  int last_decile_ ABSL_GUARDED_BY(mu_) = -1;
  int64_t last_done_ ABSL_GUARDED_BY(mu_) = -1;
  absl::Time last_line_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  std::thread thread_;
};

}  // namespace noveltygrid::cli

#endif  // NOVELTYGRID_CLI_PROGRESS_H_
