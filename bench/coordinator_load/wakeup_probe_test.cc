#include "bench/coordinator_load/wakeup_probe.h"

#include "gtest/gtest.h"

namespace noveltygrid::load {
namespace {

TEST(WakeupProbeTest, OnlyTheRecordedSleepsCount) {
  WakeupProbe probe(absl::Microseconds(100));
  for (int i = 0; i < 3; ++i) EXPECT_GE(probe.Sample(), absl::ZeroDuration());
  EXPECT_EQ(probe.Summarize().calls, 0);
  probe.SetRecording(true);
  for (int i = 0; i < 5; ++i) probe.Sample();
  probe.SetRecording(false);
  probe.Sample();
  const LatencySummary summary = probe.Summarize();
  EXPECT_EQ(summary.calls, 5);
  EXPECT_GE(summary.p50_us, 0);
  EXPECT_LE(summary.p50_us, summary.p99_us);
  EXPECT_LE(summary.p99_us, summary.max_us);
}

TEST(WakeupProbeTest, StopEndsTheThreadStartedOrNot) {
  WakeupProbe never_started;
  never_started.Stop();
  WakeupProbe probe(absl::Microseconds(100));
  probe.Start();
  probe.Stop();                           // returns: the thread saw it within one sleep
  EXPECT_EQ(probe.Summarize().calls, 0);  // never recording
}

}  // namespace
}  // namespace noveltygrid::load
