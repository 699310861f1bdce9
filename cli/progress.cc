#include "cli/progress.h"

#include <unistd.h>

#include <cstdio>

#include "absl/strings/str_format.h"

namespace noveltygrid::cli {

Progress::Progress(std::string label, int64_t total_units, int64_t already_done)
    : label_(std::move(label)),
      total_(total_units),
      tty_(::isatty(STDERR_FILENO) == 1),
      start_(std::chrono::steady_clock::now()),
      done_(already_done) {}

void Progress::UnitDone(int64_t answers, bool failed) {
  absl::MutexLock lock(&mu_);
  ++done_;
  ++done_this_run_;
  answers_ += answers;
  if (failed) ++failed_;
  Draw(false);
}

void Progress::Finish() {
  absl::MutexLock lock(&mu_);
  Draw(true);
}

void Progress::Draw(bool final) {
  const auto now = std::chrono::steady_clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const int decile = total_ > 0 ? static_cast<int>(done_ * 10 / total_) : 10;
  if (!final) {
    if (tty_ && now - last_draw_ < std::chrono::milliseconds(100)) return;
    if (!tty_ && decile == last_decile_) return;
  } else if (!tty_ && decile == last_decile_ && done_ == total_) {
    return;  // the last decile line already showed the final tally
  }
  last_draw_ = now;
  last_decile_ = decile;
  std::string eta = "-";
  if (done_this_run_ > 0 && done_ < total_) {
    eta = absl::StrFormat("%.0fs", elapsed / done_this_run_ * (total_ - done_));
  }
  std::string line =
      absl::StrFormat("%s: %d/%d units (%.0f%%), %d answers, %d failed, %.1fs elapsed, eta %s", label_, done_, total_,
                      total_ > 0 ? 100.0 * done_ / total_ : 100.0, answers_, failed_, elapsed, eta);
  if (tty_) {
    std::fprintf(stderr, "\r\033[K%s%s", line.c_str(), final ? "\n" : "");
  } else {
    std::fprintf(stderr, "%s\n", line.c_str());
  }
  std::fflush(stderr);
}

}  // namespace noveltygrid::cli
