// Both LLM partitioners on the published NoveltyBench runs, through serve-sim over HTTP: `llm` asks
// the judge pair by pair, `llm-groups` once per row (none for a row the short-text rule decides
// alone). Each writes its agreement with the recorded classifier partitions. The judge is simulated:
// this checks the plumbing end to end (prompt, HTTP, parse, un-shuffle, cache, agreement), not how
// good an LLM judge is.
#include <filesystem>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cli/commands.h"
#include "common/noveltybench/partition.h"
#include "common/noveltybench/rows.h"
#include "coordinator/benchmarks/noveltybench/noveltybench_results.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim_server/sim_server.h"
#include "tests/coordinator/noveltybench_test_runs.h"
#include "tests/coordinator/repartition_configs.h"

namespace noveltygrid::cli::testing_runs {
namespace {

using ::testing::HasSubstr;

// The "judge:sim:judge: N requests, M cache hits" counts repartition prints.
struct JudgeCalls {
  int requests = 0;
  int cache_hits = 0;
};
std::optional<JudgeCalls> ParseJudgeCalls(const std::string& err) {
  std::smatch m;
  if (!std::regex_search(err, m, std::regex("judge:sim:judge: (\\d+) requests, (\\d+) cache hits")))
    return std::nullopt;
  return JudgeCalls{std::stoi(m[1]), std::stoi(m[2])};
}

// Rows whose generations the short-text rule cannot decide alone: llm-groups asks once for each.
int RowsNeedingTheJudge(const std::string& scores) {
  absl::StatusOr<std::vector<noveltybench::NoveltyRow>> rows = noveltybench::ReadNoveltyRows(scores);
  EXPECT_TRUE(rows.ok()) << rows.status();
  int n = 0;
  for (const noveltybench::NoveltyRow& row : rows.value_or(std::vector<noveltybench::NoveltyRow>{})) {
    n += !noveltybench::ShortTextRuleDecidesAll(row.generations);
  }
  return n;
}

TEST(LlmPartitionersTest, BothAgreeWithTheRecordedPartitionsThroughServeSimAndGroupsAsksOncePerRow) {
  SimServer server;
  absl::StatusOr<int> port = server.Start(SimServerOptions{});
  ASSERT_TRUE(port.ok()) << port.status();
  TempDir dir;
  std::string table = "run | llm F1 (requests) | llm-groups F1 (requests)\n";
  for (const ReferenceRun& run : kReferenceRuns) {
    SCOPED_TRACE(run.folder);
    const int rows_needing_judge = RowsNeedingTheJudge(run.ScoresPath());
    ASSERT_GT(rows_needing_judge, 0);
    absl::StrAppend(&table, run.folder);
    int pairwise_requests = 0;
    for (const std::string partitioner : {"llm", "llm-groups"}) {
      SCOPED_TRACE(partitioner);
      const std::string config =
          WriteConfig(dir, partitioner + ".yaml", "  partitioner: " + partitioner + "\n", SimProvider(*port));
      const auto out = dir.path() / run.folder / partitioner;
      const int64_t chat_before = server.stats().chat;
      const auto result =
          CaptureCommand(RunRepartitionCommand, {run.ScoresPath(), "--config", config, "--out", out.string()});
      ASSERT_EQ(result.code, 0) << result.err;
      const std::optional<JudgeCalls> calls = ParseJudgeCalls(result.err);
      ASSERT_TRUE(calls.has_value()) << result.err;
      EXPECT_EQ(server.stats().chat - chat_before, calls->requests) << "every judge request went over HTTP";
      const Json agreement = ReadJson(out / kAgreementFileName);
      EXPECT_EQ(agreement["partitioner"], partitioner);
      EXPECT_EQ(agreement["partition_model"], "sim:judge");
      const double f1 = agreement["pair_f1"].get<double>();
      EXPECT_GT(f1, 0.0);
      EXPECT_LE(f1, 1.0);
      if (partitioner == "llm") {
        pairwise_requests = calls->requests;
        EXPECT_TRUE(agreement["threshold"].is_number());
      } else {
        EXPECT_EQ(calls->requests, rows_needing_judge) << "one request per row the short-text rule cannot decide";
        EXPECT_LT(calls->requests, pairwise_requests);
        EXPECT_TRUE(agreement["threshold"].is_null()) << "llm-groups has none";
        EXPECT_THAT(result.err, HasSubstr("llm-groups sim:judge (one call per row)"));
      }
      absl::StrAppend(&table, absl::StrFormat(" | %.3f (%d)", f1, calls->requests));
    }
    absl::StrAppend(&table, "\n");
  }
  std::printf("agreement with the recorded classifier partitions (simulated judge):\n%s", table.c_str());
}

TEST(LlmPartitionersTest, LlmGroupsTakesNoThreshold) {
  TempDir dir;
  const std::string config = WriteConfig(dir, "groups.yaml", "  partitioner: llm-groups\n");
  const auto out = dir.path() / "out";
  const auto result = CaptureCommand(RunRepartitionCommand, {kReferenceRuns[0].ScoresPath(), "--config", config,
                                                             "--threshold", "0.5", "--out", out.string()});
  EXPECT_EQ(result.code, 2);
  EXPECT_THAT(result.err, HasSubstr("--threshold does not apply to llm-groups"));
  EXPECT_FALSE(std::filesystem::exists(out));
}

}  // namespace
}  // namespace noveltygrid::cli::testing_runs
