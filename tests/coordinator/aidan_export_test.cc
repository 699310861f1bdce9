// `noveltygrid export --format aidanbench` end to end, and the export command's usage and failures:
// results folders exported to the reference layout, imported again and compared.
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cli/commands.h"
#include "common/json_util.h"
#include "coordinator/benchmarks/aidanbench/aidan_reducer.h"
#include "coordinator/benchmarks/aidanbench/aidan_results.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/common/test_files.h"
#include "tests/coordinator/aidan_test_units.h"
#include "tests/coordinator/capture_command.h"
#include "tests/coordinator/results_folder_util.h"

namespace noveltygrid::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing_files::SharedData;
using testing_files::TempDir;
using testing_runs::CaptureCommand;
using testing_units::SummaryOf;
using testing_units::WithoutCallsAndRun;
using Outcome = testing_runs::Captured;

const std::string kNotCot = SharedData("aidanbench/reference-runs/not_cot.json");

Outcome Export(const std::string& dir, const std::string& format, const std::string& out,
               const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args = {dir, "--format", format, "--out", out};
  args.insert(args.end(), extra.begin(), extra.end());
  return CaptureCommand(RunExportCommand, args);
}

Outcome Import(const std::string& file, const std::filesystem::path& out) {
  return CaptureCommand(RunImportCommand, {"aidanbench", file, "--out", out.string()});
}

TEST(AidanExportTest, TheReferenceRunRoundTrips) {
  TempDir tmp;
  const auto first = tmp.path() / "first";
  ASSERT_EQ(Import(kNotCot, first).code, 0);
  const std::string exported = (tmp.path() / "results.json").string();
  const Outcome result = Export(first.string(), "aidanbench", exported);
  ASSERT_EQ(result.code, 0) << result.err;
  EXPECT_EQ(result.out, "wrote " + exported + "\n");
  EXPECT_THAT(result.err, HasSubstr("noveltygrid export: note: "));
  EXPECT_THAT(result.err, HasSubstr("processing_time is null"));
  EXPECT_THAT(result.err, Not(HasSubstr("repeat")));
  EXPECT_THAT(result.err, Not(HasSubstr("--preset")));  // reference-2025, import's default

  // The reference's own file, to the key order, but for the timings a results folder does not keep.
  absl::StatusOr<Json> reference = ReadJsonFile(kNotCot);
  ASSERT_TRUE(reference.ok()) << reference.status();
  for (auto& [model, temps] : (*reference)["models"].items()) {
    for (auto& [temp, questions] : temps.items()) {
      for (auto& [question, answers] : questions.items()) {
        for (Json& answer : answers) answer["processing_time"] = nullptr;
      }
    }
  }
  absl::StatusOr<Json> written = ReadJsonFile(exported);
  ASSERT_TRUE(written.ok()) << written.status();
  EXPECT_TRUE(*written == *reference);

  // Imported again: the same summary (cells, leaderboard, per-question table), but for "run".
  const auto second = tmp.path() / "second";
  ASSERT_EQ(Import(exported, second).code, 0);
  EXPECT_EQ(WithoutCallsAndRun(SummaryOf(second)), WithoutCallsAndRun(SummaryOf(first)));
}

// SweepUnits() as repeat `repeat` (repeat r > 0 with other novelty, as its own seed would give).
std::vector<UnitResult> RepeatUnits(int repeat) {
  std::vector<UnitResult> units = testing_units::SweepUnits();
  for (UnitResult& u : units) {
    u.unit.repeat = repeat;
    if (repeat == 0) continue;
    absl::StrAppend(&u.unit.id, "/r", repeat);
    for (StepRecord& a : u.answers) a.novelty = a.novelty * 0.75 + 0.2;
  }
  return units;
}

AidanSnapshot Reduce(const std::vector<UnitResult>& units) {
  AidanReducer reducer(testing_units::Preset("reference-2025"), {"sim:explorer", "sim:collapse"}, {0.0, 0.7, 1.0});
  for (const UnitResult& u : units) reducer.Add(u, {{"generate:" + u.unit.model, {.requests = 1}}});
  return reducer.Snapshot();
}

// Every cell of `imported` ("aidanbench" sections) against `expected`: the same scores, and
// `stored_fewer` fewer stored answers in the cell (model, TEMP) of the left-out error.
void ExpectSameScores(const Json& imported, const Json& expected, const std::string& error_model,
                      const std::string& error_temp, int stored_fewer) {
  ASSERT_EQ(testing_units::Keys(imported), testing_units::Keys(expected));
  for (const auto& [model, temps] : expected.items()) {
    ASSERT_EQ(testing_units::Keys(imported[model]), testing_units::Keys(temps));
    for (const auto& [temp, cell] : temps.items()) {
      SCOPED_TRACE(model + " " + temp);
      const Json& got = imported[model][temp];
      EXPECT_EQ(got["valid_answers"], cell["valid_answers"]);
      EXPECT_EQ(got["questions"], cell["questions"]);
      for (const char* sum : {"novelty_sum", "coherence_sum", "mmr_sum"}) {
        EXPECT_NEAR(got[sum].get<double>(), cell[sum].get<double>(), 1e-9) << sum;
      }
      const bool has_error = model == error_model && temp == error_temp;
      EXPECT_EQ(got["stored_answers"].get<int>(), cell["stored_answers"].get<int>() - (has_error ? stored_fewer : 0));
      EXPECT_EQ(got["errors"], 0);
    }
  }
}

TEST(AidanExportTest, ASweepRoundTripsOneRepeatAtATimeWithoutItsErrors) {
  std::vector<UnitResult> first = RepeatUnits(0);
  // A question whose loop ended in a recorded error (the judge's reply never parsed).
  UnitResult& failed = first[4];
  StepRecord error_step = failed.answers.back();
  error_step.answer_num += 1;
  error_step.error = "judge reply unparseable after 3 attempts";
  failed.answers.push_back(error_step);
  failed.stop_reason = kStopError;
  failed.error = error_step.error;
  const std::vector<UnitResult> second = RepeatUnits(1);

  std::vector<UnitResult> all = first;
  all.insert(all.end(), second.begin(), second.end());
  TempDir tmp;
  const std::string dir = (tmp.path() / "sweep").string();
  ASSERT_TRUE(WriteResultsFolder(dir, Reduce(all), ResultsOptions{}).ok());
  const Json expected_first = SummaryJson(Reduce(first), ResultsOptions{})["aidanbench"];
  ASSERT_EQ(expected_first["sim:explorer"]["0.7"]["errors"], 1);  // units 3..5: sim:explorer at 0.7

  const std::string exported = (tmp.path() / "repeat0.json").string();
  Outcome result = Export(dir, "aidanbench", exported);
  ASSERT_EQ(result.code, 0) << result.err;
  EXPECT_THAT(result.err, HasSubstr("wrote repeat 0 and left out"));
  EXPECT_THAT(result.err, HasSubstr("left out 1 answer that ended a question in an error"));
  ASSERT_EQ(Import(exported, tmp.path() / "imported0").code, 0);
  ExpectSameScores(SummaryOf(tmp.path() / "imported0")["aidanbench"], expected_first, "sim:explorer", "0.7", 1);

  const std::string exported_second = (tmp.path() / "repeat1.json").string();
  result = Export(dir, "aidanbench", exported_second, {"--repeat", "1"});
  ASSERT_EQ(result.code, 0) << result.err;
  EXPECT_THAT(result.err, Not(HasSubstr("error")));
  ASSERT_EQ(Import(exported_second, tmp.path() / "imported1").code, 0);
  ExpectSameScores(SummaryOf(tmp.path() / "imported1")["aidanbench"],
                   SummaryJson(Reduce(second), ResultsOptions{})["aidanbench"], "", "", 0);

  result = Export(dir, "aidanbench", (tmp.path() / "repeat2.json").string(), {"--repeat", "2"});
  EXPECT_EQ(result.code, 1);
  EXPECT_THAT(result.err, HasSubstr("no answers of repeat 2 (the results hold repeats 0..1)"));
}

TEST(AidanExportTest, APaperPresetFolderSaysWhichPresetToImportWith) {
  TempDir tmp;
  const std::string file = tmp.Write("paper.json", R"({"models": {"m": {"0.7": {"q": [
      {"answer_num": 1, "answer": "a", "embedding_dissimilarity_score": 1.0, "coherence_score": 8},
      {"answer_num": 2, "answer": "b", "embedding_dissimilarity_score": 0.05, "coherence_score": 7}]}}}})");
  const auto dir = tmp.path() / "paper";
  ASSERT_EQ(
      CaptureCommand(RunImportCommand, {"aidanbench", file, "--out", dir.string(), "--preset", "paper-2024"}).code, 0);
  const Outcome result = Export(dir.string(), "aidanbench", (tmp.path() / "out.json").string());
  ASSERT_EQ(result.code, 0) << result.err;
  EXPECT_THAT(result.err, HasSubstr("import with --preset paper-2024"));
}

TEST(ExportCommandTest, UsageErrors) {
  TempDir tmp;
  const std::string dir = tmp.path().string();
  const std::string out = (tmp.path() / "out").string();
  EXPECT_EQ(CaptureCommand(RunExportCommand, {}).code, 2);
  EXPECT_EQ(CaptureCommand(RunExportCommand, {dir, "--out", out}).code, 2);              // no --format
  EXPECT_EQ(CaptureCommand(RunExportCommand, {dir, "--format", "aidanbench"}).code, 2);  // no --out
  EXPECT_EQ(CaptureCommand(RunExportCommand, {dir, dir, "--format", "aidanbench", "--out", out}).code, 2);
  EXPECT_EQ(Export(dir, "aidanbench", out, {"--repeat", "-1"}).code, 2);
  EXPECT_EQ(Export(dir, "aidanbench", out, {"--repeat", "x"}).code, 2);
  EXPECT_EQ(Export(dir, "aidanbench", out, {"--bogus"}).code, 2);
  const Outcome unknown = Export(dir, "csv", out);
  EXPECT_EQ(unknown.code, 2);
  EXPECT_THAT(unknown.err, HasSubstr("unknown format 'csv'; expected aidanbench or noveltybench"));

  const Outcome help = CaptureCommand(RunExportCommand, {"--help"});
  EXPECT_EQ(help.code, 0);
  EXPECT_THAT(help.out, HasSubstr("Usage: noveltygrid export DIR --format aidanbench|noveltybench --out PATH"));
  EXPECT_THAT(help.out, HasSubstr("--force"));
  EXPECT_THAT(help.out, HasSubstr("repeat 0"));
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(ExportCommandTest, FailuresSayWhatIsWrongAndWriteNothing) {
  TempDir tmp;
  const auto dir = tmp.path() / "imported";
  ASSERT_EQ(Import(kNotCot, dir).code, 0);

  Outcome result = Export((tmp.path() / "missing").string(), "aidanbench", (tmp.path() / "a.json").string());
  EXPECT_EQ(result.code, 1);
  EXPECT_THAT(result.err, HasSubstr("missing is not a folder"));

  // An AidanBench folder asked for NoveltyBench rows.
  result = Export(dir.string(), "noveltybench", (tmp.path() / "nb").string());
  EXPECT_EQ(result.code, 1);
  EXPECT_THAT(result.err, HasSubstr("has no samples.jsonl: it holds no noveltybench results (it holds aidanbench; "
                                    "try --format aidanbench)"));
  EXPECT_FALSE(std::filesystem::exists(tmp.path() / "nb"));

  // An existing PATH is refused unless --force; an empty folder is fine for NoveltyBench only.
  const std::string existing = tmp.Write("existing.json", "{}");
  result = Export(dir.string(), "aidanbench", existing);
  EXPECT_EQ(result.code, 1);
  EXPECT_THAT(result.err, HasSubstr("existing.json exists; choose another --out, or pass --force"));
  EXPECT_EQ(*ReadFile(existing), "{}");
  result = Export(dir.string(), "aidanbench", existing, {"--force"});
  EXPECT_EQ(result.code, 0) << result.err;
  EXPECT_NE(*ReadFile(existing), "{}");

  std::filesystem::create_directories(tmp.path() / "empty");
  result = Export(dir.string(), "aidanbench", (tmp.path() / "empty").string());
  EXPECT_EQ(result.code, 1);
  EXPECT_THAT(result.err, HasSubstr("is a folder; the AidanBench reference layout is one file"));

  // Unwritable: the folder PATH needs is a file.
  result = Export(dir.string(), "aidanbench", existing + "/under/results.json");
  EXPECT_EQ(result.code, 1);
  EXPECT_THAT(result.err, HasSubstr("cannot create the folder of " + existing + "/under/results.json"));

  // Malformed rows name the file and line.
  std::filesystem::create_directories(tmp.path() / "bad");
  tmp.Write("bad/answers.jsonl", "{\"benchmark\": \"aidanbench\"}\n");
  result = Export((tmp.path() / "bad").string(), "aidanbench", (tmp.path() / "bad.json").string());
  EXPECT_EQ(result.code, 1);
  EXPECT_THAT(result.err, HasSubstr("answers.jsonl:1: "));
  EXPECT_FALSE(std::filesystem::exists(tmp.path() / "bad.json"));
}

}  // namespace
}  // namespace noveltygrid::cli
