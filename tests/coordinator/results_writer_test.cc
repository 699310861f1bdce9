#include "coordinator/report/results_writer.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "common/json_util.h"
#include "coordinator/benchmarks/aidanbench/aidan_rebuild.h"
#include "coordinator/benchmarks/aidanbench/aidan_results.h"
#include "coordinator/benchmarks/unit_source.h"
#include "coordinator/report/results_reader.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/common/test_files.h"
#include "tests/coordinator/aidan_test_units.h"
#include "tests/coordinator/results_folder_util.h"

namespace noveltygrid::testing_units {
namespace {

using ::testing::HasSubstr;
using testing_files::TempDir;

// The commit logs' twin: a UnitSource over results kept in a map, counting what it is asked for.
class MapSource : public UnitSource {
 public:
  void Put(const UnitResult& result) { units_[result.unit.id] = result; }
  absl::Status ForEachUnit(const std::vector<std::string>& ids,
                           const std::function<absl::Status(UnitResult)>& fn) const override {
    ++calls_;
    for (const std::string& id : ids) {
      auto it = units_.find(id);
      if (it == units_.end()) return absl::NotFoundError(id);
      if (absl::Status s = fn(it->second); !s.ok()) return s;
    }
    return absl::OkStatus();
  }
  int calls() const { return calls_; }

 private:
  std::map<std::string, UnitResult> units_;
  mutable int calls_ = 0;
};

TEST(ResultsWriterTest, AReducerGivenASourceKeepsNoAnswersAndWritesTheSameFiles) {
  MapSource source;
  AidanReducer whole(Preset("reference-2025"), {"m"}, {0.7});
  AidanReducer lean(Preset("reference-2025"), {"m"}, {0.7}, &source);
  for (int i = 0; i < 600; ++i) {  // more than two fetch batches
    UnitResult unit = MakeUnit("m", 0.7, i, {{80, 1.0}, {70, 0.5 + i % 7 / 20.0}, {10, 0.1}}, kStopIncoherent);
    if (i % 97 == 5) {  // failed units are not committed: the reducer keeps them whole
      unit.stop_reason = kStopError;
      unit.error = "judge unreachable";
    } else {
      source.Put(unit);
    }
    whole.Add(unit);
    lean.Add(unit);
  }
  for (const UnitResult& unit : lean.Snapshot().units) {
    EXPECT_EQ(unit.answers.empty(), unit.stop_reason != kStopError) << unit.unit.id;
  }
  TempDir a, b;
  ASSERT_TRUE(WriteSweepResults(a.path().string(), {whole.Results().get()}, ResultsOptions{}).ok());
  ASSERT_TRUE(WriteSweepResults(b.path().string(), {lean.Results().get()}, ResultsOptions{}).ok());
  for (const char* file : {kAnswersFileName, kSummaryFileName, kLeaderboardFileName}) {
    EXPECT_EQ(Slurp(a.path() / file), Slurp(b.path() / file)) << file;
  }
  EXPECT_GE(source.calls(), 3) << "answers fetched in batches";
}

TEST(ResultsWriterTest, AUnitTheSourceCannotReturnFailsTheRowsFile) {
  MapSource empty;
  AidanReducer lean(Preset("reference-2025"), {"m"}, {0.7}, &empty);
  lean.Add(MakeUnit("m", 0.7, 0, {{80, 1.0}}, kStopIncoherent));
  TempDir dir;
  const absl::Status status = WriteSweepResults(dir.path().string(), {lean.Results().get()}, ResultsOptions{});
  EXPECT_TRUE(absl::IsNotFound(status)) << status;
  EXPECT_FALSE(std::filesystem::exists(dir.path() / kAnswersFileName));
  EXPECT_FALSE(std::filesystem::exists(dir.path() / (std::string(kAnswersFileName) + ".tmp")));
}

TEST(ResultsWriterTest, RowsWrittenUnderTheSameKeyAndUntouchedAreNotReadAgain) {
  MapSource source;
  AidanReducer lean(Preset("reference-2025"), {"m"}, {0.7}, &source);
  for (int i = 0; i < 10; ++i) {
    const UnitResult unit = MakeUnit("m", 0.7, i, {{80, 1.0}, {70, 0.6}, {10, 0.1}}, kStopIncoherent);
    source.Put(unit);
    lean.Add(unit);
  }
  TempDir dir;
  const std::filesystem::path answers = dir.path() / kAnswersFileName;
  const std::filesystem::path stamp = dir.path() / ".noveltygrid" / "rows.stamp";
  const auto write = [&](const std::string& key) {
    ResultsOptions options;
    options.rows_key = key;
    const int before = source.calls();
    EXPECT_TRUE(WriteSweepResults(dir.path().string(), {lean.Results().get()}, options).ok());
    return source.calls() > before;  // the rows were read back from the source: written
  };
  EXPECT_TRUE(write("k1"));
  const std::string written = Slurp(answers);
  EXPECT_TRUE(std::filesystem::exists(stamp));
  EXPECT_FALSE(write("k1")) << "same key, file untouched: not written again";
  EXPECT_EQ(Slurp(answers), written);
  EXPECT_TRUE(std::filesystem::exists(dir.path() / kSummaryFileName));
  {
    std::ofstream out(answers, std::ios::app);
    out << "edited\n";
  }
  EXPECT_TRUE(write("k1")) << "the file changed since: written again";
  EXPECT_EQ(Slurp(answers), written);
  EXPECT_TRUE(write("k2")) << "another key";
  EXPECT_TRUE(write("")) << "no key: always written";
  EXPECT_FALSE(std::filesystem::exists(stamp)) << "no key: no stamp";
  EXPECT_TRUE(write("k2")) << "the stamp went with the keyless write";
  std::filesystem::remove(answers);
  EXPECT_TRUE(write("k2")) << "a missing file is written";
  EXPECT_EQ(Slurp(answers), written);
}

AidanSnapshot SweepSnapshot(std::vector<UnitResult> units) {
  AidanReducer reducer(Preset("reference-2025"), {"sim:explorer", "sim:collapse"}, {0.0, 0.7, 1.0});
  for (UnitResult& u : units) reducer.Add(std::move(u), {{"generate:sim:explorer", {.requests = 1}}});
  reducer.SetRunInfo(Json{{"seconds", 1.5}});
  return reducer.Snapshot();
}

ResultsOptions Simulated() {
  ResultsOptions options;
  options.simulated_models = SimulatedModelIds({"sim:explorer", "sim:collapse"}, {"sim:judge", "lexical"});
  return options;
}

TEST(ResultsWriterTest, FilesAreByteIdenticalWhateverTheArrivalOrder) {
  std::vector<UnitResult> units = SweepUnits();
  TempDir first, second;
  ASSERT_TRUE(WriteResultsFolder(first.path().string(), SweepSnapshot(units), Simulated()).ok());
  std::reverse(units.begin(), units.end());
  std::rotate(units.begin(), units.begin() + 7, units.end());
  ASSERT_TRUE(WriteResultsFolder(second.path().string(), SweepSnapshot(units), Simulated()).ok());
  for (const char* file : {kAnswersFileName, kSummaryFileName, kLeaderboardFileName}) {
    EXPECT_FALSE(Slurp(first.path() / file).empty()) << file;
    EXPECT_EQ(Slurp(first.path() / file), Slurp(second.path() / file)) << file;
  }
}

TEST(ResultsWriterTest, AnswerLinesFollowTheContract) {
  UnitResult unit = MakeUnit("m", 0.7, 0, {{80, 1.0}, {15, 0.4}}, kStopError);
  unit.answers[1].llm_novelty = 0.3;
  unit.answers[1].error = "judge reply unparseable";
  AidanReducer reducer(Preset("reference-2025"), {"m"}, {0.7});
  reducer.Add(std::move(unit));
  const std::string text = *reducer.Results()->RowsText();
  std::vector<Json> lines;
  for (size_t start = 0, end; (end = text.find('\n', start)) != std::string::npos; start = end + 1) {
    lines.push_back(Json::parse(text.substr(start, end - start)));
  }
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(Keys(lines[0]),
            (std::vector<std::string>{"benchmark", "model", "temperature", "question_id", "question", "answer_num",
                                      "answer", "coherence", "novelty", "valid", "mmr", "unit_id"}));
  EXPECT_EQ(Keys(lines[1]), (std::vector<std::string>{"benchmark", "model", "temperature", "question_id", "question",
                                                      "answer_num", "answer", "coherence", "novelty", "valid",
                                                      "llm_novelty", "mmr", "unit_id", "error"}));
  EXPECT_EQ(lines[0]["benchmark"], "aidanbench");
  EXPECT_TRUE(lines[0]["temperature"].is_number());
  EXPECT_THAT(text, HasSubstr("\"temperature\":0.7,"));
  EXPECT_EQ(lines[0]["mmr"], 0.4);
  EXPECT_EQ(lines[1]["valid"], false);  // an answer with an error is never counted
  EXPECT_EQ(lines[1]["error"], "judge reply unparseable");
}

TEST(ResultsWriterTest, SummaryLayout) {
  TempDir dir;
  ASSERT_TRUE(WriteResultsFolder(dir.path().string(), SweepSnapshot(SweepUnits()), Simulated()).ok());
  const Json summary = SummaryOf(dir.path());
  EXPECT_EQ(Keys(summary), (std::vector<std::string>{"simulated", "notice", "simulated_models", "aidanbench",
                                                     "leaderboard", "questions", "calls", "run"}));
  EXPECT_EQ(summary["notice"], kSimulatedNotice);
  EXPECT_EQ(Keys(summary["aidanbench"]), (std::vector<std::string>{"sim:explorer", "sim:collapse"}));
  EXPECT_EQ(Keys(summary["aidanbench"]["sim:explorer"]), (std::vector<std::string>{"0.0", "0.7", "1.0"}));
  const Json& cell = summary["aidanbench"]["sim:explorer"]["0.7"];
  EXPECT_EQ(Keys(cell), (std::vector<std::string>{"valid_answers", "novelty_sum", "coherence_sum", "stored_answers",
                                                  "questions", "mmr_sum", "errors", "max_iterations", "preset"}));
  EXPECT_EQ(cell["questions"], 3);
  EXPECT_EQ(cell["preset"], "reference-2025");
  EXPECT_EQ(summary["leaderboard"]["aidanbench"].size(), 2u);
  EXPECT_EQ(Keys(summary["leaderboard"]["aidanbench"][0]),
            (std::vector<std::string>{"model", "best_temperature", "valid_answers", "novelty_sum"}));
  EXPECT_EQ(summary["questions"]["aidanbench"].size(), 18u);
  EXPECT_EQ(summary["calls"]["generate:sim:explorer"]["requests"], 18);
  EXPECT_EQ(summary["run"]["seconds"], 1.5);
  EXPECT_THAT(Slurp(dir.path() / kLeaderboardFileName), HasSubstr("SIMULATED MODELS"));
}

TEST(ResultsWriterTest, RealModelsAreNotMarkedSimulated) {
  EXPECT_TRUE(SimulatedModelIds({"openai/gpt-4o"}, {"openai/o1-mini", "text-embedding-3-large"}).empty());
  EXPECT_EQ(SimulatedModelIds({"openai/gpt-4o", "sim:steady"}, {"openai/o1-mini"}),
            std::vector<std::string>{"sim:steady"});
  EXPECT_EQ(SimulatedModelIds({"openai/gpt-4o"}, {"openai/o1-mini", "lexical"}),
            std::vector<std::string>{"openai/gpt-4o"});

  AidanReducer reducer(Preset("reference-2025"), {"openai/gpt-4o"}, {0.7});
  reducer.Add(MakeUnit("openai/gpt-4o", 0.7, 0, {{80, 1.0}}));
  const Json summary = SummaryJson(reducer.Snapshot(), ResultsOptions{});
  EXPECT_FALSE(summary.contains("simulated"));
  EXPECT_FALSE(summary.contains("notice"));
  EXPECT_EQ(Keys(summary).front(), "aidanbench");
}

TEST(ResultsWriterTest, PricedModelsGetTheirCostUnderCallsAndRun) {
  AidanReducer reducer(Preset("reference-2025"), {"openai:gpt-4o"}, {0.7});
  reducer.Add(MakeUnit("openai:gpt-4o", 0.7, 0, {{80, 1.0}}),
              {{"generate:openai:gpt-4o", {.requests = 2, .prompt_tokens = 2'000'000, .completion_tokens = 500'000}},
               {"judge:openai:o3-mini", {.requests = 2, .prompt_tokens = 1'000'000, .completion_tokens = 0}},
               {"embed:lexical", {.requests = 2, .prompt_tokens = 100}}});
  ResultsOptions options;
  options.prices["openai:gpt-4o"] = {2.5, 10.0};
  options.prices["openai:o3-mini"] = {1.1, 4.4};
  const Json summary = SummaryJson(reducer.Snapshot(), options);
  EXPECT_DOUBLE_EQ(summary["calls"]["generate:openai:gpt-4o"]["cost_usd"].get<double>(), 2 * 2.5 + 0.5 * 10.0);
  EXPECT_DOUBLE_EQ(summary["calls"]["judge:openai:o3-mini"]["cost_usd"].get<double>(), 1.1);
  EXPECT_FALSE(summary["calls"]["embed:lexical"].contains("cost_usd"));  // no price, no cost
  EXPECT_DOUBLE_EQ(summary["run"]["cost_usd"]["openai:gpt-4o"].get<double>(), 10.0);
  EXPECT_DOUBLE_EQ(summary["run"]["cost_usd"]["total"].get<double>(), 11.1);
  // Without a price table nothing about cost is written.
  EXPECT_FALSE(SummaryJson(reducer.Snapshot(), ResultsOptions{})["run"].contains("cost_usd"));
}

// A folder as a run leaves it: a failed unit with no answer, a judge error, an iteration cap.
AidanSnapshot RunLikeSnapshot() {
  AidanReducer reducer(Preset("reference-2025"), {"sim:explorer", "openai/gpt-4o"}, {0.7, 1.0});
  std::vector<UnitResult> units = SweepUnits();
  for (UnitResult& u : units) {
    if (u.unit.model == "sim:collapse") u.unit.model = "openai/gpt-4o";
    if (u.unit.temperature == 0.0) continue;
    u.unit.id = u.unit.model + "/" + FormatTemperature(u.unit.temperature) + "/" + u.unit.item_id;
    u.max_iterations = 50;
    reducer.Add(std::move(u), {{"judge:sim:judge", {.requests = 2, .retries = 1}}});
  }
  UnitResult failed = MakeUnit("openai/gpt-4o", 1.0, 100, {}, kStopError);
  failed.error = "generation by openai/gpt-4o failed: 503 after 3 attempts";
  failed.max_iterations = 50;
  reducer.Add(std::move(failed));
  UnitResult capped = MakeUnit("sim:explorer", 0.7, 101, {{80, 1.0}, {81, 0.9}}, kStopIterationCap);
  capped.max_iterations = 50;
  reducer.Add(std::move(capped));
  reducer.SetRunInfo(Json{{"seconds", 12.25}, {"units", 14}});
  return reducer.Snapshot();
}

TEST(ResultsReaderTest, ReadsAnswersBackGroupedByUnit) {
  TempDir dir;
  const AidanSnapshot snap = RunLikeSnapshot();
  ASSERT_TRUE(WriteResultsFolder(dir.path().string(), snap, ResultsOptions{}).ok());
  absl::StatusOr<std::vector<UnitResult>> units = ReadAidanAnswersFile((dir.path() / kAnswersFileName).string());
  ASSERT_TRUE(units.ok()) << units.status();
  ASSERT_EQ(units->size(), snap.units.size() - 1);  // the failed unit stored no answer
  size_t i = 0;
  for (const UnitResult& written : snap.units) {
    if (written.answers.empty()) continue;
    const UnitResult& read = (*units)[i];
    EXPECT_EQ(read.unit.index, static_cast<int>(i));
    EXPECT_EQ(read.unit.id, written.unit.id);
    EXPECT_EQ(read.unit.model, written.unit.model);
    EXPECT_EQ(read.unit.temperature, written.unit.temperature);
    EXPECT_EQ(read.unit.item_id, written.unit.item_id);
    EXPECT_EQ(read.unit.item_text, written.unit.item_text);
    ASSERT_EQ(read.answers.size(), written.answers.size());
    for (size_t a = 0; a < read.answers.size(); ++a) {
      EXPECT_EQ(read.answers[a].novelty, written.answers[a].novelty);  // exact round trip
      EXPECT_EQ(read.answers[a].coherence, written.answers[a].coherence);
      EXPECT_EQ(read.answers[a].valid, written.answers[a].valid);
    }
    ++i;
  }
}

TEST(ResultsReaderTest, RebuildWithTheOldSummaryIsByteIdentical) {
  TempDir dir;
  ASSERT_TRUE(WriteResultsFolder(dir.path().string(), RunLikeSnapshot(), Simulated()).ok());
  const std::string summary = Slurp(dir.path() / kSummaryFileName);
  const std::string leaderboard = Slurp(dir.path() / kLeaderboardFileName);
  const std::string answers = Slurp(dir.path() / kAnswersFileName);
  std::filesystem::remove(dir.path() / kLeaderboardFileName);

  absl::StatusOr<RebuildOutcome> rebuilt = RebuildResultsFolder(dir.path().string(), std::nullopt);
  ASSERT_TRUE(rebuilt.ok()) << rebuilt.status();
  EXPECT_TRUE(rebuilt->notes.empty()) << rebuilt->notes[0];
  EXPECT_EQ(Slurp(dir.path() / kSummaryFileName), summary);
  EXPECT_EQ(Slurp(dir.path() / kLeaderboardFileName), leaderboard);
  EXPECT_EQ(Slurp(dir.path() / kAnswersFileName), answers);
  EXPECT_EQ(rebuilt->leaderboard, leaderboard);
}

TEST(ResultsReaderTest, RebuildWithoutASummaryMatchesApartFromCallsAndRun) {
  TempDir dir;
  AidanReducer reducer(Preset("reference-2025"), {"sim:explorer", "openai/gpt-4o"}, {0.7, 1.0});
  for (UnitResult& u : SweepUnits()) {
    if (u.unit.temperature == 0.0) continue;
    reducer.Add(std::move(u), {{"judge:sim:judge", {.requests = 2}}});
  }
  reducer.SetRunInfo(Json{{"seconds", 3.0}});
  ASSERT_TRUE(WriteResultsFolder(dir.path().string(), reducer.Snapshot(), Simulated()).ok());
  Json before = SummaryOf(dir.path());
  std::filesystem::remove(dir.path() / kSummaryFileName);

  absl::StatusOr<RebuildOutcome> rebuilt = RebuildResultsFolder(dir.path().string(), std::nullopt);
  ASSERT_TRUE(rebuilt.ok()) << rebuilt.status();
  EXPECT_FALSE(rebuilt->notes.empty());  // says what it had to assume
  Json after = SummaryOf(dir.path());
  EXPECT_EQ(after["calls"], Json::object());
  EXPECT_EQ(after["run"], Json::object());
  EXPECT_EQ(WithoutCallsAndRun(after), WithoutCallsAndRun(before));
}

TEST(ResultsReaderTest, RebuildWithAnotherPresetRescoresAndRewritesAnswers) {
  TempDir dir;
  AidanReducer reducer(Preset("reference-2025"), {"m"}, {0.7});
  reducer.Add(MakeUnit("m", 0.7, 0, {{9, 1.0}, {9, 0.5}, {2, 0.5}}, kStopIncoherent));
  ASSERT_TRUE(WriteResultsFolder(dir.path().string(), reducer.Snapshot(), ResultsOptions{}).ok());
  EXPECT_EQ(SummaryOf(dir.path())["aidanbench"]["m"]["0.7"]["valid_answers"], 0);

  absl::StatusOr<RebuildOutcome> rebuilt = RebuildResultsFolder(dir.path().string(), Preset("paper-2024"));
  ASSERT_TRUE(rebuilt.ok()) << rebuilt.status();
  const Json summary = SummaryOf(dir.path());
  EXPECT_EQ(summary["aidanbench"]["m"]["0.7"]["valid_answers"], 2);
  EXPECT_EQ(summary["aidanbench"]["m"]["0.7"]["preset"], "paper-2024");
  EXPECT_THAT(Slurp(dir.path() / kAnswersFileName), HasSubstr("\"valid\":true"));
}

TEST(ResultsReaderTest, MalformedAnswersFileNamesTheLine) {
  TempDir dir;
  dir.Write(kAnswersFileName, "\n{\"benchmark\":\"aidanbench\",\"model\":\"m\"}\n");
  absl::StatusOr<RebuildOutcome> rebuilt = RebuildResultsFolder(dir.path().string(), std::nullopt);
  ASSERT_FALSE(rebuilt.ok());
  EXPECT_THAT(rebuilt.status().message(), HasSubstr("answers.jsonl:2: "));
  // An empty folder: sweep_results_test.cc.
}

// `report DIR` over files nested 100,000 deep: the answers file is refused naming its line, a summary
// is ignored with a note saying why (as one that is not JSON is).
TEST(ResultsReaderTest, DeeplyNestedFilesAreRefusedNotAStackOverflow) {
  TempDir dir;
  ASSERT_TRUE(WriteResultsFolder(dir.path().string(), RunLikeSnapshot(), Simulated()).ok());
  dir.Write(kSummaryFileName, testing_files::DeeplyNestedJson());
  absl::StatusOr<RebuildOutcome> rebuilt = RebuildResultsFolder(dir.path().string(), std::nullopt);
  ASSERT_TRUE(rebuilt.ok()) << rebuilt.status();
  ASSERT_FALSE(rebuilt->notes.empty());
  EXPECT_THAT(rebuilt->notes.front(), HasSubstr("ignored the old summary.json: "));
  EXPECT_THAT(rebuilt->notes.front(), HasSubstr("JSON nested deeper than 256 levels"));

  TempDir deep;
  deep.Write(kAnswersFileName, "\n" + testing_files::DeeplyNestedJson() + "\n");
  rebuilt = RebuildResultsFolder(deep.path().string(), std::nullopt);
  ASSERT_FALSE(rebuilt.ok());
  EXPECT_THAT(rebuilt.status().message(), HasSubstr("answers.jsonl:2: malformed answer line: JSON nested deeper"));
}

// A number where an int belongs, or a value of the wrong type, in a folder edited by hand: an answer
// line is refused naming its line and the old summary's odd parts are ignored -- no undefined
// float-to-int cast, no uncaught exception (found by tests/fuzz/results_rows_fuzz and journal_fuzz).
TEST(ResultsReaderTest, OutOfRangeAndMistypedNumbersAreRefusedOrIgnored) {
  const std::string answer =
      R"({"benchmark":"aidanbench","model":"m","temperature":0.4,"question_id":"q","question":"Q?",)"
      R"("answer_num":1,"answer":"A.","coherence":69.0,"novelty":1.0,"valid":true,"unit_id":"u1")";
  for (const char* repeat : {"1e300", "4e9", "1.5", "\"2\""}) {
    TempDir dir;
    dir.Write(kAnswersFileName, answer + ",\"repeat\":" + repeat + "}\n");
    absl::StatusOr<RebuildOutcome> rebuilt = RebuildResultsFolder(dir.path().string(), std::nullopt);
    ASSERT_FALSE(rebuilt.ok()) << repeat;
    EXPECT_THAT(rebuilt.status().message(), HasSubstr("answers.jsonl:1: malformed answer line: \"repeat\" is "));
  }
  TempDir answer_num;
  answer_num.Write(kAnswersFileName,
                   R"({"benchmark":"aidanbench","model":"m","temperature":0.4,"question_id":"q",)"
                   R"("question":"Q?","answer_num":1e300,"answer":"A.","coherence":69.0,"novelty":1.0,)"
                   R"("valid":true,"unit_id":"u1"})"
                   "\n");
  absl::StatusOr<RebuildOutcome> rebuilt = RebuildResultsFolder(answer_num.path().string(), std::nullopt);
  ASSERT_FALSE(rebuilt.ok());
  EXPECT_THAT(rebuilt.status().message(), HasSubstr("answers.jsonl:1: malformed answer"));

  TempDir dir;
  dir.Write(kAnswersFileName, answer + "}\n");
  dir.Write(kSummaryFileName, R"({"questions": {"aidanbench": [{"unit_id": "u1", "temperature": 0.4, "repeat": "x"}]},
      "aidanbench": {"m": {"0.4": {"max_iterations": 1e300}}}, "calls": {"generate:m": "oops", "judge:j": {"requests": 1e300}}})");
  rebuilt = RebuildResultsFolder(dir.path().string(), std::nullopt);
  ASSERT_TRUE(rebuilt.ok()) << rebuilt.status();
  const Json summary = SummaryOf(dir.path());
  EXPECT_FALSE(summary["calls"].contains("generate:m"));
  EXPECT_EQ(summary["calls"]["judge:j"]["requests"], 0);
  EXPECT_EQ(summary["aidanbench"]["m"]["0.4"]["max_iterations"], 0);
}

TEST(ResultsWriterTest, TheReportIsDrawnAgainWhenWhatItShowsChanges) {
  MapSource source;
  AidanReducer lean(Preset("reference-2025"), {"m"}, {0.7}, &source);
  const UnitResult unit = MakeUnit("m", 0.7, 0, {{80, 1.0}, {10, 0.1}}, kStopIncoherent);
  source.Put(unit);
  lean.Add(unit);
  TempDir dir;
  const auto write = [&](const ResultsOptions& options) {
    const int before = source.calls();
    EXPECT_TRUE(WriteSweepResults(dir.path().string(), {lean.Results().get()}, options).ok());
    return source.calls() > before;
  };
  ResultsOptions options;
  options.rows_key = "k";
  EXPECT_TRUE(write(options));
  EXPECT_FALSE(write(options)) << "nothing changed: neither the rows nor the page read the answers again";
  options.prices["m"] = ModelPrice{1, 1};
  EXPECT_TRUE(write(options)) << "prices change the page's costs";
  EXPECT_FALSE(write(options));
  const std::string csv = (dir.path() / "board.csv").string();
  std::ofstream(csv) << "model,score\nm,1\n";
  options.correlate = CorrelateOptions{};
  options.correlate->leaderboard_path = csv;
  EXPECT_TRUE(write(options)) << "a leaderboard to compare with";
  EXPECT_NE(Slurp(dir.path() / kReportFileName).find("<section id=\"correlation\">"), std::string::npos);
  EXPECT_FALSE(write(options));
}

// Reasoning tokens and an omitted temperature are recorded where they happened, read back by `report`, and
// leave every other line as it was.
TEST(ResultsWriterTest, ReasoningTokensAndAnOmittedTemperatureAreRecordedAndSurviveARebuild) {
  AidanReducer reducer(Preset("reference-2025"), {"openai:o3", "openai:gpt-4o"}, {1.0});
  UnitResult reasoning = MakeUnit("openai:o3", 1.0, 0, {{80, 1.0}, {70, 0.5}});
  reasoning.answers[0].reasoning_tokens = 1200;
  reducer.Add(std::move(reasoning),
              {{"generate:openai:o3", {.requests = 2, .completion_tokens = 1500, .reasoning_tokens = 1200}}});
  reducer.Add(MakeUnit("openai:gpt-4o", 1.0, 1, {{80, 1.0}}), {{"generate:openai:gpt-4o", {.requests = 1}}});
  ResultsOptions options;
  options.temperature_not_applied = {"openai:o3"};
  TempDir dir;
  ASSERT_TRUE(WriteResultsFolder(dir.path().string(), reducer.Snapshot(), options).ok());
  const Json summary = SummaryOf(dir.path());
  EXPECT_EQ(Keys(summary).front(), "temperature_not_applied");
  EXPECT_EQ(summary["temperature_not_applied"]["models"], (Json{"openai:o3"}));
  EXPECT_EQ(summary["calls"]["generate:openai:o3"]["reasoning_tokens"], 1200);
  EXPECT_FALSE(summary["calls"]["generate:openai:gpt-4o"].contains("reasoning_tokens"));
  const std::string leaderboard = Slurp(dir.path() / kLeaderboardFileName);
  EXPECT_THAT(leaderboard, HasSubstr("Temperature not applied to openai:o3"));
  const std::string answers = Slurp(dir.path() / kAnswersFileName);
  std::vector<Json> lines;
  for (size_t start = 0, end; (end = answers.find('\n', start)) != std::string::npos; start = end + 1) {
    lines.push_back(Json::parse(answers.substr(start, end - start)));
  }
  ASSERT_EQ(lines.size(), 3u);
  int with_reasoning = 0;
  for (const Json& line : lines) {
    if (line.contains("reasoning_tokens")) {
      ++with_reasoning;
      EXPECT_EQ(line["reasoning_tokens"], 1200);
      EXPECT_EQ(line["answer_num"], 1);
      EXPECT_EQ(line["model"], "openai:o3");
    }
  }
  EXPECT_EQ(with_reasoning, 1);  // only the answer the provider reported reasoning for

  absl::StatusOr<RebuildOutcome> rebuilt = RebuildResultsFolder(dir.path().string(), std::nullopt);
  ASSERT_TRUE(rebuilt.ok()) << rebuilt.status();
  EXPECT_EQ(SummaryOf(dir.path()), summary);
  EXPECT_EQ(Slurp(dir.path() / kLeaderboardFileName), leaderboard);
  EXPECT_EQ(Slurp(dir.path() / kAnswersFileName), answers);
}

}  // namespace
}  // namespace noveltygrid::testing_units
