// `noveltygrid run` as a user runs it: determinism, resume, refusal of a different sweep in the same
// folder, and config errors before any work.
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/integration/process.h"

namespace noveltygrid {
namespace {

using testing::Process;
using testing::ProcessOptions;

std::string Binary() {
  if (const char* bin = std::getenv("NOVELTYGRID_BIN"); bin != nullptr && *bin != '\0') return bin;
  return NOVELTYGRID_SOURCE_DIR "/build/noveltygrid";
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

class RunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (std::filesystem::temp_directory_path() / "noveltygrid-run-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string WriteConfig(const std::string& name, const std::string& body) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path) << body;
    return path;
  }

  // A small sweep: 2 models x 2 temperatures x 65 questions.
  std::string SmallSweep(const std::string& name = "small.yaml", int seed = 11) {
    return WriteConfig(name, absl::StrCat("name: small\nseed: ", seed,
                                          "\nmodels: [sim:steady, sim:collapse]\ntemperatures: [0.5, 1.1]\n"
                                          "aidanbench:\n  questions: " NOVELTYGRID_SOURCE_DIR
                                          "/datasets/aidanbench/questions-paper-65.jsonl\n"));
  }

  // Runs the binary to completion; returns the exit code, output in `output`.
  int Run(std::vector<std::string> args, std::string* output = nullptr) {
    ProcessOptions options;
    options.args = {Binary()};
    options.args.insert(options.args.end(), args.begin(), args.end());
    options.timeout = absl::Seconds(120);
    absl::StatusOr<std::unique_ptr<Process>> p = Process::Start(options);
    EXPECT_TRUE(p.ok()) << p.status();
    if (!p.ok()) return -1;
    const int code = (*p)->Wait();
    if (output != nullptr) *output = (*p)->Output();
    return code;
  }

  std::string dir_;
};

TEST_F(RunTest, SameConfigAndSeedGiveByteIdenticalResults) {
  const std::string config = SmallSweep();
  std::string out;
  ASSERT_EQ(Run({"run", config, "--out", dir_ + "/a", "--quiet"}, &out), 0) << out;
  ASSERT_EQ(Run({"run", config, "--out", dir_ + "/b", "--quiet", "--concurrency", "3", "--threads", "1"}, &out), 0)
      << out;
  for (const char* file : {"answers.jsonl", "leaderboard.txt"}) {
    const std::string a = Slurp(dir_ + "/a/" + file);
    EXPECT_FALSE(a.empty()) << file;
    EXPECT_EQ(a, Slurp(dir_ + "/b/" + file)) << file;
  }
  // A different seed changes the answers.
  ASSERT_EQ(Run({"run", config, "--out", dir_ + "/c", "--quiet", "--seed", "12"}, &out), 0) << out;
  EXPECT_NE(Slurp(dir_ + "/a/answers.jsonl"), Slurp(dir_ + "/c/answers.jsonl"));
}

// The leaderboard printed at the end is the one written (the coordinator keeps the text it wrote rather
// than snapshotting its reducers again).
TEST_F(RunTest, ThePrintedLeaderboardIsTheWrittenOne) {
  std::string out;
  ASSERT_EQ(Run({"run", SmallSweep(), "--out", dir_ + "/p"}, &out), 0) << out;
  const std::string written = Slurp(dir_ + "/p/leaderboard.txt");
  ASSERT_FALSE(written.empty());
  EXPECT_NE(out.find(written), std::string::npos) << out;
}

TEST_F(RunTest, ReRunningIntoTheSameFolderResumesWithoutModelCalls) {
  const std::string config = SmallSweep();
  std::string out;
  const std::string log1 = dir_ + "/calls1.log", log2 = dir_ + "/calls2.log";
  ASSERT_EQ(Run({"run", config, "--out", dir_ + "/r", "--quiet", "--call-log", log1}, &out), 0) << out;
  const std::string first = Slurp(dir_ + "/r/answers.jsonl");
  EXPECT_GT(std::count(first.begin(), first.end(), '\n'), 260);
  EXPECT_FALSE(Slurp(log1).empty());
  ASSERT_EQ(Run({"run", config, "--out", dir_ + "/r", "--quiet", "--call-log", log2}, &out), 0) << out;
  EXPECT_EQ(Slurp(log2), "") << "a finished sweep made model calls when re-run";
  EXPECT_EQ(Slurp(dir_ + "/r/answers.jsonl"), first);
}

// A folder is not tied to one config: another seed plans other units, run into the same folder, and
// the results describe that config alone; going back to the first costs nothing.
TEST_F(RunTest, AFolderCanBeReusedWithAnotherConfig) {
  std::string out;
  ASSERT_EQ(Run({"run", SmallSweep("a.yaml", 11), "--out", dir_ + "/r", "--quiet"}, &out), 0) << out;
  const std::string first = Slurp(dir_ + "/r/answers.jsonl");
  ASSERT_EQ(Run({"run", SmallSweep("b.yaml", 99), "--out", dir_ + "/r", "--quiet"}, &out), 0) << out;
  ASSERT_EQ(Run({"run", SmallSweep("b.yaml", 99), "--out", dir_ + "/fresh-b", "--quiet"}, &out), 0) << out;
  EXPECT_EQ(Slurp(dir_ + "/r/answers.jsonl"), Slurp(dir_ + "/fresh-b/answers.jsonl"));
  ASSERT_EQ(Run({"run", SmallSweep("a.yaml", 11), "--out", dir_ + "/r", "--call-log", dir_ + "/calls.log"}, &out), 0)
      << out;
  EXPECT_EQ(Slurp(dir_ + "/r/answers.jsonl"), first);
  EXPECT_EQ(Slurp(dir_ + "/calls.log"), "") << "units committed by the first run were paid again";
  EXPECT_NE(out.find("(260 already done)"), std::string::npos) << out;
}

// `repeats: 2` runs each unit twice with its own seed: repeat 0 is the sweep without repeats, byte for
// byte; repeat 1 differs; the summary and the leaderboard give each cell's mean and 95% interval.
TEST_F(RunTest, RepeatsAddSeededPassesAndIntervals) {
  const std::string body =
      "name: rep\nseed: 11\nmodels: [sim:steady, sim:explorer]\ntemperatures: [0.7]\n"
      "aidanbench:\n  questions: " NOVELTYGRID_SOURCE_DIR
      "/datasets/aidanbench/questions-paper-65.jsonl\n"
      "noveltybench:\n  prompts: " NOVELTYGRID_SOURCE_DIR "/datasets/noveltybench/prompts-own-20.jsonl\n  k: 4\n";
  std::string out;
  ASSERT_EQ(Run({"run", WriteConfig("once.yaml", body), "--out", dir_ + "/once", "--quiet"}, &out), 0) << out;
  ASSERT_EQ(Run({"run", WriteConfig("twice.yaml", body + "repeats: 2\n"), "--out", dir_ + "/twice", "--quiet"}, &out),
            0)
      << out;
  for (const char* file : {"answers.jsonl", "samples.jsonl"}) {
    std::string repeat0, repeat1;
    for (absl::string_view line : absl::StrSplit(Slurp(dir_ + "/twice/" + file), '\n', absl::SkipEmpty())) {
      const bool second = line.find("\"repeat\":1") != absl::string_view::npos;
      absl::StrAppend(second ? &repeat1 : &repeat0, line, "\n");
    }
    EXPECT_EQ(repeat0, Slurp(dir_ + "/once/" + file)) << file << ": repeat 0 differs from the sweep without repeats";
    EXPECT_FALSE(repeat1.empty()) << file;
  }
  const nlohmann::json summary = nlohmann::json::parse(Slurp(dir_ + "/twice/summary.json"));
  const nlohmann::json& aidan = summary["aidanbench"]["sim:steady"]["0.7"]["repeats"];
  EXPECT_EQ(aidan["interval"], "t-interval over repeats, 95%") << aidan.dump();
  EXPECT_EQ(aidan["valid_answers"]["n"], 2) << aidan.dump();
  EXPECT_EQ(aidan["valid_answers"]["values"].size(), 2u) << aidan.dump();
  const nlohmann::json& novelty = summary["noveltybench"]["sim:steady"]["0.7"]["repeats"];
  EXPECT_EQ(novelty["mean_utility"]["n"], 2) << novelty.dump();
  EXPECT_GE(novelty["mean_distinct"]["half_width"].get<double>(), 0) << novelty.dump();
  const std::string board = Slurp(dir_ + "/twice/leaderboard.txt");
  EXPECT_NE(board.find(" +- "), std::string::npos) << board;
  EXPECT_NE(board.find("with repeats: mean +- half-width"), std::string::npos) << board;
}

TEST_F(RunTest, BadConfigIsRefusedBeforeAnyWork) {
  const std::string config = WriteConfig("bad.yaml",
                                         "models: [sim:steady]\ntemperatures: [0.7, 2.5]\n"
                                         "aidanbench:\n  questions: q.jsonl\n");
  std::string out;
  EXPECT_EQ(Run({"run", config, "--out", dir_ + "/r"}, &out), 2);
  EXPECT_NE(out.find("bad.yaml"), std::string::npos) << out;
  EXPECT_NE(out.find("temperatures[1]"), std::string::npos) << out;
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/r/answers.jsonl"));
}

// The coordinator builds no model, but it checks the ids: a typo fails there, not on every worker.
// API keys live on the workers, so an unset key does not stop it.
TEST_F(RunTest, CoordinatorRefusesAModelNoWorkerCanBuildButNeedsNoKeys) {
  const std::string questions =
      "aidanbench:\n  questions: " NOVELTYGRID_SOURCE_DIR "/datasets/aidanbench/questions-paper-65.jsonl\n";
  const std::string typo = WriteConfig("typo.yaml", "models: [sim:stedy]\ntemperatures: [0.7]\n" + questions);
  std::string out;
  EXPECT_EQ(Run({"coordinator", "--config", typo, "--listen", "127.0.0.1:0", "--out", dir_ + "/t"}, &out), 2);
  EXPECT_NE(out.find("'sim:stedy': unknown simulated model"), std::string::npos) << out;
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/t/summary.json"));

  const std::string keyed =
      WriteConfig("keyed.yaml",
                  "models: [openai:gpt-4o]\ntemperatures: [0.7]\njudge: sim:judge\nembedder: lexical\n"
                  "providers:\n  openai:\n    api_key_env: NG_TEST_OPENAI_KEY_NOT_SET\n" +
                      questions);
  ProcessOptions options;
  options.args = {Binary(), "coordinator", "--config", keyed, "--listen", "127.0.0.1:0", "--out", dir_ + "/k"};
  options.env = {{"NOVELTYGRID_TOKEN", "coordinator-test-token"}};
  absl::StatusOr<std::unique_ptr<Process>> coordinator = Process::Start(options);
  ASSERT_TRUE(coordinator.ok()) << coordinator.status();
  absl::StatusOr<std::string> line = (*coordinator)->WaitForStdoutPrefix("noveltygrid coordinator: listening on");
  EXPECT_TRUE(line.ok()) << line.status() << "\n" << (*coordinator)->Output();
  (*coordinator)->Signal(SIGTERM);
  (*coordinator)->Wait();
}

TEST_F(RunTest, LeaderboardIsPrintedAndMarkedSimulated) {
  std::string out;
  ASSERT_EQ(Run({"run", SmallSweep(), "--out", dir_ + "/r"}, &out), 0) << out;
  EXPECT_NE(out.find("AidanBench leaderboard"), std::string::npos) << out;
  EXPECT_NE(out.find("SIMULATED"), std::string::npos) << out;
  EXPECT_NE(out.find("sim:steady"), std::string::npos) << out;
  EXPECT_NE(out.find("260/260 units"), std::string::npos) << "progress shows the unit count\n" << out;
}

}  // namespace
}  // namespace noveltygrid
