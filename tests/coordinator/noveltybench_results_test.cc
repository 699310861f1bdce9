#include "coordinator/benchmarks/noveltybench/noveltybench_results.h"

#include <filesystem>

#include "common/json_util.h"
#include "coordinator/report/results_writer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/common/test_files.h"

namespace noveltygrid {
namespace {

using noveltybench::NoveltyRow;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing_files::TempDir;

NoveltyRow Row(const std::string& model, const std::string& id, std::vector<int> partition,
               std::vector<std::optional<int>> quality, std::optional<double> temperature = std::nullopt) {
  NoveltyRow row;
  row.prompt_id = id;
  row.prompt = "Name a colour.";
  row.model = model;
  row.temperature = temperature;
  for (size_t i = 0; i < partition.size(); ++i) row.generations.push_back("g" + std::to_string(i));
  row.partition = std::move(partition);
  row.quality = std::move(quality);
  row.where = "test:1";
  return row;
}

NoveltyResults Imported(std::vector<NoveltyRow> rows, NoveltySourceOptions options = {}) {
  absl::StatusOr<NoveltyResults> results = ScoreRecordedRows(std::move(rows), options);
  EXPECT_TRUE(results.ok()) << results.status();
  return results.value_or(NoveltyResults{});
}

TEST(NoveltyResultsTest, SamplesLineFollowsTheContract) {
  const NoveltyResults results = Imported({Row("m", "p1", {0, 0, 1}, {9, std::nullopt, 4})});
  EXPECT_EQ(NoveltySamplesJsonl(results),
            "{\"benchmark\":\"noveltybench\",\"model\":\"m\",\"temperature\":1.0,\"prompt_id\":\"p1\","
            "\"prompt\":\"Name a colour.\",\"generations\":[\"g0\",\"g1\",\"g2\"],\"partition\":[0,0,1],"
            "\"quality\":[9,null,4],\"generation_scores\":[9,0,4],\"distinct\":2,\"utility\":" +
                DumpJson(Json(noveltybench::Utility({9, 0, 4}, 0.8))) + "}\n");
}

TEST(NoveltyResultsTest, SummaryCellsPerModelAndTemperature) {
  NoveltyResults results = Imported({
      Row("b", "p1", {0, 1}, {10, 10}, 0.7),
      Row("b", "p2", {0, 0}, {10, std::nullopt}, 0.7),
      Row("b", "p1", {0, 0}, {2, std::nullopt}, 1.0),
      Row("a", "p1", {0, 0}, {5, std::nullopt}, 1.25),
  });
  results.run = Json{{"command", "test"}};
  const Json summary = NoveltySummaryJson(results);
  std::vector<std::string> keys;
  for (const auto& [key, value] : summary.items()) keys.push_back(key);
  EXPECT_THAT(keys, ElementsAre("noveltybench", "leaderboard", "calls", "run"));
  const Json& b07 = summary["noveltybench"]["b"]["0.7"];
  EXPECT_DOUBLE_EQ(b07["mean_distinct"].get<double>(), 1.5);
  EXPECT_EQ(b07["prompts"], 2);
  EXPECT_EQ(b07["partitioner"], "recorded");
  EXPECT_EQ(b07["temperature_assumed"], false);
  EXPECT_FALSE(b07.contains("threshold"));
  EXPECT_TRUE(summary["noveltybench"]["b"].contains("1.0"));
  EXPECT_TRUE(summary["noveltybench"]["a"].contains("1.25"));
  // Best temperature per model, best utility first.
  const Json& board = summary["leaderboard"]["noveltybench"];
  ASSERT_EQ(board.size(), 2u);
  EXPECT_EQ(board[0]["model"], "b");
  EXPECT_EQ(board[0]["best_temperature"], 0.7);
  EXPECT_EQ(board[1]["model"], "a");
  EXPECT_EQ(summary["run"]["command"], "test");

  const std::string text = FormatNoveltyLeaderboard(results);
  EXPECT_THAT(text, HasSubstr(kNoveltyLeaderboardTitle));
  EXPECT_THAT(text, HasSubstr("T=0.7"));
  EXPECT_THAT(text, HasSubstr("T=1.25"));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("temperature assumed")));
}

TEST(NoveltyResultsTest, SimulatedModelsAreMarked) {
  const NoveltyResults results = Imported({Row("sim:steady", "p1", {0}, {5}, 1.0)});
  EXPECT_EQ(NoveltySummaryJson(results)["simulated"], true);
  EXPECT_THAT(FormatNoveltyLeaderboard(results), HasSubstr("SIMULATED MODELS"));
}

TEST(NoveltyResultsTest, ScoringErrorsNameTheRow) {
  absl::StatusOr<NoveltyResults> results =
      ScoreRecordedRows({Row("m", "p1", {0, 1}, {5, std::nullopt})}, NoveltySourceOptions{});
  ASSERT_FALSE(results.ok());
  EXPECT_THAT(std::string(results.status().message()), HasSubstr("test:1: generation 1 opens class 1"));
}

TEST(NoveltyResultsTest, WritesTheFolderAndAgreement) {
  TempDir dir;
  const auto out = dir.path() / "nested" / "out";
  const NoveltyResults results = Imported({Row("m", "p1", {0, 1}, {5, 6})});
  ASSERT_TRUE(WriteNoveltyResultsFolder(out.string(), results).ok());
  noveltybench::PairAgreement agreement;
  ASSERT_TRUE(agreement.Add({0, 0}, {0, 1}).ok());
  NoveltyScoring scoring;
  scoring.partitioner = "unigram";
  scoring.threshold = 0.458;
  ASSERT_TRUE(WriteAgreementFile(out.string(), AgreementJson(agreement, 1.0, 2.0, scoring, 1)).ok());
  for (const char* name : {kSamplesFileName, kSummaryFileName, kLeaderboardFileName, kAgreementFileName}) {
    EXPECT_TRUE(std::filesystem::exists(out / name)) << name;
  }
  absl::StatusOr<Json> a = ReadJsonFile((out / kAgreementFileName).string());
  ASSERT_TRUE(a.ok());
  std::vector<std::string> keys;
  for (const auto& [key, value] : a->items()) keys.push_back(key);
  EXPECT_THAT(keys, ElementsAre("pair_precision", "pair_recall", "pair_f1", "mean_distinct_recorded",
                                "mean_distinct_new", "partitioner", "threshold", "rows", "pairs"));
  EXPECT_EQ((*a)["pair_precision"], 1.0);  // nothing claimed
  EXPECT_EQ((*a)["pair_recall"], 0.0);
}

}  // namespace
}  // namespace noveltygrid
