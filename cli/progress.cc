#include "cli/progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace noveltygrid::cli {
namespace {

constexpr absl::Duration kTtyTick = absl::Milliseconds(250);
constexpr absl::Duration kPlainTick = absl::Seconds(1);
constexpr absl::Duration kMinSampleGap = absl::Milliseconds(100);
constexpr absl::Duration kPlainEvery = absl::Minutes(1);  // a plain line at least this often

double PerSecond(int64_t n, absl::Duration elapsed) {
  const double seconds = absl::ToDoubleSeconds(elapsed);
  return seconds > 0 ? static_cast<double>(n) / seconds : 0;
}

std::string Rate(double r) { return r >= 100 ? absl::StrFormat("%.0f", r) : absl::StrFormat("%.1f", r); }

// Columns of the terminal on `out`, or 0 when unknown.
int Columns(FILE* out) {
  struct winsize size {};
  if (::ioctl(::fileno(out), TIOCGWINSZ, &size) == 0) return size.ws_col;
  return 0;
}

}  // namespace

std::string ShortDuration(absl::Duration d) {
  const int64_t s = std::max<int64_t>(0, absl::ToInt64Seconds(d));
  if (s < 60) return absl::StrCat(s, "s");
  if (s < 3600) return absl::StrFormat("%dm%02ds", s / 60, s % 60);
  return absl::StrFormat("%dh%02dm", s / 3600, s % 3600 / 60);
}

std::string FormatCount(int64_t n) {
  if (n < 1000) return absl::StrCat(n);
  const double v = static_cast<double>(n);
  if (n < 1'000'000) return absl::StrFormat("%.1fk", v / 1e3);
  if (n < 1'000'000'000) return absl::StrFormat("%.2fM", v / 1e6);
  return absl::StrFormat("%.2fG", v / 1e9);
}

std::string CallWaitsText(const CallWaits& calls) {
  std::vector<std::string> parts;
  if (calls.retrying > 0) parts.push_back(absl::StrCat(calls.retrying, " retrying"));
  if (calls.limited > 0) parts.push_back(absl::StrCat(calls.limited, " at provider limits"));
  if (calls.in_flight > 0) {
    parts.push_back(absl::StrCat(calls.in_flight, " in flight (oldest ", ShortDuration(calls.oldest), ")"));
  }
  std::string text = parts.empty() ? "" : absl::StrCat("calls: ", absl::StrJoin(parts, ", "));
  if (calls.stalled > 0) {
    absl::StrAppend(&text, text.empty() ? "" : " | ", calls.stalled, " unit(s) stalled",
                    calls.stalled_unit.empty() ? "" : absl::StrCat(" (", calls.stalled_unit, ")"));
  }
  return text;
}

std::string ProgressLine(const std::string& label, const ProgressFigures& f, int bar_width) {
  const double fraction = f.units_total > 0 ? static_cast<double>(f.units_done) / f.units_total : 1.0;
  std::string line = label;
  if (bar_width > 0) {
    const int filled = std::clamp(static_cast<int>(fraction * bar_width), 0, bar_width);
    absl::StrAppend(&line, " [", std::string(filled, '#'), std::string(bar_width - filled, '-'), "]");
  } else {
    absl::StrAppend(&line, ":");
  }
  const double units_rate = PerSecond(f.units_done_this_run, f.elapsed);
  absl::StrAppend(&line, " ", f.units_done, "/", f.units_total, " units ", absl::StrFormat("%.1f%%", 100 * fraction),
                  " | ", Rate(units_rate), " units/s, ", Rate(PerSecond(f.answers_this_run, f.elapsed)),
                  " answers/s | ", FormatCount(f.tokens), " tokens");
  if (f.cost_usd.has_value()) {
    // Cents once there are dollars; small sums (a start, cheap models) keep four decimals.
    absl::StrAppend(&line, ", $",
                    *f.cost_usd >= 1 ? absl::StrFormat("%.2f", *f.cost_usd) : absl::StrFormat("%.4f", *f.cost_usd));
  }
  if (const std::string calls = CallWaitsText(f.calls); !calls.empty()) absl::StrAppend(&line, " | ", calls);
  if (f.units_failed > 0) absl::StrAppend(&line, " | ", f.units_failed, " failed");
  absl::StrAppend(&line, " | ", ShortDuration(f.elapsed));
  const int64_t left = f.units_total - f.units_done;
  if (left > 0) {
    absl::StrAppend(&line, ", eta ",
                    units_rate > 0 ? ShortDuration(absl::Seconds(static_cast<double>(left) / units_rate)) : "-");
  }
  return line;
}

Progress::Progress(std::string label, Sampler sample, FILE* out)
    : label_(std::move(label)), sample_(std::move(sample)), out_(out), tty_(::isatty(::fileno(out)) == 1) {
  thread_ = std::thread([this] { Loop(); });
}

Progress::~Progress() { Finish(); }

void Progress::Poke() {
  absl::MutexLock lock(&mu_);
  poked_ = true;
}

void Progress::Loop() {
  absl::Time sampled = absl::InfinitePast();
  while (true) {
    {
      absl::MutexLock lock(&mu_);
      auto woken = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stopping_ || poked_; };
      mu_.AwaitWithTimeout(absl::Condition(&woken), tty_ ? kTtyTick : kPlainTick);
      // Pokes come with every commit (thousands a second on a cluster) and a sample reads the whole
      // scheduler's status: at most one sample per kMinSampleGap, however often it is poked.
      auto stopping = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stopping_; };
      mu_.AwaitWithTimeout(absl::Condition(&stopping), sampled + kMinSampleGap - absl::Now());
      if (stopping_) return;
      poked_ = false;
    }
    const ProgressFigures f = sample_();  // outside the lock: it asks the coordinator
    sampled = absl::Now();
    absl::MutexLock lock(&mu_);
    if (stopping_) return;
    Draw(f, /*final=*/false);
  }
}

void Progress::Finish() {
  {
    absl::MutexLock lock(&mu_);
    if (finished_) return;
    finished_ = true;
    stopping_ = true;
  }
  if (thread_.joinable()) thread_.join();
  const ProgressFigures f = sample_();
  absl::MutexLock lock(&mu_);
  Draw(f, /*final=*/true);
}

void Progress::Draw(const ProgressFigures& f, bool final) {
  const absl::Time now = absl::Now();
  const int decile = f.units_total > 0 ? static_cast<int>(f.units_done * 10 / f.units_total) : 10;
  if (!tty_) {
    const bool due = decile != last_decile_ || now - last_line_ >= kPlainEvery;
    if (final ? f.units_done == last_done_ : !due) return;
    last_decile_ = decile;
    last_done_ = f.units_done;
    last_line_ = now;
    std::fprintf(out_, "%s\n", ProgressLine(label_, f, 0).c_str());
  } else {
    std::string line = ProgressLine(label_, f, 20);
    if (const int columns = Columns(out_); columns > 1 && static_cast<int>(line.size()) >= columns) {
      line.resize(columns - 1);  // a wrapped line could not be redrawn in place
    }
    std::fprintf(out_, "\r\033[K%s%s", line.c_str(), final ? "\n" : "");
  }
  std::fflush(out_);
}

}  // namespace noveltygrid::cli
