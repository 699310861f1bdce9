#include "bench/coordinator_load/latency_recorder.h"

#include <numeric>
#include <vector>

#include "gtest/gtest.h"

namespace noveltygrid::load {
namespace {

TEST(PercentileTest, NearestRank) {
  std::vector<int64_t> samples(100);
  std::iota(samples.begin(), samples.end(), 1);  // 1..100
  EXPECT_EQ(Percentile(samples, 50), 50);
  EXPECT_EQ(Percentile(samples, 99), 99);
  EXPECT_EQ(Percentile(samples, 100), 100);
  EXPECT_EQ(Percentile(samples, 0.5), 1);
}

TEST(PercentileTest, FewAndNoSamples) {
  std::vector<int64_t> none;
  EXPECT_EQ(Percentile(none, 99), 0);
  std::vector<int64_t> three = {30, 10, 20};
  EXPECT_EQ(Percentile(three, 50), 20);
  EXPECT_EQ(Percentile(three, 99), 30);
}

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
