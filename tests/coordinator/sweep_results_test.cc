// A sweep's results folder with NoveltyBench (coordinator/report/results_writer.h,
// novelty_sweep_results.h) and its rebuild by `noveltygrid report` (results_reader.h).
#include <algorithm>
#include <filesystem>

#include "common/json_util.h"
#include "coordinator/benchmarks/aidanbench/aidan_results.h"
#include "coordinator/benchmarks/noveltybench/novelty_sweep_results.h"
#include "coordinator/benchmarks/noveltybench/noveltybench.h"
#include "coordinator/benchmarks/noveltybench/noveltybench_results.h"
#include "coordinator/report/results_reader.h"
#include "coordinator/report/results_writer.h"
#include "coordinator/report/text_table.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/common/test_files.h"
#include "tests/coordinator/aidan_test_units.h"
#include "tests/coordinator/novelty_test_units.h"
#include "tests/coordinator/results_folder_util.h"

namespace noveltygrid::testing_units {
namespace {

using ::testing::HasSubstr;
using testing_files::TempDir;

// The writer's parts for optional snapshots, as the coordinator hands them over.
struct Parts {
  Parts(const std::optional<AidanSnapshot>& aidan, const std::optional<NoveltySnapshot>& novelty) {
    if (aidan.has_value()) owned.push_back(std::make_unique<AidanBenchResults>(*aidan));
    if (novelty.has_value()) owned.push_back(std::make_unique<NoveltyBenchResults>(*novelty));
  }
  std::vector<std::unique_ptr<BenchmarkResults>> owned;
};

absl::Status WriteSweepResults(const std::string& dir, const std::optional<AidanSnapshot>& aidan,
                               const std::optional<NoveltySnapshot>& novelty, const ResultsOptions& options) {
  return WriteSweepResults(dir, PartsOf(Parts(aidan, novelty).owned), options);
}

std::string SweepLeaderboardText(const std::optional<AidanSnapshot>& aidan,
                                 const std::optional<NoveltySnapshot>& novelty, const ResultsOptions& options) {
  return SweepLeaderboardText(PartsOf(Parts(aidan, novelty).owned), options);
}

// The rebuilt NoveltyBench part, or nullptr.
const NoveltyBenchResults* NoveltyPart(const RebuildOutcome& outcome) {
  for (const auto& part : outcome.parts) {
    if (part->name() == kNoveltyBench) return dynamic_cast<const NoveltyBenchResults*>(part.get());
  }
  return nullptr;
}

std::vector<Json> Lines(const std::string& text) {
  std::vector<Json> lines;
  for (size_t start = 0, end; (end = text.find('\n', start)) != std::string::npos; start = end + 1) {
    lines.push_back(Json::parse(text.substr(start, end - start)));
  }
  return lines;
}

NoveltySnapshot NoveltyRun(std::vector<UnitResult> units = HandNoveltyUnits()) {
  NoveltySettings settings = HandSettings();
  settings.set_partitioner("classifier");
  settings.set_threshold(0.102);
  settings.set_partition_model("sim:classifier");
  NoveltyReducer reducer(settings, HandModels(), HandTemperatures(), HandModes(), HandDatasets());
  for (UnitResult& u : units) reducer.Add(std::move(u), {{"reward:sim:reward", {.requests = 2}}});
  reducer.SetRunInfo(Json{{"seconds", 2.5}, {"units", 7}});
  return reducer.Snapshot();
}

AidanSnapshot AidanRun() {
  AidanReducer reducer(Preset("reference-2025"), {"sim:explorer", "sim:collapse"}, {0.0, 0.7, 1.0});
  for (UnitResult& u : SweepUnits()) reducer.Add(std::move(u), {{"generate:sim:explorer", {.requests = 1}}});
  reducer.SetRunInfo(Json{{"seconds", 2.5}, {"units", 25}});
  return reducer.Snapshot();
}

ResultsOptions Simulated() {
  ResultsOptions options;
  options.simulated_models = {"m", "n"};
  return options;
}

TEST(NoveltySweepResultsTest, SampleLinesFollowTheContract) {
  NoveltySnapshot snap = NoveltyRun();
  snap.rows[0].result.novelty->reward = {-2.5, std::nullopt};
  const std::vector<Json> lines = Lines(*NoveltyBenchResults(snap).RowsText());
  ASSERT_EQ(lines.size(), 7u);
  EXPECT_EQ(Keys(lines[0]), (std::vector<std::string>{"benchmark", "model", "temperature", "prompt_id", "prompt",
                                                      "generations", "partition", "quality", "generation_scores",
                                                      "distinct", "utility", "mode", "dataset", "unit_id", "reward"}));
  EXPECT_EQ(DumpJson(lines[0]),
            "{\"benchmark\":\"noveltybench\",\"model\":\"m\",\"temperature\":1.0,\"prompt_id\":\"curated-0\","
            "\"prompt\":\"Prompt 0 of curated?\",\"generations\":[\"generation 1 of m/1/standard/curated/0\","
            "\"generation 2 of m/1/standard/curated/0\"],\"partition\":[0,1],\"quality\":[6,3],"
            "\"generation_scores\":[6,3],\"distinct\":2,\"utility\":5.0,\"mode\":\"standard\","
            "\"dataset\":\"curated\",\"unit_id\":\"m/1/standard/curated/0\",\"reward\":[-2.5,null]}");
  EXPECT_EQ(lines[1]["quality"], Json::parse("[3,null]"));  // a non-opener is not scored
  EXPECT_EQ(lines[1]["generation_scores"], Json::parse("[3,0]"));
  EXPECT_FALSE(lines[1].contains("reward"));
  EXPECT_EQ(Keys(lines[4]), (std::vector<std::string>{"benchmark", "model", "temperature", "prompt_id", "prompt",
                                                      "generations", "partition", "quality", "generation_scores",
                                                      "distinct", "utility", "mode", "dataset", "unit_id", "error"}));
  EXPECT_TRUE(lines[4]["partition"].is_null());
  EXPECT_TRUE(lines[4]["utility"].is_null());
  EXPECT_EQ(lines[4]["generations"].size(), 1u);
  EXPECT_EQ(lines[4]["error"], "generation by m failed: HTTP 503");
}

TEST(NoveltySweepResultsTest, SummaryWithTwoModesAndCuratedPlusWildchat) {
  TempDir dir;
  ASSERT_TRUE(WriteSweepResults(dir.path().string(), std::nullopt, NoveltyRun(), Simulated()).ok());
  EXPECT_FALSE(std::filesystem::exists(dir.path() / kAnswersFileName));
  const Json summary = SummaryOf(dir.path());
  EXPECT_EQ(Keys(summary), (std::vector<std::string>{"simulated", "notice", "simulated_models", "noveltybench",
                                                     "leaderboard", "calls", "run"}));
  EXPECT_EQ(Keys(summary["noveltybench"]), (std::vector<std::string>{"m", "n"}));
  EXPECT_EQ(Keys(summary["noveltybench"]["m"]), (std::vector<std::string>{"1.0", "0.7"}));
  const Json& cell = summary["noveltybench"]["m"]["1.0"];
  EXPECT_EQ(Keys(cell), (std::vector<std::string>{"mean_distinct", "mean_utility", "prompts", "patience", "partitioner",
                                                  "threshold", "quality", "mode", "partition_model", "quality_model",
                                                  "k", "errors", "by_mode", "by_dataset", "leaderboard_value"}));
  EXPECT_DOUBLE_EQ(cell["mean_utility"].get<double>(), 14.0 / 3);
  EXPECT_DOUBLE_EQ(cell["mean_distinct"].get<double>(), 5.0 / 3);
  EXPECT_EQ(cell["prompts"], 3);
  EXPECT_EQ(cell["patience"], 0.5);
  EXPECT_EQ(cell["partitioner"], "classifier");
  EXPECT_EQ(cell["threshold"], 0.102);
  EXPECT_EQ(cell["quality"], "reward");
  EXPECT_EQ(cell["mode"], "standard");
  EXPECT_EQ(cell["errors"], 1);
  EXPECT_EQ(cell["by_mode"], Json::parse(R"({"standard": {"mean_distinct": 1.6666666666666667,
      "mean_utility": 4.666666666666667, "prompts": 3}, "paraphrase": {"mean_distinct": 2.0,
      "mean_utility": 1.0, "prompts": 1}})"));
  EXPECT_EQ(cell["by_dataset"], Json::parse(R"({"curated": {"mean_distinct": 1.5, "mean_utility": 3.5,
      "prompts": 2}, "wildchat": {"mean_distinct": 2.0, "mean_utility": 7.0, "prompts": 1}})"));
  // (curated * 100 + wildchat * 1000) / 1100
  EXPECT_DOUBLE_EQ(cell["leaderboard_value"]["utility"].get<double>(), 7350.0 / 1100);
  EXPECT_DOUBLE_EQ(cell["leaderboard_value"]["distinct"].get<double>(), 2150.0 / 1100);
  // A cell with one dataset has no leaderboard value; by_* are written for every cell of the sweep.
  EXPECT_FALSE(summary["noveltybench"]["m"]["0.7"].contains("leaderboard_value"));
  EXPECT_EQ(Keys(summary["noveltybench"]["m"]["0.7"]["by_mode"]), std::vector<std::string>{"standard"});

  EXPECT_EQ(summary["leaderboard"], Json::parse(R"({"noveltybench": [
      {"model": "m", "best_temperature": 1.0, "mean_utility": 6.681818181818182,
       "mean_distinct": 1.9545454545454546, "weighted": true},
      {"model": "n", "best_temperature": 1.0, "mean_utility": 5.0, "mean_distinct": 2.0, "weighted": false}]})"));
  EXPECT_EQ(summary["calls"]["reward:sim:reward"]["requests"], 14);
  EXPECT_EQ(summary["run"]["seconds"], 2.5);

  const std::string board = Slurp(dir.path() / kLeaderboardFileName);
  EXPECT_THAT(board, HasSubstr(kNoveltySweepLeaderboardTitle));
  EXPECT_THAT(board, HasSubstr("SIMULATED MODELS"));
  EXPECT_THAT(board, HasSubstr("mode: standard; datasets: curated, wildchat (utility / distinct: the "
                               "curated+wildchat leaderboard value)"));
  EXPECT_THAT(board, HasSubstr("6.68 / 1.95"));
  EXPECT_THAT(board, HasSubstr("by sampling mode"));
  EXPECT_THAT(board, HasSubstr("4.67 / 1.67  1.00 / 2.00"));
}

TEST(NoveltySweepResultsTest, OneModeAndOneDatasetHaveNoBreakdowns) {
  NoveltyReducer reducer(HandSettings(), {"m"}, {1.0}, {"standard"}, {"curated"});
  reducer.Add(MakeNoveltyUnit("m", 1.0, kModeStandard, "curated", 0, {0, 1}, {6, 3}));
  const NoveltySnapshot snapshot = reducer.Snapshot();
  const NoveltyBenchResults part(snapshot);
  const Json summary = SweepSummaryJson({&part}, ResultsOptions{});
  EXPECT_EQ(Keys(summary), (std::vector<std::string>{"noveltybench", "leaderboard", "calls", "run"}));
  const Json& cell = summary["noveltybench"]["m"]["1.0"];
  EXPECT_FALSE(cell.contains("by_mode"));
  EXPECT_FALSE(cell.contains("by_dataset"));
  EXPECT_FALSE(cell.contains("leaderboard_value"));
  EXPECT_EQ(cell["mean_utility"], 5.0);
}

TEST(NoveltySweepResultsTest, BothBenchmarksShareOneSummaryAndLeaderboard) {
  TempDir dir;
  const AidanSnapshot aidan = AidanRun();
  ASSERT_TRUE(WriteSweepResults(dir.path().string(), aidan, NoveltyRun(), Simulated()).ok());
  const Json summary = SummaryOf(dir.path());
  EXPECT_EQ(Keys(summary), (std::vector<std::string>{"simulated", "notice", "simulated_models", "aidanbench",
                                                     "noveltybench", "leaderboard", "questions", "calls", "run"}));
  EXPECT_EQ(Keys(summary["leaderboard"]), (std::vector<std::string>{"aidanbench", "noveltybench"}));
  EXPECT_EQ(Keys(summary["questions"]), std::vector<std::string>{"aidanbench"});
  EXPECT_EQ(summary["calls"]["generate:sim:explorer"]["requests"], 18);  // both reducers' calls
  EXPECT_EQ(summary["calls"]["reward:sim:reward"]["requests"], 14);
  EXPECT_EQ(summary["aidanbench"], SummaryJson(aidan, Simulated())["aidanbench"]);
  EXPECT_EQ(Lines(Slurp(dir.path() / kSamplesFileName)).size(), 7u);
  EXPECT_EQ(Slurp(dir.path() / kAnswersFileName), *AidanBenchResults(aidan).RowsText());
  // summary.json is streamed (its question table a row at a time), byte for byte the pretty-printed tree.
  const AidanBenchResults aidan_part(aidan);
  const NoveltyBenchResults novelty_part(NoveltyRun());
  EXPECT_EQ(Slurp(dir.path() / kSummaryFileName),
            DumpJsonPretty(SweepSummaryJson({&aidan_part, &novelty_part}, Simulated())));

  const std::string board = Slurp(dir.path() / kLeaderboardFileName);
  const std::string aidan_board = FormatLeaderboard(aidan, Simulated());
  EXPECT_EQ(board.substr(0, aidan_board.size() + 1), aidan_board + "\n");
  EXPECT_EQ(board, SweepLeaderboardText(aidan, NoveltyRun(), Simulated()));
  EXPECT_THAT(board.substr(aidan_board.size()), HasSubstr(kNoveltySweepLeaderboardTitle));
}

TEST(NoveltySweepResultsTest, AnEmptyQuestionTableIsWrittenAsTheTreePrintsIt) {
  TempDir dir;
  AidanReducer reducer(Preset("reference-2025"), {"m"}, {0.7});
  const std::unique_ptr<BenchmarkResults> aidan = reducer.Results();
  const NoveltyBenchResults novelty(NoveltyRun());
  ASSERT_TRUE(WriteSweepResults(dir.path().string(), {aidan.get(), &novelty}, Simulated()).ok());
  const std::string text = Slurp(dir.path() / kSummaryFileName);
  EXPECT_EQ(text, DumpJsonPretty(SweepSummaryJson({aidan.get(), &novelty}, Simulated())));
  EXPECT_THAT(text, HasSubstr("\"questions\": {\n    \"aidanbench\": []\n  },"));
}

TEST(NoveltySweepResultsTest, AidanBenchOnlyFilesAreThoseOfTheAidanBenchWriter) {
  TempDir sweep, plain;
  const AidanSnapshot aidan = AidanRun();
  ASSERT_TRUE(WriteSweepResults(sweep.path().string(), aidan, std::nullopt, Simulated()).ok());
  ASSERT_TRUE(WriteResultsFolder(plain.path().string(), aidan, Simulated()).ok());
  for (const char* file : {kAnswersFileName, kSummaryFileName, kLeaderboardFileName}) {
    EXPECT_EQ(Slurp(sweep.path() / file), Slurp(plain.path() / file)) << file;
  }
  EXPECT_FALSE(std::filesystem::exists(sweep.path() / kSamplesFileName));
  EXPECT_FALSE(WriteSweepResults(sweep.path().string(), std::nullopt, std::nullopt, Simulated()).ok());
}

TEST(NoveltySweepResultsTest, FilesAreByteIdenticalWhateverTheArrivalOrder) {
  std::vector<UnitResult> units = HandNoveltyUnits();
  TempDir first, second;
  ASSERT_TRUE(WriteSweepResults(first.path().string(), std::nullopt, NoveltyRun(units), Simulated()).ok());
  std::reverse(units.begin(), units.end());
  std::rotate(units.begin(), units.begin() + 2, units.end());
  ASSERT_TRUE(WriteSweepResults(second.path().string(), std::nullopt, NoveltyRun(units), Simulated()).ok());
  for (const char* file : {kSamplesFileName, kSummaryFileName, kLeaderboardFileName}) {
    EXPECT_FALSE(Slurp(first.path() / file).empty()) << file;
    EXPECT_EQ(Slurp(first.path() / file), Slurp(second.path() / file)) << file;
  }
}

// `report` re-reads samples.jsonl (and answers.jsonl) and rewrites the same bytes.
TEST(NoveltySweepReportTest, RebuildIsByteIdentical) {
  for (const bool with_aidan : {false, true}) {
    TempDir dir;
    std::optional<AidanSnapshot> aidan;
    if (with_aidan) aidan = AidanRun();
    NoveltySnapshot novelty = NoveltyRun();
    novelty.rows[2].result.novelty->reward = {1.25, -3.0};
    ASSERT_TRUE(WriteSweepResults(dir.path().string(), aidan, novelty, Simulated()).ok());
    std::map<std::string, std::string> before;
    for (const char* file : {kSamplesFileName, kSummaryFileName, kLeaderboardFileName}) {
      before[file] = Slurp(dir.path() / file);
    }
    std::filesystem::remove(dir.path() / kLeaderboardFileName);

    absl::StatusOr<RebuildOutcome> rebuilt = RebuildResultsFolder(dir.path().string(), std::nullopt);
    ASSERT_TRUE(rebuilt.ok()) << rebuilt.status();
    EXPECT_TRUE(rebuilt->notes.empty()) << rebuilt->notes[0];
    ASSERT_EQ(rebuilt->parts.size(), with_aidan ? 2u : 1u);
    EXPECT_EQ(rebuilt->parts.front()->name(), with_aidan ? kAidanBench : kNoveltyBench);
    const NoveltyBenchResults* novelty_part = NoveltyPart(*rebuilt);
    ASSERT_NE(novelty_part, nullptr);
    for (const auto& [file, text] : before)
      EXPECT_EQ(Slurp(dir.path() / file), text) << file << " aidan " << with_aidan;
    EXPECT_EQ(rebuilt->leaderboard, before[kLeaderboardFileName]);
    EXPECT_EQ(novelty_part->snapshot().settings.patience(), 0.5);
    EXPECT_EQ(novelty_part->snapshot().settings.partition_model(), "sim:classifier");
  }
}

TEST(NoveltySweepReportTest, ReadsSamplesBackAsUnits) {
  TempDir dir;
  NoveltySnapshot snap = NoveltyRun();
  snap.rows[0].result.novelty->reward = {-2.5, std::nullopt};
  ASSERT_TRUE(WriteSweepResults(dir.path().string(), std::nullopt, snap, ResultsOptions{}).ok());
  absl::StatusOr<std::vector<UnitResult>> units = ReadNoveltySweepSamples((dir.path() / kSamplesFileName).string());
  ASSERT_TRUE(units.ok()) << units.status();
  ASSERT_EQ(units->size(), 7u);
  const UnitResult& first = (*units)[0];
  EXPECT_EQ(first.unit.id, "m/1/standard/curated/0");
  EXPECT_EQ(first.unit.mode, "standard");
  EXPECT_EQ(first.unit.dataset, "curated");
  EXPECT_EQ(first.stop_reason, kStopComplete);
  ASSERT_TRUE(first.novelty.has_value());
  EXPECT_EQ(first.novelty->partition, (std::vector<int>{0, 1}));
  EXPECT_EQ(first.novelty->reward, (std::vector<std::optional<double>>{-2.5, std::nullopt}));
  EXPECT_EQ(first.answers[1].answer, "generation 2 of m/1/standard/curated/0");
  EXPECT_EQ(first.answers[1].answer_num, 2);
  const UnitResult& failed = (*units)[4];
  EXPECT_EQ(failed.stop_reason, kStopError);
  EXPECT_EQ(failed.error, "generation by m failed: HTTP 503");
  EXPECT_FALSE(failed.novelty.has_value());
  EXPECT_EQ((*units)[6].unit.index, 6);
}

TEST(NoveltySweepReportTest, RebuildWithoutASummaryAssumesTheDefaultsAndSaysSo) {
  TempDir dir;
  ASSERT_TRUE(WriteSweepResults(dir.path().string(), std::nullopt, NoveltyRun(), ResultsOptions{}).ok());
  std::filesystem::remove(dir.path() / kSummaryFileName);
  absl::StatusOr<RebuildOutcome> rebuilt = RebuildResultsFolder(dir.path().string(), std::nullopt);
  ASSERT_TRUE(rebuilt.ok()) << rebuilt.status();
  ASSERT_GE(rebuilt->notes.size(), 2u);
  EXPECT_THAT(rebuilt->notes[1], HasSubstr("no recorded NoveltyBench settings; scored with patience 0.8"));
  // Patience 0.8 instead of 0.5 re-scores the rows, and samples.jsonl is rewritten with them.
  EXPECT_THAT(rebuilt->notes.back(), HasSubstr("rewrote samples.jsonl"));
  EXPECT_EQ(SummaryOf(dir.path())["noveltybench"]["n"]["1.0"]["patience"], 0.8);
}

TEST(NoveltySweepReportTest, SamplesFromImportOrAMalformedLineAreRefusedClearly) {
  TempDir dir;
  NoveltyResults imported;
  noveltybench::NoveltyRow row;
  row.model = "m";
  row.prompt_id = "p";
  row.prompt = "P?";
  row.generations = {"a"};
  row.partition = {0};
  row.quality = {5};
  imported.samples.push_back(NoveltySample{row, 1.0, {{5}, 1, 5.0}, std::nullopt, {}});
  ASSERT_TRUE(WriteNoveltyResultsFolder(dir.path().string(), imported).ok());
  absl::StatusOr<RebuildOutcome> rebuilt = RebuildResultsFolder(dir.path().string(), std::nullopt);
  ASSERT_FALSE(rebuilt.ok());
  EXPECT_EQ(rebuilt.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(rebuilt.status().message(), HasSubstr("samples.jsonl:1: no \"unit_id\""));

  TempDir bad;
  bad.Write(kSamplesFileName, "\n{\"unit_id\": \"u\", \"model\": \"m\"}\n");
  rebuilt = RebuildResultsFolder(bad.path().string(), std::nullopt);
  ASSERT_FALSE(rebuilt.ok());
  EXPECT_THAT(rebuilt.status().message(), HasSubstr("samples.jsonl:2: malformed sample line"));
  bad.Write(kSamplesFileName, testing_files::DeeplyNestedJson() + "\n");
  rebuilt = RebuildResultsFolder(bad.path().string(), std::nullopt);
  ASSERT_FALSE(rebuilt.ok());
  EXPECT_THAT(rebuilt.status().message(), HasSubstr("samples.jsonl:1: JSON nested deeper than 256 levels"));

  // A number where an int belongs is refused, not cast (undefined beyond int's range; found by
  // tests/fuzz/results_rows_fuzz); in the old summary, a settings cell with one is passed over.
  bad.Write(kSamplesFileName,
            R"({"unit_id":"u","model":"m","temperature":1.0,"prompt_id":"p","prompt":"P?",)"
            R"("mode":"standard","dataset":"d","generations":["a"],"partition":[0],"quality":[5],"repeat":4e9})"
            "\n");
  rebuilt = RebuildResultsFolder(bad.path().string(), std::nullopt);
  ASSERT_FALSE(rebuilt.ok());
  EXPECT_THAT(std::string(rebuilt.status().message()),
              HasSubstr("samples.jsonl:1: malformed sample line: \"repeat\" is 4000000000.0"));
  EXPECT_FALSE(NoveltySettingsFromSummary(Json::parse(R"({"noveltybench":{"m":{"1.0":{"patience":0.5,"k":1e300}}}})"))
                   .has_value());

  TempDir empty;
  rebuilt = RebuildResultsFolder(empty.path().string(), std::nullopt);
  ASSERT_FALSE(rebuilt.ok());
  EXPECT_THAT(rebuilt.status().message(), HasSubstr("has no answers.jsonl or samples.jsonl"));
}

}  // namespace
}  // namespace noveltygrid::testing_units
