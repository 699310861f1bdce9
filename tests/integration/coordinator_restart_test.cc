// A coordinator restart costs no model calls: the coordinator is SIGKILLed three times during a cluster
// sweep of three workers whose models answer through a real serve-sim with latency, and each time a new
// one starts on the same address from the journal. The workers run on through the gaps, the restarted
// coordinator gives them their leases back (coordinator/state/lease_log.h), and the call logs show no
// generation made twice compared with the single-process run; the results are byte-identical to it.
#include <csignal>
#include <cstdint>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/integration/cluster_harness.h"
#include "tests/integration/process.h"

namespace noveltygrid::testing {
namespace {

const std::vector<std::string> kModels = {"sim:explorer", "sim:steady", "sim:collapse"};

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Generation calls ("chat MODEL HASH" of the swept models, not the judge's) in call logs, by line.
std::map<std::string, int64_t> Generations(const std::vector<std::string>& paths) {
  std::map<std::string, int64_t> count;
  for (const std::string& path : paths) {
    std::istringstream lines(ReadText(path));
    for (std::string line; std::getline(lines, line);) {
      for (const std::string& model : kModels) {
        if (absl::StartsWith(line, absl::StrCat("chat ", model, " "))) ++count[line];
      }
    }
  }
  return count;
}

// Calls in `actual` beyond those of `expected` (the same call made more often).
int64_t Repeated(const std::map<std::string, int64_t>& expected, const std::map<std::string, int64_t>& actual) {
  int64_t extra = 0;
  for (const auto& [line, n] : actual) {
    const auto it = expected.find(line);
    const int64_t allowed = it == expected.end() ? 0 : it->second;
    if (n > allowed) extra += n - allowed;
  }
  return extra;
}

TEST_F(ClusterTest, CoordinatorKilledThreeTimesCostsNoModelCalls) {
  std::string url;
  std::unique_ptr<Process> server = StartServeSim({"--latency-ms", "15"}, {}, &url);
  ASSERT_NE(server, nullptr);
  const std::string questions = NOVELTYGRID_SOURCE_DIR "/datasets/aidanbench/questions-paper-65.jsonl";
  const std::vector<std::string> temperatures = {"0.7", "1.0"};
  const std::string plain = WriteSweepYaml(Path("plain.yaml"), "sweep", 7, kModels, temperatures, questions);
  const std::string http = WriteSweepYaml(Path("http.yaml"), "sweep", 7, kModels, temperatures, questions,
                                          absl::StrCat("providers:\n  sim:\n    base_url: ", url, "/v1\n"));
  const int64_t units = static_cast<int64_t>(kModels.size() * temperatures.size()) * kPaperQuestions;

  std::unique_ptr<Process> reference = Spawn(
      {"run", plain, "--out", Path("reference"), "--seed", kSeed, "--quiet", "--call-log", Path("reference.log")});
  ASSERT_NE(reference, nullptr);
  ASSERT_EQ(reference->Wait(), 0) << reference->Output();

  std::string address;
  std::unique_ptr<Process> coordinator = StartCoordinator(http, Path("cluster"), {}, &address);
  ASSERT_NE(coordinator, nullptr);
  std::vector<std::unique_ptr<Process>> workers;
  std::vector<std::string> logs;
  for (int i = 0; i < 3; ++i) {
    logs.push_back(Path(absl::StrCat("calls-", i, ".log")));
    workers.push_back(StartWorker(address, absl::StrCat("w", i), 8, {"--call-log", logs.back()}));
    ASSERT_NE(workers.back(), nullptr);
  }

  int64_t restored = 0;
  for (int kill = 1; kill <= 3; ++kill) {
    // Into the sweep by a quarter more each time, with units in flight on every worker.
    absl::StatusOr<v1::StatusResponse> status =
        CoordinatorClient(address, kToken).PollUntil([kill](const v1::StatusResponse& s) {
          return s.units_done() * 4 >= s.units_total() * kill && s.units_leased() > 0;
        });
    ASSERT_TRUE(status.ok()) << status.status() << "\n" << coordinator->Output();
    ASSERT_FALSE(status->complete()) << "the sweep ended before kill " << kill;
    coordinator->Signal(SIGKILL);
    EXPECT_EQ(coordinator->Wait(), 128 + SIGKILL);

    std::string again;
    coordinator = StartCoordinator(http, Path("cluster"), {}, &again, address);
    ASSERT_NE(coordinator, nullptr);
    ASSERT_EQ(again, address);
    // Printed before the listening line, when there are any.
    const std::string start = coordinator->Stdout();
    std::smatch kept;
    if (std::regex_search(start, kept, std::regex(R"(([0-9]+) unit\(s\) still leased to their workers)"))) {
      restored += std::stoll(kept[1]);
    }
  }
  for (auto& worker : workers) EXPECT_EQ(worker->Wait(), 0) << worker->Output();
  ASSERT_EQ(coordinator->Wait(), 0) << coordinator->Output();
  ExpectClusterMatchesReference(units);

  EXPECT_GT(restored, 0) << "no restarted coordinator gave leases back: nothing was in flight at the kills";
  const std::map<std::string, int64_t> expected = Generations({Path("reference.log")});
  const std::map<std::string, int64_t> made = Generations(logs);
  // Every generation of the sweep shows in the workers' logs (else the count below proves nothing).
  int64_t expected_total = 0, made_total = 0;
  for (const auto& [line, n] : expected) expected_total += n;
  for (const auto& [line, n] : made) made_total += n;
  ASSERT_GT(expected_total, 0);
  EXPECT_GE(made_total, expected_total) << "the workers' call logs miss generations";
  const int64_t repeated = Repeated(expected, made);
  EXPECT_LE(repeated, 3) << "generation calls made again after coordinator restarts";
  std::printf("coordinator restarts: 3, leases given back: %lld, repeated generation calls: %lld\n",
              static_cast<long long>(restored), static_cast<long long>(repeated));
}

}  // namespace
}  // namespace noveltygrid::testing
