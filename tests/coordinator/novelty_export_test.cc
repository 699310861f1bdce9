// `noveltygrid export --format noveltybench` end to end: the five published reference runs and a
// sweep-like results folder exported to the reference's evaluation folders, imported again and
// compared; and the folder names an export chooses.
#include "coordinator/benchmarks/noveltybench/novelty_export.h"

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "cli/commands.h"
#include "common/json_util.h"
#include "coordinator/benchmarks/noveltybench/novelty_reducer.h"
#include "coordinator/benchmarks/noveltybench/noveltybench.h"
#include "coordinator/report/results_writer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/coordinator/novelty_test_units.h"
#include "tests/coordinator/noveltybench_test_runs.h"
#include "tests/coordinator/results_folder_util.h"

namespace noveltygrid::cli::testing_runs {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::UnorderedElementsAreArray;
using testing_units::Keys;
using testing_units::SummaryOf;

Captured Export(const std::string& dir, const std::filesystem::path& out, const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args = {dir, "--format", "noveltybench", "--out", out.string()};
  args.insert(args.end(), extra.begin(), extra.end());
  return CaptureCommand(RunExportCommand, args);
}

Captured Import(const std::filesystem::path& scores, const std::filesystem::path& out,
                const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args = {"noveltybench", scores.string(), "--out", out.string()};
  args.insert(args.end(), extra.begin(), extra.end());
  return CaptureCommand(RunImportCommand, args);
}

// The "wrote PATH" lines of an export, as paths relative to `out`.
std::vector<std::string> Written(const Captured& result, const std::filesystem::path& out) {
  std::vector<std::string> files;
  for (absl::string_view line : absl::StrSplit(result.out, '\n', absl::SkipEmpty())) {
    EXPECT_TRUE(absl::ConsumePrefix(&line, "wrote ")) << line;
    files.push_back(std::filesystem::path(std::string(line)).lexically_relative(out).string());
  }
  return files;
}

TEST(NoveltyExportTest, TheReferenceRunsRoundTrip) {
  TempDir tmp;
  // All five runs in one results folder, one model each.
  std::string all;
  for (const ReferenceRun& run : kReferenceRuns) absl::StrAppend(&all, *ReadFile(run.ScoresPath()));
  const auto first = tmp.path() / "first";
  ASSERT_EQ(Import(tmp.Write("all.jsonl", all), first).code, 0);

  const auto out = tmp.path() / "export";
  const Captured result = Export(first.string(), out);
  ASSERT_EQ(result.code, 0) << result.err;
  EXPECT_THAT(result.err, HasSubstr("noveltygrid export: note: the reference layout holds no unit ids"));
  EXPECT_THAT(result.err, Not(HasSubstr("patience")));  // 0.8, recorded and import's default
  std::vector<std::string> expected_files;
  for (const ReferenceRun& run : kReferenceRuns) {
    expected_files.push_back(std::string(run.model) + "/scores.jsonl");
    expected_files.push_back(std::string(run.model) + "/summary.json");
  }
  EXPECT_THAT(Written(result, out), UnorderedElementsAreArray(expected_files));

  const Json first_section = SummaryOf(first)["noveltybench"];
  for (const ReferenceRun& run : kReferenceRuns) {
    SCOPED_TRACE(run.model);
    const auto folder = out / run.model;  // "meta-llama/Llama-3.1-8B-Instruct" nests, as the reference's
    // The published rows, field for field and in their order, but "distinct": classes, not classes - 1.
    const std::vector<Json> source = ReadJsonLines(run.ScoresPath());
    const std::vector<Json> rows = ReadJsonLines((folder / kReferenceScoresFileName).string());
    ASSERT_EQ(rows.size(), source.size());
    for (size_t i = 0; i < rows.size(); ++i) {
      EXPECT_EQ(Keys(rows[i]), Keys(source[i]));
      for (const char* key :
           {"id", "prompt", "model", "generations", "partition", "generation_scores", "partition_scores"}) {
        EXPECT_EQ(rows[i][key], source[i][key]) << key << " of " << source[i]["id"];
      }
      EXPECT_NEAR(rows[i]["utility"].get<double>(), source[i]["utility"].get<double>(), 1e-12);
      EXPECT_EQ(rows[i]["distinct"].get<int>(), source[i]["distinct"].get<int>() + 1);
    }
    // The published summary.
    absl::StatusOr<Json> published = ReadJsonFile(run.SummaryPath());
    absl::StatusOr<Json> summary = ReadJsonFile((folder / kSummaryFileName).string());
    ASSERT_TRUE(published.ok() && summary.ok());
    EXPECT_EQ(Keys(*summary), (std::vector<std::string>{"mean_distinct", "mean_utility"}));
    EXPECT_DOUBLE_EQ((*summary)["mean_distinct"].get<double>(), (*published)["mean_distinct"].get<double>());
    EXPECT_NEAR((*summary)["mean_utility"].get<double>(), (*published)["mean_utility"].get<double>(), 1e-9);

    // Imported again: the model's summary section as the first import wrote it.
    const auto second = tmp.path() / ("second-" + std::string(run.folder));
    ASSERT_EQ(Import(folder / kReferenceScoresFileName, second).code, 0);
    EXPECT_EQ(DumpJson(SummaryOf(second)["noveltybench"][run.model]), DumpJson(first_section[run.model]));
  }
}

// HandNoveltyUnits() as repeat `repeat`.
std::vector<UnitResult> RepeatUnits(int repeat) {
  std::vector<UnitResult> units = testing_units::HandNoveltyUnits();
  for (UnitResult& u : units) {
    u.unit.repeat = repeat;
    if (repeat > 0) absl::StrAppend(&u.unit.id, "/r", repeat);
  }
  return units;
}

TEST(NoveltyExportTest, ASweepRoundTripsPerDatasetModeAndTemperature) {
  using testing_units::HandDatasets;
  using testing_units::HandModels;
  using testing_units::HandModes;
  using testing_units::HandTemperatures;
  NoveltyReducer reducer(testing_units::HandSettings(), HandModels(), HandTemperatures(), HandModes(), HandDatasets());
  for (int repeat : {0, 1}) {
    for (UnitResult& u : RepeatUnits(repeat)) reducer.Add(std::move(u));
  }
  std::vector<std::unique_ptr<BenchmarkResults>> parts;
  parts.push_back(std::make_unique<NoveltyBenchResults>(reducer.Snapshot()));
  TempDir tmp;
  const std::string dir = (tmp.path() / "sweep").string();
  ASSERT_TRUE(WriteSweepResults(dir, PartsOf(parts), ResultsOptions{}).ok());

  const auto out = tmp.path() / "export";
  std::filesystem::create_directories(out);  // an empty folder may be written into
  const Captured result = Export(dir, out);
  ASSERT_EQ(result.code, 0) << result.err;
  EXPECT_THAT(result.err, HasSubstr("wrote repeat 0 and left out 6 prompts of the other repeats (0..1"));
  EXPECT_THAT(result.err, HasSubstr("left out 2 failed units"));
  EXPECT_THAT(result.err, HasSubstr("import with --patience 0.5"));

  // Every level varies here. Means by hand (novelty_test_units.h): {utility, distinct}.
  const std::map<std::string, std::pair<double, double>> expected = {
      {"curated/standard/T1.0/m", {3.5, 1.5}},  // A and B
      {"wildchat/standard/T1.0/m", {7, 2}},     // C
      {"curated/paraphrase/T1.0/m", {1, 2}},    // D (its wildchat prompt failed)
      {"curated/standard/T0.7/m", {2, 1}},      // B'
      {"curated/standard/T1.0/n", {5, 2}},      // A'
  };
  std::vector<std::string> expected_files;
  for (const auto& [folder, means] : expected) {
    expected_files.push_back(folder + "/scores.jsonl");
    expected_files.push_back(folder + "/summary.json");
  }
  EXPECT_THAT(Written(result, out), UnorderedElementsAreArray(expected_files));

  int imports = 0;
  for (const auto& [folder, means] : expected) {
    SCOPED_TRACE(folder);
    const Json summary = SummaryOf(out / folder);
    EXPECT_DOUBLE_EQ(summary["mean_utility"].get<double>(), means.first);
    EXPECT_DOUBLE_EQ(summary["mean_distinct"].get<double>(), means.second);
    const bool at_07 = absl::StrContains(folder, "T0.7");
    for (const Json& row : ReadJsonLines((out / folder / kReferenceScoresFileName).string())) {
      EXPECT_EQ(row.contains("temperature"), at_07);  // 1.0, the reference's, goes without saying
    }

    const auto imported = tmp.path() / absl::StrCat("imported-", imports++);
    ASSERT_EQ(Import(out / folder / kReferenceScoresFileName, imported, {"--patience", "0.5"}).code, 0);
    const Json section = SummaryOf(imported)["noveltybench"];
    const std::string model = folder.substr(folder.rfind('/') + 1);
    ASSERT_EQ(Keys(section), std::vector<std::string>{model});
    const Json& cell = section[model][at_07 ? "0.7" : "1.0"];
    EXPECT_DOUBLE_EQ(cell["mean_utility"].get<double>(), means.first);
    EXPECT_DOUBLE_EQ(cell["mean_distinct"].get<double>(), means.second);
    EXPECT_EQ(cell["temperature_assumed"], !at_07);
  }

  // Exporting again into the written folder takes --force.
  Captured again = Export(dir, out);
  EXPECT_EQ(again.code, 1);
  EXPECT_THAT(again.err, HasSubstr("exists; choose another --out, or pass --force"));
  again = Export(dir, out, {"--force", "--repeat", "1"});
  EXPECT_EQ(again.code, 0) << again.err;
  EXPECT_THAT(Written(again, out), UnorderedElementsAreArray(expected_files));
}

noveltybench::NoveltyRow Row(const std::string& model, const std::string& prompt_id) {
  noveltybench::NoveltyRow row;
  row.prompt_id = prompt_id;
  row.prompt = "Name a colour.";
  row.model = model;
  row.generations = {"red", "blue"};
  row.partition = {0, 1};
  row.quality = {4, 6};
  return row;
}

TEST(NoveltyExportTest, FolderNamesStayInsideTheExportAndNeverMerge) {
  absl::StatusOr<NoveltyResults> results =
      ScoreRecordedRows({Row("../up", "p"), Row("org/.", "p"), Row("tab\there", "p")}, NoveltySourceOptions{});
  ASSERT_TRUE(results.ok()) << results.status();
  absl::StatusOr<std::vector<NoveltyEvalFolder>> folders = NoveltyEvalFolders(*results);
  ASSERT_TRUE(folders.ok()) << folders.status();
  std::vector<std::string> paths;
  for (const NoveltyEvalFolder& f : *folders) paths.push_back(f.path);
  EXPECT_EQ(paths, (std::vector<std::string>{"_../up", "org/_.", "tab_here"}));

  results = ScoreRecordedRows({Row("a\\b", "p"), Row("a_b", "p")}, NoveltySourceOptions{});
  ASSERT_TRUE(results.ok()) << results.status();
  folders = NoveltyEvalFolders(*results);
  EXPECT_EQ(folders.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(folders.status().message(), HasSubstr("would share the export folder a_b"));

  // Dataset and mode names are one level each: a '/' in them cannot climb out of OUT or replace it.
  std::vector<noveltybench::NoveltyRow> rows = {Row("m", "p"), Row("m", "p"), Row("m", "p")};
  rows[0].dataset = "../../up";
  rows[1].dataset = "/abs";
  rows[2].dataset = "plain";
  for (auto& r : rows) r.mode = "standard";
  rows[1].prompt_id = "q";
  rows[2].prompt_id = "r";
  results = ScoreRecordedRows(rows, NoveltySourceOptions{});
  ASSERT_TRUE(results.ok()) << results.status();
  folders = NoveltyEvalFolders(*results);
  ASSERT_TRUE(folders.ok()) << folders.status();
  paths.clear();
  for (const NoveltyEvalFolder& f : *folders) paths.push_back(f.path);
  EXPECT_EQ(paths, (std::vector<std::string>{".._.._up/m", "_abs/m", "plain/m"}));
}

}  // namespace
}  // namespace noveltygrid::cli::testing_runs
