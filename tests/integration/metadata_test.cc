// Question and prompt metadata end to end (issue 17): `noveltygrid run` over a question file with
// `domain` / `subdomain` (written here) and NoveltyBench's curated prompts (which carry `category`)
// breaks every cell down by them, the same way on every run, and `noveltygrid report` rebuilds the same
// summary.json from the rows files.
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/json_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/coordinator/results_folder_util.h"
#include "tests/integration/cluster_harness.h"
#include "tests/integration/process.h"

namespace noveltygrid::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using testing_units::ExpectGroupsAddUp;
using testing_units::Keys;
using testing_units::Slurp;
using testing_units::SummaryOf;

constexpr char kQuestions[] =
    R"({"id": "s1", "question": "Why is the sky blue?", "domain": "Physics", "subdomain": "Optics"}
{"id": "s2", "question": "How do vaccines train the immune system?", "domain": "Biology", "subdomain": "Immunology"}
{"id": "s3", "question": "What causes ocean tides?", "domain": "Physics", "subdomain": "Mechanics"}
{"id": "s4", "question": "Why do leaves change colour in autumn?", "domain": "Biology"}
{"id": "s5", "question": "What might a city look like in the year 2100?"}
)";

using MetadataTest = ClusterTest;

TEST_F(MetadataTest, RunBreaksCellsDownAndReportRebuildsTheSameSummary) {
  const std::string questions = Path("sci.jsonl");
  std::ofstream(questions) << kQuestions;
  const std::string config =
      WriteSweepYaml(Path("sweep.yaml"), "metadata", 7, {"sim:steady", "sim:collapse"}, {"0.7", "1.0"}, questions,
                     "  max_iterations: 8\n"
                     "noveltybench:\n"
                     "  prompts: " NOVELTYGRID_SHARED_DATA
                     "/noveltybench/curated.jsonl\n"
                     "  k: 3\n"
                     "  temperatures: [1.0]\n");
  std::string output;
  ASSERT_EQ(Run({"run", config, "--out", Path("a"), "--quiet"}, &output), 0) << output;
  ASSERT_EQ(Run({"run", config, "--out", Path("b"), "--quiet"}, &output), 0) << output;
  ExpectSameResults(Path("a"), Path("b"));

  const Json summary = SummaryOf(Path("a"));
  int aidan_cells = 0;
  for (const auto& [model, temps] : summary.at("aidanbench").items()) {
    for (const auto& [temp, cell] : temps.items()) {
      SCOPED_TRACE(absl::StrCat("aidanbench ", model, " T=", temp));
      ++aidan_cells;
      const Json& by_domain = cell.at("by_domain");
      ASSERT_THAT(Keys(by_domain), ElementsAre("(none)", "Biology", "Physics"));
      ExpectGroupsAddUp(cell, by_domain, {"valid_answers", "stored_answers", "questions", "errors"},
                        {"novelty_sum", "coherence_sum"});
      EXPECT_FALSE(by_domain.at("(none)").contains("by_subdomain"));
      EXPECT_THAT(Keys(by_domain.at("Biology").at("by_subdomain")), ElementsAre("(none)", "Immunology"));
      EXPECT_THAT(Keys(by_domain.at("Physics").at("by_subdomain")), ElementsAre("Mechanics", "Optics"));
      for (const char* name : {"Biology", "Physics"}) {
        ExpectGroupsAddUp(by_domain.at(name), by_domain.at(name).at("by_subdomain"),
                          {"valid_answers", "stored_answers", "questions"});
      }
    }
  }
  EXPECT_EQ(aidan_cells, 4);

  std::set<std::string> categories;  // the curated file's
  {
    std::ifstream in(NOVELTYGRID_SHARED_DATA "/noveltybench/curated.jsonl");
    for (std::string line; std::getline(in, line);) {
      if (!line.empty()) categories.insert(Json::parse(line).at("category").get<std::string>());
    }
  }
  ASSERT_EQ(categories.size(), 6u);
  for (const auto& [model, temps] : summary.at("noveltybench").items()) {
    for (const auto& [temp, cell] : temps.items()) {
      SCOPED_TRACE(absl::StrCat("noveltybench ", model, " T=", temp));
      const Json& by_category = cell.at("by_category");
      EXPECT_THAT(Keys(by_category), ElementsAreArray(categories));
      ExpectGroupsAddUp(cell, by_category, {"prompts"});
      double utility = 0;
      for (const auto& [name, group] : by_category.items()) {
        utility += group.at("prompts").get<int>() * group.at("mean_utility").get<double>();
      }
      EXPECT_NEAR(utility / cell.at("prompts").get<int>(), cell.at("mean_utility").get<double>(), 1e-9);
    }
  }

  const std::string answers = Slurp(Path("a/answers.jsonl"));
  EXPECT_THAT(
      answers,
      HasSubstr(R"("question_id":"s1","question":"Why is the sky blue?","domain":"Physics","subdomain":"Optics",)"));
  EXPECT_THAT(answers, HasSubstr(R"("question":"What might a city look like in the year 2100?","answer_num":1,)"));
  EXPECT_THAT(Slurp(Path("a/samples.jsonl")), HasSubstr(R"("category":"Creativity")"));
  const std::string report = Slurp(Path("a/report.html"));
  EXPECT_THAT(report, HasSubstr("data-chart=\"aidanbench-by-domain\""));
  EXPECT_THAT(report, HasSubstr("data-chart=\"noveltybench-by-category\""));

  // `report` rebuilds summary.json and leaderboard.txt from the rows files: the same bytes.
  const std::string summary_text = Slurp(Path("a/summary.json"));
  const std::string leaderboard = Slurp(Path("a/leaderboard.txt"));
  EXPECT_THAT(leaderboard, HasSubstr("by domain (domain / subdomain):"));
  EXPECT_THAT(leaderboard, HasSubstr("by category (mode standard, every dataset):"));
  std::filesystem::remove(Path("a/leaderboard.txt"));
  ASSERT_EQ(Run({"report", Path("a")}, &output), 0) << output;
  EXPECT_EQ(Slurp(Path("a/summary.json")), summary_text);
  EXPECT_EQ(Slurp(Path("a/leaderboard.txt")), leaderboard);
}

}  // namespace
}  // namespace noveltygrid::testing
