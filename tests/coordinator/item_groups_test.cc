// Breakdowns by question and prompt metadata (coordinator/benchmarks/item_groups.h): AidanBench's
// `by_domain` and NoveltyBench's `by_category` in summary.json, the keys on the rows files' lines, the
// report's tables and charts, and `noveltygrid report`'s rebuild giving the same files back.
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/json_util.h"
#include "coordinator/benchmarks/aidanbench/aidan_results.h"
#include "coordinator/benchmarks/noveltybench/noveltybench.h"
#include "coordinator/report/results_files.h"
#include "coordinator/report/results_reader.h"
#include "coordinator/report/results_writer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/common/test_files.h"
#include "tests/coordinator/aidan_test_units.h"
#include "tests/coordinator/novelty_test_units.h"
#include "tests/coordinator/results_folder_util.h"

namespace noveltygrid::testing_units {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using testing_files::TempDir;

// SweepUnits with question q0 in Biology/Genetics, q1 in Biology without a subdomain and q2 without a
// domain; one loop of q0 failed before any answer (it is in summary.json's table only).
std::vector<UnitResult> AidanUnitsWithDomains() {
  std::vector<UnitResult> units = SweepUnits();
  for (UnitResult& u : units) {
    if (u.unit.item_id != "q2") u.unit.domain = "Biology";
    if (u.unit.item_id == "q0") u.unit.subdomain = "Genetics";
  }
  units[3].answers.clear();
  units[3].stop_reason = kStopError;
  units[3].error = "generation failed: HTTP 503";
  return units;
}

std::unique_ptr<BenchmarkResults> AidanRun(std::vector<UnitResult> units) {
  AidanReducer reducer(Preset("reference-2025"), {"sim:explorer", "sim:collapse"}, {0.0, 0.7, 1.0});
  for (UnitResult& u : units) reducer.Add(std::move(u));
  return reducer.Results();
}

// HandNoveltyUnits with categories on all but the units of prompt index 1 ("curated-1").
std::vector<UnitResult> NoveltyUnitsWithCategories() {
  std::vector<UnitResult> units = HandNoveltyUnits();
  for (UnitResult& u : units) {
    if (u.unit.item_id != "curated-1") u.unit.category = u.unit.dataset == "curated" ? "Creativity" : "Facts";
  }
  return units;
}

std::unique_ptr<BenchmarkResults> NoveltyRun(std::vector<UnitResult> units) {
  NoveltyReducer reducer(HandSettings(), HandModels(), HandTemperatures(), HandModes(), HandDatasets());
  for (UnitResult& u : units) reducer.Add(std::move(u));
  return reducer.Results();
}

absl::Status Write(const std::string& dir, std::unique_ptr<BenchmarkResults> part) {
  std::vector<std::unique_ptr<BenchmarkResults>> parts;
  parts.push_back(std::move(part));
  return WriteSweepResults(dir, PartsOf(parts), ResultsOptions{});
}

std::vector<Json> Lines(const std::string& text) {
  std::vector<Json> lines;
  for (size_t start = 0, end; (end = text.find('\n', start)) != std::string::npos; start = end + 1) {
    lines.push_back(Json::parse(text.substr(start, end - start)));
  }
  return lines;
}

// Every AidanBench count of `whole` equals the sum of its `groups`' and every sum is theirs to rounding.
void ExpectAidanGroupsSumTo(const Json& whole, const Json& groups) {
  ExpectGroupsAddUp(whole, groups, {"valid_answers", "stored_answers", "questions", "errors"},
                    {"novelty_sum", "coherence_sum", "mmr_sum"});
}

TEST(ItemGroupsTest, AidanBenchCellsBreakDownByDomainAndSubdomain) {
  TempDir dir;
  ASSERT_TRUE(Write(dir.path().string(), AidanRun(AidanUnitsWithDomains())).ok());
  const Json summary = SummaryOf(dir.path());
  int cells = 0;
  for (const auto& [model, temps] : summary.at(kAidanBench).items()) {
    for (const auto& [temp, cell] : temps.items()) {
      SCOPED_TRACE(model + " T=" + temp);
      ++cells;
      ASSERT_TRUE(cell.contains("by_domain"));
      const Json& by_domain = cell.at("by_domain");
      EXPECT_THAT(Keys(by_domain), ElementsAre(kNoGroup, "Biology"));
      EXPECT_EQ(by_domain.at(kNoGroup).at("questions"), 1);
      EXPECT_FALSE(by_domain.at(kNoGroup).contains("by_subdomain"));
      EXPECT_EQ(by_domain.at("Biology").at("questions"), 2);
      ExpectAidanGroupsSumTo(cell, by_domain);
      const Json& biology = by_domain.at("Biology");
      ASSERT_TRUE(biology.contains("by_subdomain"));
      EXPECT_THAT(Keys(biology.at("by_subdomain")), ElementsAre(kNoGroup, "Genetics"));
      ExpectAidanGroupsSumTo(biology, biology.at("by_subdomain"));
    }
  }
  EXPECT_EQ(cells, 6);
  // The failed loop counts under its domain.
  EXPECT_EQ(summary["aidanbench"]["sim:explorer"]["0.7"]["by_domain"]["Biology"]["errors"], 1);

  // The lines and the question table carry the metadata where the question has it, and only there.
  for (const Json& line : Lines(Slurp(dir.path() / kAnswersFileName))) {
    const std::string q = line.at("question_id");
    EXPECT_EQ(line.contains("domain"), q != "q2") << line;
    EXPECT_EQ(line.contains("subdomain"), q == "q0") << line;
    if (q == "q0") {
      EXPECT_EQ(line.at("subdomain"), "Genetics");
    }
  }
  for (const Json& row : summary.at("questions").at(kAidanBench)) {
    EXPECT_EQ(row.contains("domain"), row.at("question_id") != "q2") << row;
  }
  const std::string report = Slurp(dir.path() / kReportFileName);
  EXPECT_THAT(report, HasSubstr("aidanbench-by-domain"));
  EXPECT_THAT(report, HasSubstr("aidanbench-domains-table"));
  EXPECT_THAT(Slurp(dir.path() / kLeaderboardFileName), HasSubstr("by domain (domain / subdomain):"));
}

TEST(ItemGroupsTest, NoveltyBenchCellsBreakDownByCategory) {
  TempDir dir;
  ASSERT_TRUE(Write(dir.path().string(), NoveltyRun(NoveltyUnitsWithCategories())).ok());
  const Json summary = SummaryOf(dir.path());
  const Json& cell = summary.at(kNoveltyBench).at("m").at("1.0");
  // Mode standard, every dataset: A and C have categories, B has none.
  const Json& by_category = cell.at("by_category");
  EXPECT_THAT(Keys(by_category), ElementsAre(kNoGroup, "Creativity", "Facts"));
  EXPECT_EQ(by_category.at("Creativity").at("mean_utility"), 5.0);
  EXPECT_EQ(by_category.at("Facts").at("mean_utility"), 7.0);
  EXPECT_EQ(by_category.at(kNoGroup).at("mean_utility"), 2.0);
  for (const auto& [model, temps] : summary.at(kNoveltyBench).items()) {
    for (const auto& [temp, c] : temps.items()) {
      SCOPED_TRACE(model + " T=" + temp);
      ASSERT_TRUE(c.contains("by_category"));
      int prompts = 0;
      double utility = 0, distinct = 0;
      for (const auto& [name, group] : c.at("by_category").items()) {
        const int n = group.at("prompts");
        prompts += n;
        utility += n * group.at("mean_utility").get<double>();
        distinct += n * group.at("mean_distinct").get<double>();
      }
      ASSERT_EQ(prompts, c.at("prompts").get<int>());
      EXPECT_NEAR(utility / prompts, c.at("mean_utility").get<double>(), 1e-12);
      EXPECT_NEAR(distinct / prompts, c.at("mean_distinct").get<double>(), 1e-12);
    }
  }
  for (const Json& line : Lines(Slurp(dir.path() / kSamplesFileName))) {
    EXPECT_EQ(line.contains("category"), line.at("prompt_id") != "curated-1") << line;
  }
  const std::string report = Slurp(dir.path() / kReportFileName);
  EXPECT_THAT(report, HasSubstr("noveltybench-by-category"));
  EXPECT_THAT(report, HasSubstr("noveltybench-categories-table"));
  EXPECT_THAT(Slurp(dir.path() / kLeaderboardFileName), HasSubstr("by category (mode standard, every dataset):"));
}

// `noveltygrid report DIR` reads the metadata back from the lines (and, for loops without answers, from
// the question table): every file it rebuilds is the run's, byte for byte.
TEST(ItemGroupsTest, RebuildGivesTheSameFiles) {
  TempDir dir;
  std::vector<std::unique_ptr<BenchmarkResults>> parts;
  parts.push_back(AidanRun(AidanUnitsWithDomains()));
  parts.push_back(NoveltyRun(NoveltyUnitsWithCategories()));
  ResultsOptions options;  // what the rebuild would find: NoveltyBench's helpers are simulated
  options.simulated_models = {"sim:explorer", "sim:collapse", "m", "n"};
  ASSERT_TRUE(WriteSweepResults(dir.path().string(), PartsOf(parts), options).ok());
  std::map<std::string, std::string> before;
  for (const char* file :
       {kAnswersFileName, kSamplesFileName, kSummaryFileName, kLeaderboardFileName, kReportFileName}) {
    before[file] = Slurp(dir.path() / file);
  }
  std::filesystem::remove(dir.path() / kLeaderboardFileName);
  std::filesystem::remove(dir.path() / kReportFileName);
  absl::StatusOr<RebuildOutcome> rebuilt = RebuildResultsFolder(dir.path().string(), std::nullopt);
  ASSERT_TRUE(rebuilt.ok()) << rebuilt.status();
  for (const auto& [file, text] : before) EXPECT_EQ(Slurp(dir.path() / file), text) << file;
}

TEST(ItemGroupsTest, SweepsWithoutMetadataHaveNoBreakdown) {
  TempDir dir;
  std::vector<std::unique_ptr<BenchmarkResults>> parts;
  parts.push_back(AidanRun(SweepUnits()));
  parts.push_back(NoveltyRun(HandNoveltyUnits()));
  ASSERT_TRUE(WriteSweepResults(dir.path().string(), PartsOf(parts), ResultsOptions{}).ok());
  const std::string summary = Slurp(dir.path() / kSummaryFileName);
  for (const char* key : {"by_domain", "by_subdomain", "by_category", "\"domain\"", "\"category\""}) {
    EXPECT_THAT(summary, Not(HasSubstr(key)));
  }
  EXPECT_THAT(Slurp(dir.path() / kAnswersFileName), Not(HasSubstr("domain")));
  EXPECT_THAT(Slurp(dir.path() / kSamplesFileName), Not(HasSubstr("category")));
  EXPECT_THAT(Slurp(dir.path() / kReportFileName), Not(HasSubstr("-by-domain")));
  EXPECT_THAT(Slurp(dir.path() / kLeaderboardFileName), Not(HasSubstr("by domain")));
}

}  // namespace
}  // namespace noveltygrid::testing_units
