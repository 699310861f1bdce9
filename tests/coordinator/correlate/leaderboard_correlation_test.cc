// Matching a summary.json leaderboard against an external one, and the text and JSON made of it. The
// leaderboards are made up for the tests; expected coefficients are worked out in the comments.
#include "coordinator/report/correlate/leaderboard_correlation.h"

#include <cmath>
#include <string>

#include "coordinator/report/correlate/correlation_output.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/common/test_files.h"

namespace noveltygrid {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using testing_files::TempDir;

// A summary.json with both benchmarks' leaderboards, shaped as the results writer writes them.
Json Summary() {
  return Json::parse(R"({
    "aidanbench": {},
    "leaderboard": {
      "aidanbench": [
        {"model": "m1", "best_temperature": 0.7, "valid_answers": 500, "novelty_sum": 300.5},
        {"model": "m2", "best_temperature": 0.7, "valid_answers": 400, "novelty_sum": 310.25},
        {"model": "m3", "best_temperature": 1.0, "valid_answers": 300, "novelty_sum": 200},
        {"model": "m4", "best_temperature": 0.0, "valid_answers": 200, "novelty_sum": 100},
        {"model": "m5", "best_temperature": 0.0, "valid_answers": 100, "novelty_sum": 50}
      ],
      "noveltybench": [
        {"model": "m2", "best_temperature": 1.0, "mean_utility": 4.5, "mean_distinct": 6.0, "weighted": false},
        {"model": "m1", "best_temperature": 1.0, "mean_utility": 3.5, "mean_distinct": 5.0, "weighted": false},
        {"model": "m3", "best_temperature": 1.0, "mean_utility": 2.5, "mean_distinct": 5.0, "weighted": false}
      ]
    }
  })");
}

ExternalLeaderboard Leaderboard(const std::vector<std::pair<std::string, double>>& scores) {
  ExternalLeaderboard board;
  board.model_column = "model";
  board.score_column = "elo";
  int line = 2;
  for (const auto& [model, score] : scores) board.scores.push_back(LeaderboardScore{model, score, line++});
  return board;
}

SweepScores Sweep(const std::string& benchmark = "", const std::string& metric = "") {
  absl::StatusOr<SweepScores> sweep = SweepScoresFromSummary(Summary(), benchmark, metric);
  EXPECT_TRUE(sweep.ok()) << sweep.status();
  return sweep.value_or(SweepScores{});
}

TEST(SweepScoresTest, HeadlineMetricOfTheFirstLeaderboard) {
  const SweepScores sweep = Sweep();
  EXPECT_EQ(sweep.benchmark, "aidanbench");
  EXPECT_EQ(sweep.metric, "valid_answers");
  ASSERT_EQ(sweep.scores.size(), 5u);
  EXPECT_EQ(sweep.scores[0].model, "m1");
  EXPECT_EQ(sweep.scores[0].score, 500);
  EXPECT_THAT(sweep.other_benchmarks, ElementsAre("noveltybench"));

  const SweepScores novelty = Sweep("noveltybench");
  EXPECT_EQ(novelty.metric, "mean_utility");
  EXPECT_EQ(novelty.scores[0].score, 4.5);
  EXPECT_THAT(novelty.other_benchmarks, ElementsAre("aidanbench"));
  EXPECT_EQ(Sweep("aidanbench", "novelty_sum").scores[1].score, 310.25);
}

TEST(SweepScoresTest, MissingPieces) {
  absl::StatusOr<SweepScores> metric = SweepScoresFromSummary(Summary(), "aidanbench", "mean_utility");
  EXPECT_EQ(metric.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(metric.status().message(),
              HasSubstr("entry of m1 has no numeric \"mean_utility\"; its numeric fields: best_temperature, "
                        "valid_answers, novelty_sum"));
  EXPECT_THAT(SweepScoresFromSummary(Summary(), "noveltybench", "weighted").status().message(),
              HasSubstr("no numeric \"weighted\""));  // a boolean is not a score
  Json one = Summary();
  one["leaderboard"].erase("noveltybench");
  absl::StatusOr<SweepScores> absent = SweepScoresFromSummary(one, "noveltybench", "");
  EXPECT_EQ(absent.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(absent.status().message(), HasSubstr("no noveltybench leaderboard; it has: aidanbench"));
  EXPECT_EQ(SweepScoresFromSummary(Json::parse(R"({"aidanbench": {}})"), "", "").status().code(),
            absl::StatusCode::kNotFound);
  Json nameless = Summary();
  nameless["leaderboard"]["aidanbench"][2].erase("model");
  EXPECT_THAT(SweepScoresFromSummary(nameless, "", "").status().message(), HasSubstr("entry has no model"));
}

TEST(MatchAndCorrelateTest, ExactNamesWithUnmatchedOnBothSides) {
  // Matched: m1..m4 (m5 is not on the leaderboard; "other" is not in the sweep). Ours 500,400,300,200
  // (ranks 1..4); theirs 1200,1300,1100,1000 (ranks 2,1,3,4). One discordant pair of six:
  // tau = (5 - 1) / 6 = 2/3; sum d^2 = 2, rho = 1 - 6 * 2 / (4 * 15) = 0.8. Pearson: dx = {150,50,-50,-150},
  // dy = {50,150,-50,-150}: sxy = 7500 + 7500 + 2500 + 22500 = 40000, sxx = syy = 50000, r = 0.8.
  const ExternalLeaderboard board =
      Leaderboard({{"other", 1400}, {"m2", 1300}, {"m1", 1200}, {"m3", 1100}, {"m4", 1000}});
  absl::StatusOr<Correlation> c = MatchAndCorrelate(Sweep(), board, {});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->stats.n, 4);
  EXPECT_NEAR(c->stats.kendall_tau_b, 2.0 / 3, 1e-12);
  EXPECT_NEAR(c->stats.spearman_rho, 0.8, 1e-12);
  EXPECT_NEAR(c->stats.pearson_r, 0.8, 1e-12);
  EXPECT_NEAR(c->stats.r_squared, 0.64, 1e-12);
  ASSERT_EQ(c->matched.size(), 4u);
  const MatchedModel& m1 = c->matched[0];
  EXPECT_EQ(m1.model, "m1");
  EXPECT_EQ(m1.leaderboard_model, "m1");
  EXPECT_EQ(m1.score, 500);
  EXPECT_EQ(m1.leaderboard_score, 1200);
  EXPECT_EQ(m1.rank, 1);
  EXPECT_EQ(m1.leaderboard_rank, 2);
  EXPECT_THAT(c->unmatched_sweep_models, ElementsAre("m5"));
  EXPECT_THAT(c->unmatched_leaderboard_models, ElementsAre("other"));
  EXPECT_EQ(c->benchmark, "aidanbench");
  EXPECT_EQ(c->score_column, "elo");
}

TEST(MatchAndCorrelateTest, MapRenamesAndTiedRanks) {
  // NoveltyBench mean_distinct 6, 5, 5 (m2, m1, m3): ranks 1, 2.5, 2.5.
  const ExternalLeaderboard board = Leaderboard({{"Model One", 10}, {"Model Two", 30}, {"m3", 20}});
  const ModelNameMap map = {{"m1", "Model One"}, {"m2", "Model Two"}, {"unused", "x"}};
  absl::StatusOr<Correlation> c = MatchAndCorrelate(Sweep("noveltybench", "mean_distinct"), board, map);
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_EQ(c->matched.size(), 3u);
  EXPECT_EQ(c->matched[0].model, "m2");
  EXPECT_EQ(c->matched[0].leaderboard_model, "Model Two");
  EXPECT_EQ(c->matched[0].rank, 1);
  EXPECT_EQ(c->matched[1].rank, 2.5);
  EXPECT_EQ(c->matched[2].rank, 2.5);
  EXPECT_EQ(c->matched[1].leaderboard_rank, 3);
  EXPECT_EQ(c->matched[2].leaderboard_rank, 2);
  EXPECT_TRUE(c->unmatched_leaderboard_models.empty());
  // x = {6,5,5}, y = {30,10,20}: the pair (m1, m3) is tied in x; (m2,m1) and (m2,m3) concordant:
  // tau-b = 2 / sqrt(2 * 3).
  EXPECT_NEAR(c->stats.kendall_tau_b, 2 / std::sqrt(6.0), 1e-12);
}

TEST(MatchAndCorrelateTest, TooFewMatchesNameBothSides) {
  const ExternalLeaderboard board = Leaderboard({{"m1", 1}, {"m2", 2}, {"gpt", 3}});
  absl::StatusOr<Correlation> c = MatchAndCorrelate(Sweep(), board, {});
  EXPECT_EQ(c.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(c.status().message(),
              HasSubstr("2 model(s) on both leaderboards (m1, m2); a correlation needs at least 3"));
  EXPECT_THAT(c.status().message(), HasSubstr("Sweep models not on the leaderboard: m3, m4, m5"));
  EXPECT_THAT(c.status().message(), HasSubstr("Leaderboard models not in the sweep: gpt"));
  EXPECT_THAT(c.status().message(), HasSubstr("--map"));
  EXPECT_THAT(MatchAndCorrelate(Sweep(), Leaderboard({}), {}).status().message(),
              HasSubstr("0 model(s) on both leaderboards (none)"));
}

TEST(MatchAndCorrelateTest, ConstantScoresAndDoubleMatches) {
  absl::StatusOr<Correlation> flat = MatchAndCorrelate(Sweep(), Leaderboard({{"m1", 7}, {"m2", 7}, {"m3", 7}}), {});
  EXPECT_EQ(flat.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(flat.status().message(), HasSubstr("every matched model has the same leaderboard 'elo' (7)"));
  absl::StatusOr<Correlation> ours =
      MatchAndCorrelate(Sweep("noveltybench", "best_temperature"), Leaderboard({{"m1", 1}, {"m2", 2}, {"m3", 3}}), {});
  EXPECT_THAT(ours.status().message(), HasSubstr("every matched model has the same noveltybench best_temperature (1)"));
  absl::StatusOr<Correlation> twice =
      MatchAndCorrelate(Sweep(), Leaderboard({{"m1", 1}, {"m2", 2}, {"m3", 3}}), {{"m4", "m1"}});
  EXPECT_EQ(twice.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(twice.status().message(), HasSubstr("sweep models m1 and m4 both match leaderboard model m1"));
}

TEST(CorrelateWithLeaderboardTest, FilesAndOutput) {
  TempDir dir;
  CorrelateOptions options;
  options.leaderboard_path = dir.Write("board.csv",
                                       "\xEF\xBB\xBFrank,Model,score,org\r\n"
                                       "1,Model Two,1300,a\r\n2,m1,1200,\"b, c\"\r\n3,m3,1100,d\r\n"
                                       "4,m4,1000,e\r\n5,big,N/A,f\r\n6,other,900,g\r\n");
  options.map_path = dir.Write("map.csv", "sweep_model,leaderboard_model\nm2,Model Two\n");
  absl::StatusOr<Correlation> c = CorrelateWithLeaderboard(Summary(), options);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->stats.n, 4);
  EXPECT_NEAR(c->stats.spearman_rho, 0.8, 1e-12);  // the numbers of ExactNamesWithUnmatchedOnBothSides
  EXPECT_EQ(c->score_column, "score");
  EXPECT_EQ(c->leaderboard_path, options.leaderboard_path);
  ASSERT_EQ(c->skipped_rows.size(), 1u);
  EXPECT_EQ(c->skipped_rows[0].line, 6);

  const std::string text = CorrelationText(*c);
  EXPECT_THAT(text, HasSubstr("aidanbench valid_answers vs " + options.leaderboard_path + " column 'score'"));
  EXPECT_THAT(text, HasSubstr("models on both (n)  4\nSpearman rho        0.8000\nKendall tau-b       0.6667\n"
                              "Pearson r           0.8000\nR^2                 0.6400\n"));
  EXPECT_THAT(text, HasSubstr("p-values: not computed"));
  EXPECT_THAT(text, HasSubstr("m2 = Model Two            400     2   1300     1"));
  EXPECT_THAT(text, HasSubstr("sweep models not on the leaderboard (1): m5\n"));
  EXPECT_THAT(text, HasSubstr("leaderboard models not in the sweep (1): other\n"));
  EXPECT_THAT(text, HasSubstr("(1): line 6 big 'N/A'"));
  EXPECT_THAT(text, HasSubstr("--benchmark noveltybench"));

  const Json json = CorrelationJson(*c);
  EXPECT_EQ(json["n"], 4);
  EXPECT_EQ(json["map"], options.map_path);
  EXPECT_EQ(json["matched"][1], Json::parse(R"({"model": "m2", "leaderboard_model": "Model Two", "score": 400.0,
      "leaderboard_score": 1300.0, "rank": 2.0, "leaderboard_rank": 1.0})"));
  EXPECT_EQ(json["unmatched_sweep_models"], Json::parse(R"(["m5"])"));
  EXPECT_EQ(json["skipped_rows"], Json::parse(R"([{"line": 6, "model": "big", "value": "N/A"}])"));
  EXPECT_NEAR(json["kendall_tau_b"].get<double>(), 2.0 / 3, 1e-12);

  options.map_path = (dir.path() / "no-map.csv").string();
  EXPECT_EQ(CorrelateWithLeaderboard(Summary(), options).status().code(), absl::StatusCode::kNotFound);
}

TEST(CorrelationOutputTest, LongUnmatchedListsAreCut) {
  std::vector<std::pair<std::string, double>> scores = {{"m1", 3}, {"m2", 2}, {"m3", 1}};
  for (int i = 0; i < 40; ++i) scores.push_back({"x" + std::to_string(i), i});
  absl::StatusOr<Correlation> c = MatchAndCorrelate(Sweep(), Leaderboard(scores), {});
  ASSERT_TRUE(c.ok()) << c.status();
  const std::string text = CorrelationText(*c);
  EXPECT_THAT(text, HasSubstr("leaderboard models not in the sweep (40): x0, x1,"));
  EXPECT_THAT(text, HasSubstr("x29 and 10 more (--json lists them all)"));
  EXPECT_THAT(text, Not(HasSubstr("x30")));
  EXPECT_EQ(CorrelationJson(*c)["unmatched_leaderboard_models"].size(), 40u);
}

TEST(CorrelationOutputTest, SimulatedSweepsSaySo) {
  const ExternalLeaderboard board = Leaderboard({{"m1", 3}, {"m2", 2}, {"m3", 1}});
  absl::StatusOr<Correlation> real = MatchAndCorrelate(Sweep(), board, {});
  ASSERT_TRUE(real.ok()) << real.status();
  EXPECT_THAT(CorrelationText(*real), Not(HasSubstr("SIMULATED")));
  EXPECT_EQ(CorrelationJson(*real)["simulated"], false);

  Json summary = Summary();
  summary["simulated"] = true;
  absl::StatusOr<SweepScores> sweep = SweepScoresFromSummary(summary, "", "");
  ASSERT_TRUE(sweep.ok()) << sweep.status();
  absl::StatusOr<Correlation> simulated = MatchAndCorrelate(*sweep, board, {});
  ASSERT_TRUE(simulated.ok()) << simulated.status();
  EXPECT_THAT(CorrelationText(*simulated), HasSubstr("(models from column 'model')\nSIMULATED MODELS --"));
  EXPECT_EQ(CorrelationJson(*simulated)["simulated"], true);
}

}  // namespace
}  // namespace noveltygrid
