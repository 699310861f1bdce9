// The import and report subcommands end to end: arguments in, results folder and exit code out.
#include <cmath>
#include <filesystem>

#include "cli/commands.h"
#include "common/json_util.h"
#include "coordinator/report/results_writer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/common/test_files.h"
#include "tests/coordinator/capture_command.h"
#include "tests/coordinator/results_folder_util.h"

namespace noveltygrid::cli {
namespace {

using ::testing::HasSubstr;
using testing_files::SharedData;
using testing_files::TempDir;

using Outcome = testing_runs::Captured;
using testing_runs::CaptureCommand;
using testing_units::SummaryOf;
using testing_units::WithoutCallsAndRun;

double Round6(const Json& value) { return std::round(value.get<double>() * 1e6) / 1e6; }

const std::string kNotCot = SharedData("aidanbench/reference-runs/not_cot.json");

TEST(ImportCommandTest, ReferenceRunScoresAsPublished) {
  TempDir dir;
  const std::filesystem::path out = dir.path() / "not_cot";  // created by the command
  Outcome result =
      CaptureCommand(RunImportCommand, {"aidanbench", kNotCot, "--out", out.string(), "--preset", "reference-2025"});
  ASSERT_EQ(result.code, 0) << result.err;
  EXPECT_EQ(result.err, "");

  const Json summary = SummaryOf(out);
  const Json& aidan = summary["aidanbench"];
  const std::vector<std::tuple<std::string, int, int>> expected = {
      {"anthropic/claude-3.5-sonnet", 421, 431},
      {"google/gemini-flash-1.5-8b", 45, 55},
      {"gpt-4-turbo", 224, 233},
      {"meta-llama/llama-3.1-70b-instruct", 147, 157},
      {"openai/gpt-4o-mini-2024-07-18", 275, 285},
  };
  ASSERT_EQ(aidan.size(), expected.size());
  for (const auto& [model, valid, stored] : expected) {
    SCOPED_TRACE(model);
    ASSERT_TRUE(aidan.contains(model));
    const Json& cell = aidan[model]["0.7"];
    EXPECT_EQ(cell["valid_answers"], valid);
    EXPECT_EQ(cell["stored_answers"], stored);
    EXPECT_EQ(cell["preset"], "reference-2025");
    EXPECT_EQ(cell["max_iterations"], 0);
  }
  EXPECT_EQ(Round6(aidan["anthropic/claude-3.5-sonnet"]["0.7"]["novelty_sum"]), 132.565426);
  EXPECT_EQ(aidan["gpt-4-turbo"]["0.7"]["questions"], 9);

  const Json& board = summary["leaderboard"]["aidanbench"];
  ASSERT_EQ(board.size(), 5u);
  EXPECT_EQ(board[0]["model"], "anthropic/claude-3.5-sonnet");
  EXPECT_EQ(board[0]["best_temperature"], 0.7);
  EXPECT_EQ(board[4]["model"], "google/gemini-flash-1.5-8b");
  EXPECT_EQ(summary["questions"]["aidanbench"].size(), 49u);
  EXPECT_FALSE(summary.contains("simulated"));
  EXPECT_EQ(summary["calls"], Json::object());

  // The terminal shows what leaderboard.txt holds.
  absl::StatusOr<std::string> leaderboard = ReadFile((out / kLeaderboardFileName).string());
  ASSERT_TRUE(leaderboard.ok());
  EXPECT_EQ(result.out, *leaderboard);
  EXPECT_THAT(result.out, HasSubstr("anthropic/claude-3.5-sonnet"));
  EXPECT_THAT(result.out, HasSubstr("421 / 132.57"));
}

TEST(ImportCommandTest, ReportRebuildsTheSameSummary) {
  TempDir dir;
  const std::string out = dir.path().string();
  ASSERT_EQ(CaptureCommand(RunImportCommand, {"aidanbench", kNotCot, "--out", out}).code, 0);
  absl::StatusOr<std::string> before = ReadFile((dir.path() / kSummaryFileName).string());
  ASSERT_TRUE(before.ok());

  Outcome report = CaptureCommand(RunReportCommand, {out});
  ASSERT_EQ(report.code, 0) << report.err;
  EXPECT_EQ(*ReadFile((dir.path() / kSummaryFileName).string()), *before);
  EXPECT_EQ(report.out, *ReadFile((dir.path() / kLeaderboardFileName).string()));

  // Without the old summary only "calls" and "run" are lost.
  std::filesystem::remove(dir.path() / kSummaryFileName);
  report = CaptureCommand(RunReportCommand, {out});
  ASSERT_EQ(report.code, 0) << report.err;
  EXPECT_THAT(report.err, HasSubstr("note:"));
  const Json new_summary = SummaryOf(dir.path());
  EXPECT_EQ(new_summary["run"], Json::object());
  EXPECT_EQ(WithoutCallsAndRun(new_summary), WithoutCallsAndRun(Json::parse(*before)));
}

TEST(ImportCommandTest, TemperatureKeysAreShortestDecimalsWithAPoint) {
  TempDir dir;
  const std::string file = dir.Write("temps.json", R"({"models": {"m": {
      "0.0": {"q": [{"answer_num": 1, "answer": "a", "embedding_dissimilarity_score": 1.0, "coherence_score": 80}]},
      "0.70": {"q": [{"answer_num": 1, "answer": "a", "embedding_dissimilarity_score": 1.0, "coherence_score": 80}]},
      "1": {"q": [{"answer_num": 1, "answer": "a", "embedding_dissimilarity_score": 1.0, "coherence_score": 80}]}}}})");
  ASSERT_EQ(CaptureCommand(RunImportCommand, {"aidanbench", file, "--out", (dir.path() / "out").string()}).code, 0);
  const Json summary = SummaryOf(dir.path() / "out");
  std::vector<std::string> keys;
  for (const auto& [key, value] : summary["aidanbench"]["m"].items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"0.0", "0.7", "1.0"}));
  EXPECT_EQ(FormatTemperature(0.7), "0.7");
  EXPECT_EQ(FormatTemperature(1.0), "1.0");
  EXPECT_EQ(FormatTemperature(0.0), "0.0");
}

TEST(ImportCommandTest, MalformedFileIsAnErrorNamingThePath) {
  TempDir dir;
  const std::string file = dir.Write("bad.json", R"({"models": {"m": {"0.7": {"q": [{"answer_num": 1}]}}}})");
  Outcome result = CaptureCommand(RunImportCommand, {"aidanbench", file, "--out", (dir.path() / "out").string()});
  EXPECT_EQ(result.code, 1);
  EXPECT_THAT(result.err, HasSubstr("noveltygrid import: " + file));
  EXPECT_THAT(result.err, HasSubstr(R"(models["m"]["0.7"]["q"][0].answer: missing)"));
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "out" / kSummaryFileName));

  result = CaptureCommand(
      RunImportCommand, {"aidanbench", (dir.path() / "missing.json").string(), "--out", (dir.path() / "out").string()});
  EXPECT_EQ(result.code, 1);
  EXPECT_THAT(result.err, HasSubstr("missing.json"));
}

TEST(ImportCommandTest, UsageErrors) {
  EXPECT_EQ(CaptureCommand(RunImportCommand, {}).code, 2);
  EXPECT_EQ(CaptureCommand(RunImportCommand, {"aidanbench", kNotCot}).code, 2);  // no --out
  EXPECT_EQ(CaptureCommand(RunImportCommand, {"aidanbench", "--out", "x"}).code, 2);
  EXPECT_EQ(CaptureCommand(RunImportCommand, {"csv", kNotCot, "--out", "x"}).code, 2);
  EXPECT_EQ(CaptureCommand(RunImportCommand, {"aidanbench", kNotCot, "--out", "x", "--bogus"}).code, 2);
  Outcome preset = CaptureCommand(RunImportCommand, {"aidanbench", kNotCot, "--out", "x", "--preset", "2023"});
  EXPECT_EQ(preset.code, 2);
  EXPECT_THAT(preset.err, HasSubstr("paper-2024"));  // lists the known presets

  // NoveltyBench has its own flags and tests (noveltybench_import_test.cc); a missing file fails.
  Outcome nb = CaptureCommand(RunImportCommand, {"noveltybench", "scores.jsonl", "--out", "x"});
  EXPECT_EQ(nb.code, 1);
  EXPECT_EQ(nb.err, "noveltygrid import: cannot read scores.jsonl: No such file or directory\n");

  Outcome help = CaptureCommand(RunImportCommand, {"--help"});
  EXPECT_EQ(help.code, 0);
  EXPECT_THAT(help.out, HasSubstr("Usage: noveltygrid import aidanbench FILE.json --out DIR"));
  EXPECT_THAT(help.out, HasSubstr("--preset"));
  EXPECT_FALSE(std::filesystem::exists("x"));
}

TEST(ReportCommandTest, UsageAndMissingFolder) {
  EXPECT_EQ(CaptureCommand(RunReportCommand, {}).code, 2);
  EXPECT_EQ(CaptureCommand(RunReportCommand, {"a", "b"}).code, 2);
  Outcome help = CaptureCommand(RunReportCommand, {"--help"});
  EXPECT_EQ(help.code, 0);
  EXPECT_THAT(help.out, HasSubstr("Usage: noveltygrid report DIR"));
  TempDir dir;
  Outcome missing = CaptureCommand(RunReportCommand, {dir.path().string()});
  EXPECT_EQ(missing.code, 1);
  EXPECT_THAT(missing.err, HasSubstr("noveltygrid report: "));
  EXPECT_THAT(missing.err, HasSubstr("has no answers.jsonl"));
}

}  // namespace
}  // namespace noveltygrid::cli
