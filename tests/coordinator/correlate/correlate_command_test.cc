// `noveltygrid correlate` end to end: a results folder written by the results writer, a made-up
// leaderboard CSV, arguments in, exit code and output out.
#include <string>
#include <vector>

#include "cli/commands.h"
#include "common/json_util.h"
#include "coordinator/benchmarks/aidanbench/aidan_reducer.h"
#include "coordinator/benchmarks/aidanbench/aidan_results.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/common/test_files.h"
#include "tests/coordinator/aidan_test_units.h"
#include "tests/coordinator/capture_command.h"

namespace noveltygrid::cli {
namespace {

using ::testing::HasSubstr;
using testing_files::TempDir;
using testing_runs::CaptureCommand;
using testing_runs::Captured;

// Five models on one AidanBench question: vendor/a gives 5 valid answers, b 4, ..., e 1.
class CorrelateCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::vector<std::string> models = {"vendor/a", "vendor/b", "vendor/c", "vendor/d", "vendor/e"};
    AidanReducer reducer(testing_units::Preset("reference-2025"), models, {0.7});
    for (size_t i = 0; i < models.size(); ++i) {
      std::vector<std::pair<double, double>> answers(models.size() - i, {90, 0.9});
      answers.push_back({12, 0.5});  // incoherent: ends the loop, not valid
      reducer.Add(testing_units::MakeUnit(models[i], 0.7, static_cast<int>(i), answers, kStopIncoherent));
    }
    ASSERT_TRUE(WriteResultsFolder(results_.string(), reducer.Snapshot(), ResultsOptions{}).ok());
    // Made up for the test. Matched with the sweep: a..d; vendor/e is not on it, x is not in the sweep.
    board_ = dir_.Write("board.csv",
                        "model,organization,elo\r\n"
                        "vendor/a,A,1100\r\nvendor/b,B,1300\r\nvendor/c,C,1200\r\nvendor/d,D,1000\r\nx,X,900\r\n");
  }

  Captured Correlate(std::vector<std::string> args) { return CaptureCommand(RunCorrelateCommand, args); }

  TempDir dir_;
  const std::filesystem::path results_ = dir_.path() / "results";
  std::string board_;
};

// Ours 5,4,3,2 (ranks 1..4), theirs 1100,1300,1200,1000 (ranks 3,1,2,4). Spearman: sum d^2 = 4+1+1+0,
// rho = 1 - 6*6/(4*15) = 0.4. Kendall: (a,b) and (a,c) discordant, 4 concordant: tau = 2/6.
// Pearson: dx = {1.5,.5,-.5,-1.5}, dy = {-50,150,50,-150}: sxy = 200, sxx = 5, syy = 50000, r = 0.4.
TEST_F(CorrelateCommandTest, Text) {
  const Captured run = Correlate({results_.string(), board_});
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_THAT(run.out,
              HasSubstr("aidanbench valid_answers vs " + board_ + " column 'elo' (models from column 'model')"));
  EXPECT_THAT(run.out, HasSubstr("models on both (n)  4\nSpearman rho        0.4000\nKendall tau-b       0.3333\n"
                                 "Pearson r           0.4000\nR^2                 0.1600\n"));
  EXPECT_THAT(run.out, HasSubstr("model     valid_answers  rank   elo  rank\n"));
  EXPECT_THAT(run.out, HasSubstr("vendor/a              5     1  1100     3\n"));
  EXPECT_THAT(run.out, HasSubstr("sweep models not on the leaderboard (1): vendor/e\n"));
  EXPECT_THAT(run.out, HasSubstr("leaderboard models not in the sweep (1): x\n"));
  EXPECT_EQ(run.err, "");
}

TEST_F(CorrelateCommandTest, JsonWithMapAndMetric) {
  const std::string map = dir_.Write("map.csv", "sweep_model,leaderboard_model\nvendor/e,x\n");
  const Captured run = Correlate({results_.string(), board_, "--map", map, "--metric", "novelty_sum", "--json"});
  ASSERT_EQ(run.code, 0) << run.err;
  absl::StatusOr<Json> json = ParseJson(run.out);
  ASSERT_TRUE(json.ok()) << json.status() << run.out;
  EXPECT_EQ((*json)["n"], 5);
  EXPECT_EQ((*json)["metric"], "novelty_sum");
  EXPECT_EQ((*json)["map"], map);
  EXPECT_EQ((*json)["matched"][4]["leaderboard_model"], "x");
  EXPECT_EQ((*json)["matched"][4]["score"], 0.9);  // one valid answer of novelty 0.9
  EXPECT_TRUE((*json)["unmatched_sweep_models"].empty());
  EXPECT_TRUE((*json)["unmatched_leaderboard_models"].empty());
  // Ours 4.5,3.6,2.7,1.8,0.9 -- the ranks of 5..1 -- against 1100,1300,1200,1000,900: sum d^2 = 6, so
  // rho = 1 - 36/120 = 0.7; Kendall: 2 discordant of 10, tau = 0.6.
  EXPECT_NEAR((*json)["spearman_rho"].get<double>(), 0.7, 1e-12);
  EXPECT_NEAR((*json)["kendall_tau_b"].get<double>(), 0.6, 1e-12);
}

TEST_F(CorrelateCommandTest, ColumnFlags) {
  const std::string board = dir_.Write("cols.csv", "id,votes,elo\nvendor/a,1,10\nvendor/b,2,20\nvendor/c,3,30\n");
  const Captured run = Correlate({results_.string(), board, "--model-column", "id", "--column", "votes", "--json"});
  ASSERT_EQ(run.code, 0) << run.err;
  const Json json = Json::parse(run.out);
  EXPECT_EQ(json["score_column"], "votes");
  EXPECT_EQ(json["model_column"], "id");
  EXPECT_NEAR(json["spearman_rho"].get<double>(), -1, 1e-12);  // 5,4,3 valid answers against 1,2,3 votes
}

TEST_F(CorrelateCommandTest, Failures) {
  const std::string two = dir_.Write("two.csv", "model,elo\nvendor/a,1\nvendor/b,2\n");
  Captured run = Correlate({results_.string(), two});
  EXPECT_EQ(run.code, 1);
  EXPECT_THAT(run.err, HasSubstr("noveltygrid correlate: 2 model(s) on both leaderboards"));
  EXPECT_EQ(run.out, "");

  run = Correlate({results_.string(), (dir_.path() / "none.csv").string()});
  EXPECT_EQ(run.code, 1);
  EXPECT_THAT(run.err, HasSubstr("none.csv"));
  run = Correlate({(dir_.path() / "nowhere").string(), board_});
  EXPECT_EQ(run.code, 1);
  EXPECT_THAT(run.err, HasSubstr("summary.json"));
  run = Correlate({results_.string(), board_, "--benchmark", "noveltybench"});
  EXPECT_EQ(run.code, 1);
  EXPECT_THAT(run.err, HasSubstr("no noveltybench leaderboard; it has: aidanbench"));
  run = Correlate({results_.string(), board_, "--column", "organization"});
  EXPECT_EQ(run.code, 1);
  EXPECT_THAT(run.err, HasSubstr("0 model(s) on both"));  // every row skipped: no number
}

TEST_F(CorrelateCommandTest, Usage) {
  EXPECT_EQ(Correlate({}).code, 2);
  EXPECT_EQ(Correlate({results_.string()}).code, 2);
  EXPECT_EQ(Correlate({results_.string(), board_, "--colum", "elo"}).code, 2);
  const Captured unknown = Correlate({results_.string(), board_, "--benchmark", "mmlu"});
  EXPECT_EQ(unknown.code, 2);
  EXPECT_THAT(unknown.err, HasSubstr("unknown --benchmark 'mmlu'; expected aidanbench or noveltybench"));
  const Captured help = Correlate({"--help"});
  EXPECT_EQ(help.code, 0);
  EXPECT_THAT(help.out, HasSubstr("Usage: noveltygrid correlate DIR LEADERBOARD.csv"));
}

}  // namespace
}  // namespace noveltygrid::cli
