// A stuck call cannot stall a sweep silently: every model request of this sweep times out at serve-sim
// (held, never answered) and is retried, so its unit makes no step for many provider timeouts. The
// worker logs the unit with the call it waits on, and the coordinator's status (what `status` and the
// progress line show) counts it as stalled with the same words.
#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/integration/cluster_harness.h"
#include "tests/integration/process.h"

namespace noveltygrid::testing {
namespace {

TEST_F(ClusterTest, AUnitWaitingOnAStuckCallIsReportedWithTheCall) {
  std::string url;
  std::unique_ptr<Process> server =
      StartServeSim({"--fault-rate", "1", "--faults", "timeout", "--timeout-hold-ms", "600000"}, {}, &url);
  ASSERT_NE(server, nullptr);
  const std::string config = WriteSweepYaml(
      Path("stuck.yaml"), "stuck", 7, {"sim:explorer"}, {"0.7"},
      NOVELTYGRID_SOURCE_DIR "/datasets/aidanbench/questions-paper-65.jsonl",
      absl::StrCat("providers:\n  sim:\n    base_url: ", url,
                   "/v1\n    timeout_s: 0.3\n    max_retries: 50\n    initial_backoff_ms: 10\n    max_backoff_s: 1\n"));
  std::string address;
  std::unique_ptr<Process> coordinator = StartCoordinator(config, Path("cluster"), {"--heartbeat-ms", "200"}, &address);
  ASSERT_NE(coordinator, nullptr);
  // Stalled after 2 x 0.3 s without a step.
  std::unique_ptr<Process> worker = StartWorker(address, "w", 2, {"--stall-multiple", "2"});
  ASSERT_NE(worker, nullptr);

  absl::StatusOr<std::string> logged = worker->WaitForLine(Process::Stream::kStderr, [](const std::string& line) {
    return absl::StrContains(line, ": no step or new call for ") &&
           absl::StrContains(line, "waiting on generate by sim:explorer");
  });
  ASSERT_TRUE(logged.ok()) << logged.status() << "\n" << worker->Output();
  EXPECT_TRUE(absl::StrContains(*logged, "noveltygrid worker: unit ")) << *logged;
  EXPECT_TRUE(absl::StrContains(*logged, "stall threshold 2 x the provider timeout 300ms")) << *logged;

  absl::StatusOr<v1::StatusResponse> status =
      CoordinatorClient(address, kToken).PollUntil([](const v1::StatusResponse& s) { return s.calls().stalled() > 0; });
  ASSERT_TRUE(status.ok()) << status.status() << "\n" << coordinator->Output();
  EXPECT_LE(status->calls().stalled(), 2);
  EXPECT_TRUE(absl::StrContains(status->calls().stalled_unit(), "waiting on generate by sim:explorer"))
      << status->calls().stalled_unit();
  std::printf("%s\n", logged->c_str());
  ASSERT_EQ(status->workers_size(), 1);
  EXPECT_EQ(status->workers(0).calls().stalled(), status->calls().stalled());
}

}  // namespace
}  // namespace noveltygrid::testing
