// `noveltygrid plan` against what a run then measures: with half of a sweep committed (half the
// questions and prompts), the estimate for the other half is within 25% of the calls the run adds to
// summary.json; and `plan` changes nothing in a folder.
#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/json_util.h"
#include "gtest/gtest.h"
#include "tests/common/test_files.h"
#include "tests/integration/cluster_harness.h"
#include "tests/integration/process.h"

namespace noveltygrid::testing {
namespace {

class PlanTest : public ClusterTest {
 protected:
  // 2 models x 2 temperatures x the first `questions` paper questions, NoveltyBench on the first
  // `prompts` curated prompts (k = 5, two modes).
  std::string WriteConfig(const std::string& name, int questions, int prompts) {
    const std::string file = Path(absl::StrCat(name, "-questions.jsonl"));
    {
      std::ifstream in(NOVELTYGRID_SOURCE_DIR "/datasets/aidanbench/questions-paper-65.jsonl");
      std::ofstream out(file);
      std::string line;
      for (int i = 0; i < questions && std::getline(in, line); ++i) out << line << "\n";
    }
    return WriteSweepYaml(
        Path(name + ".yaml"), "plan", 7, {"sim:explorer", "sim:steady"}, {"0.7", "1.0"}, file,
        absl::StrCat("noveltybench:\n  prompts: ", testing_files::SharedData("noveltybench/curated.jsonl"),
                     "\n  limit: ", prompts, "\n  k: 5\n  modes: [standard, in-context]\n",
                     "  temperatures: [1.0]\nprices:\n  sim:explorer: {prompt: 1, completion: 4}\n  sim:steady: "
                     "{prompt: 2, completion: 3}\n"));
  }

  Json Run(std::vector<std::string> args, int expected_code = 0) {
    std::unique_ptr<Process> p = Spawn(std::move(args), std::nullopt);
    EXPECT_NE(p, nullptr);
    if (p == nullptr) return Json();
    EXPECT_EQ(p->Wait(), expected_code) << p->Output();
    return Json::parse(p->Stdout(), nullptr, false);
  }

  Json SummaryCalls(const std::string& dir) {
    std::ifstream in(dir + "/summary.json");
    return Json::parse(std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()))["calls"];
  }
};

// Requests and tokens (prompt + completion) of a summary.json "calls" object.
std::pair<double, double> Totals(const Json& calls) {
  double requests = 0, tokens = 0;
  for (const auto& [key, c] : calls.items()) {
    requests += c.value("requests", 0.0);
    tokens += c.value("prompt_tokens", 0.0) + c.value("completion_tokens", 0.0);
  }
  return {requests, tokens};
}

TEST_F(PlanTest, EstimateForTheUncommittedHalfIsWithinAQuarterOfWhatTheRunMeasures) {
  const std::string half = WriteConfig("half", 10, 3);
  const std::string full = WriteConfig("full", 20, 6);
  const std::string out = Path("sweep");

  // plan on a folder that does not exist yet creates nothing.
  const Json fresh = Run({"plan", full, "--out", out, "--json"});
  EXPECT_EQ(fresh["committed"].get<int64_t>(), 0);
  EXPECT_EQ(fresh["to_run"].get<int64_t>(), 2 * 2 * 20 + 2 * 2 * 6);
  EXPECT_FALSE(std::filesystem::exists(out));

  Run({"run", half, "--out", out, "--seed", kSeed, "--quiet"});
  const auto [first_requests, first_tokens] = Totals(SummaryCalls(out));
  const Json plan = Run({"plan", full, "--out", out, "--seed", kSeed, "--json"});
  EXPECT_EQ(plan["committed"].get<int64_t>(), 2 * 2 * 10 + 2 * 2 * 3);
  EXPECT_EQ(plan["to_run"].get<int64_t>(), 2 * 2 * 10 + 2 * 2 * 3);
  EXPECT_GT(plan["estimate"]["cost_usd"].get<double>(), 0);

  Run({"run", full, "--out", out, "--seed", kSeed, "--quiet"});
  const auto [all_requests, all_tokens] = Totals(SummaryCalls(out));
  const double measured_requests = all_requests - first_requests;
  const double measured_tokens = all_tokens - first_tokens;
  const Json& estimate = plan["estimate"];
  const double estimated_requests = estimate["requests"].get<double>();
  const double estimated_tokens = estimate["prompt_tokens"].get<double>() + estimate["completion_tokens"].get<double>();
  EXPECT_NEAR(estimated_requests, measured_requests, 0.25 * measured_requests);
  EXPECT_NEAR(estimated_tokens, measured_tokens, 0.25 * measured_tokens);
}

// A budget of half what the sweep costs stops it with exit code 3 and the results of what is
// committed; re-run with a budget that covers it, the sweep continues and ends as a fresh run does.
TEST_F(PlanTest, ABudgetStopsTheSweepAndAHigherOneContinuesIt) {
  const std::string config = WriteConfig("full", 12, 4);
  Run({"run", config, "--out", Path("fresh"), "--seed", kSeed, "--quiet"});
  const double cost = [&] {
    std::ifstream in(Path("fresh/summary.json"));
    return Json::parse(std::string(std::istreambuf_iterator<char>(in),
                                   std::istreambuf_iterator<char>()))["run"]["cost_usd"]["total"]
        .get<double>();
  }();
  ASSERT_GT(cost, 0);
  const auto with_budget = [&](const std::string& name, double budget) {
    const std::string path = Path(name + ".yaml");
    std::ifstream in(config);
    std::ofstream out(path);
    out << in.rdbuf() << "budget_usd: " << budget << "\n";
    return path;
  };

  std::unique_ptr<Process> stopped =
      Spawn({"run", with_budget("half", cost / 2), "--out", Path("sweep"), "--seed", kSeed, "--quiet"}, std::nullopt);
  ASSERT_NE(stopped, nullptr);
  EXPECT_EQ(stopped->Wait(), 3) << stopped->Output();
  EXPECT_NE(stopped->Output().find("budget reached: spent $"), std::string::npos) << stopped->Output();
  EXPECT_NE(stopped->Output().find("left undone"), std::string::npos) << stopped->Output();
  const Json plan = Run({"plan", config, "--out", Path("sweep"), "--seed", kSeed, "--json"});
  EXPECT_GT(plan["committed"].get<int64_t>(), 0);
  EXPECT_GT(plan["to_run"].get<int64_t>(), 0);
  EXPECT_TRUE(std::filesystem::exists(Path("sweep/summary.json")));

  Run({"run", with_budget("more", cost * 10), "--out", Path("sweep"), "--seed", kSeed, "--quiet"});
  ExpectSameResults(Path("fresh"), Path("sweep"));
}

}  // namespace
}  // namespace noveltygrid::testing
