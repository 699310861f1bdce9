// The progress line and the status text as pure functions of their figures: no clock, no terminal.
#include "cli/progress.h"

#include "cli/status_view.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace noveltygrid::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// 937 of 940 units, 900 of them in this run's 450 s, three calls waiting on their retries.
ProgressFigures Stuck() {
  ProgressFigures f;
  f.units_total = 940;
  f.units_done = 937;
  f.units_done_this_run = 900;
  f.answers_this_run = 27'000;
  f.tokens = 1'234'567;
  f.cost_usd = 3.4149;
  f.calls = CallWaits{.in_flight = 3, .retrying = 3, .limited = 0, .oldest = absl::Seconds(31)};
  f.elapsed = absl::Seconds(450);
  return f;
}

TEST(ProgressLineTest, ShowsBarRatesTokensDollarsAndTheCallsWaiting) {
  EXPECT_EQ(ProgressLine("sweep", Stuck(), 20),
            "sweep [###################-] 937/940 units 99.7% | 2.0 units/s, 60.0 answers/s | 1.23M tokens, $3.41 | "
            "calls: 3 retrying, 3 in flight (oldest 31s) | 7m30s, eta 1s");
}

TEST(ProgressLineTest, PlainLineHasTheSameFiguresWithoutTheBar) {
  const std::string line = ProgressLine("sweep", Stuck(), 0);
  EXPECT_EQ(line.rfind("sweep: 937/940 units 99.7% | ", 0), 0u) << line;
  EXPECT_THAT(line, HasSubstr("calls: 3 retrying, 3 in flight (oldest 31s)"));
  EXPECT_THAT(line, Not(HasSubstr("[")));
}

TEST(ProgressLineTest, WithoutPricesWaitsOrFailuresThoseAreLeftOut) {
  ProgressFigures f = Stuck();
  f.cost_usd.reset();
  f.calls = {};
  f.units_failed = 0;
  const std::string line = ProgressLine("s", f, 0);
  EXPECT_THAT(line, Not(HasSubstr("$")));
  EXPECT_THAT(line, Not(HasSubstr("calls:")));
  EXPECT_THAT(line, Not(HasSubstr("failed")));
  f.units_failed = 2;
  EXPECT_THAT(ProgressLine("s", f, 0), HasSubstr("| 2 failed |"));
}

TEST(ProgressLineTest, LimitsAndNoRateYet) {
  ProgressFigures f;
  f.units_total = 10;
  f.calls.limited = 4;
  f.elapsed = absl::ZeroDuration();
  EXPECT_EQ(
      ProgressLine("s", f, 4),
      "s [----] 0/10 units 0.0% | 0.0 units/s, 0.0 answers/s | 0 tokens | calls: 4 at provider limits | 0s, eta -");
  f.units_done = 10;
  EXPECT_EQ(ProgressLine("s", f, 4).substr(0, 24), "s [####] 10/10 units 100");
}

TEST(ProgressLineTest, DurationsAndCounts) {
  EXPECT_EQ(ShortDuration(absl::Seconds(59)), "59s");
  EXPECT_EQ(ShortDuration(absl::Seconds(61)), "1m01s");
  EXPECT_EQ(ShortDuration(absl::Hours(2) + absl::Minutes(3) + absl::Seconds(4)), "2h03m");
  EXPECT_EQ(ShortDuration(-absl::Seconds(3)), "0s");
  EXPECT_EQ(FormatCount(999), "999");
  EXPECT_EQ(FormatCount(12'345), "12.3k");
  EXPECT_EQ(FormatCount(4'560'000'000), "4.56G");
}

TEST(StatusViewTest, TextAndJsonCarryTheFigures) {
  v1::StatusResponse s;
  s.set_sweep("quick");
  s.set_units_total(940);
  s.set_units_done(937);
  s.set_units_done_this_run(900);
  s.set_answers(28'000);
  s.set_answers_this_run(27'000);
  s.set_prompt_tokens(1'000'000);
  s.set_completion_tokens(234'567);
  s.set_priced(true);
  s.set_cost_usd(3.4149);
  s.set_run_ms(450'000);
  s.mutable_calls()->set_retrying(3);
  s.mutable_calls()->set_in_flight(3);
  s.mutable_calls()->set_oldest_ms(31'000);
  v1::WorkerStatus* w = s.add_workers();
  w->set_worker_id("w1");
  *w->mutable_calls() = s.calls();
  const std::string text = StatusText(s);
  EXPECT_THAT(text, HasSubstr("sweep quick: 937/940 units done"));
  EXPECT_THAT(text, HasSubstr("progress: 937/940 units 99.7% | 2.0 units/s, 60.0 answers/s | 1.23M tokens, $3.41"));
  EXPECT_THAT(text, HasSubstr("calls: 3 retrying, 3 in flight (oldest 31s)\n"));
  EXPECT_THAT(text, HasSubstr("cost $3.4149"));
  EXPECT_THAT(text, testing::ContainsRegex("w1 +0 +0 +0 +0ms +3 +3 +0 +31s"));
  const Json j = StatusJson(s);
  EXPECT_EQ(j["calls"]["retrying"], 3);
  EXPECT_EQ(j["workers"][0]["calls"]["oldest_ms"], 31'000);
  EXPECT_DOUBLE_EQ(j["cost_usd"].get<double>(), 3.4149);
  EXPECT_DOUBLE_EQ(j["run"]["units_per_second"].get<double>(), 2.0);
  s.set_priced(false);
  EXPECT_TRUE(StatusJson(s)["cost_usd"].is_null());
}

}  // namespace
}  // namespace noveltygrid::cli
