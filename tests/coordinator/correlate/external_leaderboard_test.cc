// Reading external leaderboards and model-name maps. Every leaderboard here is made up for the test.
#include "coordinator/report/correlate/external_leaderboard.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/common/test_files.h"

namespace noveltygrid {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing_files::TempDir;

absl::StatusOr<ExternalLeaderboard> Board(const std::string& csv, const LeaderboardColumns& columns = {}) {
  absl::StatusOr<CsvTable> table = ParseCsv(csv);
  if (!table.ok()) return table.status();
  return LeaderboardFromCsv(*table, columns);
}

std::vector<std::string> Models(const ExternalLeaderboard& board) {
  std::vector<std::string> models;
  for (const LeaderboardScore& s : board.scores) models.push_back(s.model);
  return models;
}

TEST(ExternalLeaderboardTest, DefaultColumnsSkipTextAndRankColumns) {
  // Shaped like a published arena table: a rank first, then the name, a score, an interval, votes.
  absl::StatusOr<ExternalLeaderboard> board = Board(
      "Rank* (UB),Model,Arena Score,95% CI,Votes,Organization\n"
      "1,model-a,1300,+3/-4,9000,Org A\n"
      "2,model-b, 1250.5 ,+5/-5,8000,Org B\n");
  ASSERT_TRUE(board.ok()) << board.status();
  EXPECT_EQ(board->model_column, "Model");
  EXPECT_EQ(board->score_column, "Arena Score");
  EXPECT_THAT(Models(*board), ElementsAre("model-a", "model-b"));
  EXPECT_EQ(board->scores[1].score, 1250.5);  // spaces around a number are allowed
  EXPECT_EQ(board->scores[1].line, 3);
  EXPECT_TRUE(board->skipped.empty());
}

TEST(ExternalLeaderboardTest, NameColumnAndMostlyNumericColumn) {
  // "notes" holds one number among text: not numeric. "elo" has one N/A among three numbers: numeric.
  absl::StatusOr<ExternalLeaderboard> board = Board(
      "NAME,notes,elo\n"
      "a,fast,1100\n"
      "b,12,N/A\n"
      "c,slow,1200\n"
      "d,big,1300\n");
  ASSERT_TRUE(board.ok()) << board.status();
  EXPECT_EQ(board->model_column, "NAME");
  EXPECT_EQ(board->score_column, "elo");
  EXPECT_THAT(Models(*board), ElementsAre("a", "c", "d"));
  ASSERT_EQ(board->skipped.size(), 1u);
  EXPECT_EQ(board->skipped[0].model, "b");
  EXPECT_EQ(board->skipped[0].value, "N/A");
  EXPECT_EQ(board->skipped[0].line, 3);
}

TEST(ExternalLeaderboardTest, RowsWithoutANumberOrANameAreSkipped) {
  absl::StatusOr<ExternalLeaderboard> board = Board(
      "model,score\n"
      "a,1\n"
      "b,\n"
      "c,\"1,234\"\n"
      "d,inf\n"
      "e,nan\n"
      ",5\n"
      "f,2e3\n"
      "g,-0.5\n",
      {.model = "", .score = "score"});
  ASSERT_TRUE(board.ok()) << board.status();
  EXPECT_THAT(Models(*board), ElementsAre("a", "f", "g"));
  EXPECT_EQ(board->scores[1].score, 2000);
  ASSERT_EQ(board->skipped.size(), 5u);
  EXPECT_EQ(board->skipped[1].value, "1,234");
  EXPECT_EQ(board->skipped[4].model, "");
  EXPECT_EQ(board->skipped[4].line, 7);
}

TEST(ExternalLeaderboardTest, NamedColumns) {
  const std::string csv = "id,model,votes,elo\nx,a,10,1100\ny,b,20,1200\n";
  absl::StatusOr<ExternalLeaderboard> board = Board(csv, {.model = "id", .score = "elo"});
  ASSERT_TRUE(board.ok()) << board.status();
  EXPECT_THAT(Models(*board), ElementsAre("x", "y"));
  EXPECT_EQ(board->scores[0].score, 1100);
  EXPECT_EQ(Board(csv)->score_column, "votes");  // the first numeric one

  absl::StatusOr<ExternalLeaderboard> missing = Board(csv, {.model = "", .score = "Elo"});
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr("no score column 'Elo'; the header has: id, model, votes, elo"));
  EXPECT_THAT(Board(csv, {.model = "who", .score = ""}).status().message(), HasSubstr("no model column 'who'"));
  EXPECT_THAT(Board(csv, {.model = "", .score = "model"}).status().message(),
              HasSubstr("'model' cannot be both the model and the score column"));
}

TEST(ExternalLeaderboardTest, UnusableTables) {
  EXPECT_THAT(Board("who,elo\na,1\n").status().message(), HasSubstr("no column named model or name"));
  EXPECT_THAT(Board("model,org\na,x\nb,y\n").status().message(), HasSubstr("no numeric score column"));
  EXPECT_THAT(Board("model,rank\na,1\nb,2\n").status().message(), HasSubstr("no numeric score column"));
  EXPECT_THAT(Board("model,elo\na,1\nb,2\na,3\n").status().message(),
              HasSubstr("line 4: model 'a' is listed again (first on line 2)"));
}

TEST(ExternalLeaderboardTest, ReadFromFile) {
  TempDir dir;
  const std::string path = dir.Write("board.csv", "model,elo\r\na,1\r\n");
  absl::StatusOr<ExternalLeaderboard> board = ReadExternalLeaderboard(path, {});
  ASSERT_TRUE(board.ok()) << board.status();
  EXPECT_THAT(Models(*board), ElementsAre("a"));
  const std::string bad = dir.Write("bad.csv", "model,org\na,x\n");
  EXPECT_THAT(ReadExternalLeaderboard(bad, {}).status().message(), HasSubstr(bad + ": no numeric score column"));
}

absl::StatusOr<ModelNameMap> Map(const std::string& csv) {
  absl::StatusOr<CsvTable> table = ParseCsv(csv);
  if (!table.ok()) return table.status();
  return ModelNameMapFromCsv(*table);
}

TEST(ModelNameMapTest, TwoColumns) {
  absl::StatusOr<ModelNameMap> map = Map("sweep_model,leaderboard_model\nopenai/gpt-4o, gpt-4o \nsim:a,a\n");
  ASSERT_TRUE(map.ok()) << map.status();
  EXPECT_EQ(map->size(), 2u);
  EXPECT_EQ(map->at("openai/gpt-4o"), "gpt-4o");
  EXPECT_EQ(map->at("sim:a"), "a");
  ASSERT_TRUE(Map("ours,theirs\n").ok());  // an empty map
}

TEST(ModelNameMapTest, Mistakes) {
  EXPECT_THAT(Map("a,b,c\n1,2,3\n").status().message(), HasSubstr("two columns"));
  EXPECT_THAT(Map("a,b\nx,\n").status().message(), HasSubstr("line 2: both names are needed"));
  EXPECT_THAT(Map("a,b\nx,y\nx,z\n").status().message(), HasSubstr("line 3: 'x' is mapped twice"));
  EXPECT_THAT(Map("a,b\nx,y\nw,y\n").status().message(), HasSubstr("line 3: 'w' and 'x' (line 2) both map to 'y'"));
  TempDir dir;
  const std::string path = dir.Write("map.csv", "a,b\nx,\n");
  EXPECT_THAT(ReadModelNameMap(path).status().message(), HasSubstr(path + ": line 2"));
}

}  // namespace
}  // namespace noveltygrid
