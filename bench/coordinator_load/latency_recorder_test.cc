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

}  // namespace
}  // namespace noveltygrid::load
