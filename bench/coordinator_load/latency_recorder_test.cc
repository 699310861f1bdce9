#include "bench/coordinator_load/latency_recorder.h"

#include <vector>

#include "gtest/gtest.h"

namespace noveltygrid::load {
namespace {

TEST(LatencyRecorderTest, KeepsSamplesOnlyWhileRecording) {
  LatencyRecorder recorder;
  recorder.Record(Rpc::kReport, absl::Milliseconds(500), true);  // warm-up: not kept
  recorder.SetRecording(true);
  for (int i = 1; i <= 10; ++i) recorder.Record(Rpc::kReport, absl::Milliseconds(i), i != 10);
  recorder.SetRecording(false);
  recorder.Record(Rpc::kReport, absl::Milliseconds(900), true);

  const LatencySummary report = recorder.Summarize(Rpc::kReport);
  EXPECT_EQ(report.calls, 10);
  EXPECT_EQ(report.errors, 1);
  EXPECT_EQ(report.p50_us, 5000);
  EXPECT_EQ(report.p99_us, 10000);
  EXPECT_EQ(report.max_us, 10000);
  EXPECT_EQ(recorder.Summarize(Rpc::kLease).calls, 0);
}

TEST(LatencyRecorderTest, P99PerWholeSecondOfTheWindow) {
  LatencyRecorder recorder;
  const absl::Time start = absl::FromUnixSeconds(1000);
  recorder.SetRecording(true, start);
  // Second 0: 100 calls of 1..100 ms; second 1: none ended; second 2: one of 70 ms; then 0.5 s more.
  for (int i = 1; i <= 100; ++i) {
    recorder.Record(Rpc::kReport, absl::Milliseconds(i), true, start + absl::Milliseconds(5 * i));
  }
  recorder.Record(Rpc::kLease, absl::Milliseconds(70), true, start + absl::Milliseconds(2100));
  recorder.Record(Rpc::kLease, absl::Milliseconds(900), true, start + absl::Milliseconds(3200));
  recorder.SetRecording(false, start + absl::Milliseconds(3500));
  recorder.Record(Rpc::kLease, absl::Milliseconds(900), true, start + absl::Milliseconds(3600));  // after
  EXPECT_EQ(recorder.P99BySecondUs(), (std::vector<int64_t>{99'000, -1, 70'000}));

  // A second window counts its own seconds only.
  recorder.SetRecording(true, start + absl::Seconds(10));
  recorder.Record(Rpc::kReport, absl::Milliseconds(3), true, start + absl::Milliseconds(10'500));
  recorder.SetRecording(false, start + absl::Seconds(11));
  EXPECT_EQ(recorder.P99BySecondUs(), (std::vector<int64_t>{3'000}));
}

}  // namespace
}  // namespace noveltygrid::load
