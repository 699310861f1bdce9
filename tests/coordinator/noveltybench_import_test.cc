// `import noveltybench` end to end on the five published reference runs, and its usage errors.
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "cli/commands.h"
#include "common/json_util.h"
#include "coordinator/benchmarks/noveltybench/noveltybench_results.h"
#include "coordinator/report/results_writer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/common/test_files.h"
#include "tests/coordinator/noveltybench_test_runs.h"

namespace noveltygrid::cli::testing_runs {
namespace {

using ::testing::HasSubstr;

TEST(NoveltyImportTest, RecomputesThePublishedSummaryOfEveryReferenceRun) {
  for (const ReferenceRun& run : kReferenceRuns) {
    SCOPED_TRACE(run.folder);
    TempDir dir;
    const auto out = dir.path() / "out";
    const auto result = CaptureCommand(RunImportCommand, {"noveltybench", run.ScoresPath(), "--out", out.string()});
    ASSERT_EQ(result.code, 0) << result.err;
    EXPECT_EQ(result.err, "");

    absl::StatusOr<Json> published = ReadJsonFile(run.SummaryPath());
    ASSERT_TRUE(published.ok()) << published.status();
    absl::StatusOr<Json> summary = ReadJsonFile((out / kSummaryFileName).string());
    ASSERT_TRUE(summary.ok()) << summary.status();
    ASSERT_TRUE((*summary)["noveltybench"].contains(run.model));
    const Json& cell = (*summary)["noveltybench"][run.model]["1.0"];
    EXPECT_NEAR(cell["mean_utility"].get<double>(), (*published)["mean_utility"].get<double>(), 1e-9);
    EXPECT_NEAR(cell["mean_distinct"].get<double>(), (*published)["mean_distinct"].get<double>(), 0.005);
    // The published mean_distinct counts classes exactly (summarize.py: mean of len(partition_scores)).
    EXPECT_DOUBLE_EQ(cell["mean_distinct"].get<double>(), (*published)["mean_distinct"].get<double>());
    EXPECT_EQ(cell["prompts"], 100);
    EXPECT_EQ(cell["patience"], 0.8);
    EXPECT_EQ(cell["partitioner"], "recorded");
    EXPECT_EQ(cell["temperature_assumed"], true);
    EXPECT_EQ((*summary)["leaderboard"]["noveltybench"][0]["model"], run.model);
    EXPECT_EQ((*summary)["run"]["command"], "import noveltybench");

    // Per row: the recorded utility, and the recorded "distinct" field is classes - 1.
    const std::vector<Json> source = ReadJsonLines(run.ScoresPath());
    const std::vector<Json> samples = ReadJsonLines((out / kSamplesFileName).string());
    ASSERT_EQ(samples.size(), source.size());
    for (size_t i = 0; i < samples.size(); ++i) {
      EXPECT_EQ(samples[i]["prompt_id"], source[i]["id"]);
      EXPECT_EQ(samples[i]["benchmark"], "noveltybench");
      EXPECT_EQ(samples[i]["temperature"], 1.0);
      EXPECT_NEAR(samples[i]["utility"].get<double>(), source[i]["utility"].get<double>(), 1e-12);
      EXPECT_EQ(samples[i]["distinct"].get<int>(), source[i]["distinct"].get<int>() + 1);
      EXPECT_EQ(samples[i]["generation_scores"], source[i]["generation_scores"]);
      EXPECT_EQ(samples[i]["partition"], source[i]["partition"]);
    }

    absl::StatusOr<std::string> leaderboard = ReadFile((out / kLeaderboardFileName).string());
    ASSERT_TRUE(leaderboard.ok());
    EXPECT_EQ(result.out, *leaderboard);
    EXPECT_THAT(result.out, HasSubstr(run.model));
    EXPECT_THAT(result.out, HasSubstr("temperature assumed"));
  }
}

TEST(NoveltyImportTest, PatienceAndTemperatureFlags) {
  const ReferenceRun& run = kReferenceRuns[4];  // gpt-4o
  TempDir dir;
  const std::string out = dir.path().string();
  const auto result = CaptureCommand(
      RunImportCommand, {"noveltybench", run.ScoresPath(), "--out", out, "--patience", "1", "--temperature", "0.7"});
  ASSERT_EQ(result.code, 0) << result.err;
  absl::StatusOr<Json> summary = ReadJsonFile((dir.path() / kSummaryFileName).string());
  ASSERT_TRUE(summary.ok());
  const Json& cell = (*summary)["noveltybench"][run.model]["0.7"];
  EXPECT_EQ(cell["patience"], 1.0);
  EXPECT_EQ(cell["temperature_assumed"], false);
  // Patience 1: utility is the plain mean of the earned scores.
  double expected = 0;
  for (const Json& row : ReadJsonLines(run.ScoresPath())) {
    for (const Json& s : row["generation_scores"]) expected += s.get<double>() / 10;
  }
  EXPECT_NEAR(cell["mean_utility"].get<double>(), expected / 100, 1e-12);
}

TEST(NoveltyImportTest, ResultsAreByteIdenticalAcrossImports) {
  TempDir a, b;
  const std::string file = kReferenceRuns[0].ScoresPath();
  ASSERT_EQ(CaptureCommand(RunImportCommand, {"noveltybench", file, "--out", a.path().string()}).code, 0);
  ASSERT_EQ(CaptureCommand(RunImportCommand, {"noveltybench", file, "--out", b.path().string()}).code, 0);
  for (const char* name : {kSamplesFileName, kSummaryFileName, kLeaderboardFileName}) {
    EXPECT_EQ(*ReadFile((a.path() / name).string()), *ReadFile((b.path() / name).string())) << name;
  }
}

TEST(NoveltyImportTest, ReadsItsOwnSamplesBack) {
  TempDir dir;
  const auto first = dir.path() / "first";
  const auto second = dir.path() / "second";
  ASSERT_EQ(
      CaptureCommand(RunImportCommand, {"noveltybench", kReferenceRuns[3].ScoresPath(), "--out", first.string()}).code,
      0);
  const auto again =
      CaptureCommand(RunImportCommand, {"noveltybench", (first / kSamplesFileName).string(), "--out", second.string()});
  ASSERT_EQ(again.code, 0) << again.err;
  absl::StatusOr<Json> s1 = ReadJsonFile((first / kSummaryFileName).string());
  absl::StatusOr<Json> s2 = ReadJsonFile((second / kSummaryFileName).string());
  ASSERT_TRUE(s1.ok() && s2.ok());
  EXPECT_EQ((*s2)["noveltybench"], [&] {
    Json expected = (*s1)["noveltybench"];
    // samples.jsonl records the temperature, so nothing is assumed the second time.
    for (auto& [model, temps] : expected.items()) {
      for (auto& [t, cell] : temps.items()) cell["temperature_assumed"] = false;
    }
    return expected;
  }());
}

TEST(NoveltyImportTest, BadInputAndUsage) {
  TempDir dir;
  const std::string out = (dir.path() / "out").string();
  const std::string bad = dir.Write("bad.jsonl", "{\"id\": \"x\"}\n");
  auto result = CaptureCommand(RunImportCommand, {"noveltybench", bad, "--out", out});
  EXPECT_EQ(result.code, 1);
  EXPECT_THAT(result.err, HasSubstr(bad + ":1: missing \"prompt\""));
  EXPECT_FALSE(std::filesystem::exists(out));

  result = CaptureCommand(RunImportCommand, {"noveltybench", (dir.path() / "none.jsonl").string(), "--out", out});
  EXPECT_EQ(result.code, 1);
  EXPECT_THAT(result.err, HasSubstr("cannot read"));

  EXPECT_EQ(CaptureCommand(RunImportCommand, {"noveltybench", bad}).code, 2);
  result = CaptureCommand(RunImportCommand, {"noveltybench", bad, "--out", out, "--patience", "0"});
  EXPECT_EQ(result.code, 2);
  EXPECT_THAT(result.err, HasSubstr("--patience expects a number > 0, got '0'"));
  result = CaptureCommand(RunImportCommand, {"noveltybench", bad, "--out", out, "--preset", "paper-2024"});
  EXPECT_EQ(result.code, 2);
  EXPECT_THAT(result.err, HasSubstr("preset"));

  result = CaptureCommand(RunImportCommand, {"noveltybench", "--help"});
  EXPECT_EQ(result.code, 0);
  EXPECT_THAT(result.out, HasSubstr("--patience P"));
  EXPECT_THAT(result.out, HasSubstr("temperature_assumed"));
}

TEST(NoveltyImportTest, RefusesAFolderWithAidanBenchResults) {
  TempDir dir;
  dir.Write(kAnswersFileName, "");
  const auto result =
      CaptureCommand(RunImportCommand, {"noveltybench", kReferenceRuns[0].ScoresPath(), "--out", dir.path().string()});
  EXPECT_EQ(result.code, 1);
  EXPECT_THAT(result.err, HasSubstr("holds AidanBench results"));
}

}  // namespace
}  // namespace noveltygrid::cli::testing_runs
