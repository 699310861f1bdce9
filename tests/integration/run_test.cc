// `noveltygrid run` as a user runs it: determinism, resume, refusal of a different sweep in the same
// folder, and config errors before any work.
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
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

TEST_F(RunTest, AFolderOfAnotherSweepIsRefused) {
  std::string out;
  ASSERT_EQ(Run({"run", SmallSweep("a.yaml", 11), "--out", dir_ + "/r", "--quiet"}, &out), 0) << out;
  EXPECT_EQ(Run({"run", SmallSweep("b.yaml", 99), "--out", dir_ + "/r", "--quiet"}, &out), 1);
  EXPECT_NE(out.find("different sweep"), std::string::npos) << out;
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
