// A sweep with every chat role -- AidanBench's generator and judge, NoveltyBench's generator, LLM
// partitioner and LLM quality judge -- and the embedder against @dwmkerr/mock-llm, a third-party
// OpenAI-compatible mock server started with our rules (mock_llm/mock-llm.yaml). Its embeddings answer
// one vector per request whatever the batch holds, so the embedder must fall back to one input per
// request; its answers are fixed by the rules, so the results are known exactly.
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/json_util.h"
#include "gtest/gtest.h"
#include "tests/common/storage/redis_server.h"
#include "tests/common/test_files.h"
#include "tests/integration/cluster_harness.h"
#include "tests/integration/process.h"

namespace noveltygrid::testing {
namespace {

constexpr char kPeerDir[] = NOVELTYGRID_SOURCE_DIR "/tests/peers/mock_llm";
constexpr char kMain[] = NOVELTYGRID_SOURCE_DIR "/tests/peers/mock_llm/node_modules/@dwmkerr/mock-llm/dist/main.js";
constexpr char kSetupCommand[] = "NOVELTYGRID_SETUP_SDK=1 bash scripts/setup.sh";
constexpr int kQuestions = 3;
constexpr int kPrompts = 2;
constexpr int kSamples = 3;

std::string ReadTextFile(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFile(path);
  EXPECT_TRUE(text.ok()) << text.status();
  return text.value_or("");
}

class MockLlmPeerTest : public ClusterTest {
 protected:
  void SetUp() override {
    node_ = FindOnPath("node");
    std::string missing;
    if (!node_.has_value()) missing = "node is not installed";
    if (missing.empty() && !std::filesystem::exists(kMain)) missing = absl::StrCat(kMain, " is missing");
    if (!missing.empty()) {
      const std::string message = absl::StrCat(
          missing, ": the peer test needs node and tests/peers/mock_llm's packages; run `", kSetupCommand, "` first");
      if (testing_files::UnderCi()) GTEST_FAIL() << message << " (under CI this test does not skip)";
      GTEST_SKIP() << message;
    }
    ClusterTest::SetUp();
  }

  // mock-llm on a free loopback port, once it says it listens; its base URL in `url`.
  std::unique_ptr<Process> StartMockLlm(std::string* url) {
    const int port = testing_redis::FreeLoopbackPort();
    ProcessOptions options;
    options.args = {*node_, kMain, "--config", absl::StrCat(kPeerDir, "/mock-llm.yaml")};
    options.env = {{"PORT", std::to_string(port)}, {"HOST", "127.0.0.1"}};
    options.timeout = absl::Minutes(5);
    absl::StatusOr<std::unique_ptr<Process>> server = Process::Start(std::move(options));
    EXPECT_TRUE(server.ok()) << server.status();
    if (!server.ok()) return nullptr;
    absl::StatusOr<std::string> line = (*server)->WaitForLine(
        Process::Stream::kStdout, [](const std::string& l) { return absl::StrContains(l, "server running on"); },
        absl::Seconds(60));
    EXPECT_TRUE(line.ok()) << line.status() << "\n" << (*server)->Output();
    if (!line.ok()) return nullptr;
    *url = absl::StrCat("http://127.0.0.1:", port, "/v1");
    return *std::move(server);
  }

  std::string WritePeerConfig(const std::string& url) {
    const std::string questions = WritePaperQuestions(kQuestions);
    const std::string path = Path("peer.yaml");
    std::ofstream out(path);
    out << "name: peer\nseed: 3\nmodels: [mock:gen]\ntemperatures: [0.7]\n"
        << "judge: mock:judge\nembedder: mock:embed\nconcurrency: 8\n"
        << "aidanbench:\n  questions: " << questions << "\n"
        << "noveltybench:\n  prompts: " << testing_files::SharedData("noveltybench/curated.jsonl") << "\n"
        << "  limit: " << kPrompts << "\n  k: " << kSamples << "\n  ask_n: false\n"
        << "  partitioner: llm\n  partition_model: mock:judge\n  quality: llm\n  quality_model: mock:judge\n"
        // Texts wait for company (the default sends what is at hand), so that batches reach the mock.
        // A batch closes after four mean gaps between texts without one, capped by the wait: with 5 ms
        // the cap decided, and where mock-llm's replies came further apart than that no batch formed
        // (the warning below missing in 2 of 3 runs on a slow machine); with a second, the gaps do.
        << "providers:\n  mock:\n    base_url: " << url
        << "\n    embed_encoding: float\n    max_retries: 2\n    embed_wait_ms: 1000\n";
    EXPECT_TRUE(out.good());
    return path;
  }

  std::optional<std::string> node_;
};

TEST_F(MockLlmPeerTest, SweepWithEveryChatRoleGivesTheResultsItsRulesDictate) {
  std::string url;
  std::unique_ptr<Process> server = StartMockLlm(&url);
  ASSERT_NE(server, nullptr);
  const std::string config = WritePeerConfig(url);
  std::unique_ptr<Process> run = Spawn({"run", config, "--out", Path("out"), "--quiet"}, kToken);
  ASSERT_NE(run, nullptr);
  ASSERT_EQ(run->Wait(), 0) << run->Output();
  const std::string output = run->Output();
  // The batched embeddings came back one vector short: one warning, no failed unit.
  const std::string warning = "the server answered";
  ASSERT_TRUE(absl::StrContains(output, warning)) << output;
  EXPECT_EQ(output.find(warning), output.rfind(warning)) << "warned more than once:\n" << output;

  const Json summary = Json::parse(ReadTextFile(Path("out/summary.json")));
  EXPECT_FALSE(summary.contains("simulated")) << "a real HTTP model is not the simulator";
  // AidanBench: doorstop, pigment, warm bed (each coherent and new), then doorstop again: 3 valid answers
  // per question, the fourth repetitive.
  const Json& cell = summary["aidanbench"]["mock:gen"]["0.7"];
  EXPECT_EQ(cell["valid_answers"], 3 * kQuestions) << cell.dump();
  EXPECT_EQ(cell["stored_answers"], 4 * kQuestions) << cell.dump();
  EXPECT_EQ(cell["errors"], 0) << cell.dump();
  // NoveltyBench: k identical generations the judge calls the same (95 > the threshold): one class, quality 8.
  int samples = 0;
  std::ifstream lines(Path("out/samples.jsonl"));
  for (std::string line; std::getline(lines, line); ++samples) {
    const Json sample = Json::parse(line);
    EXPECT_EQ(sample["distinct"], 1) << line;
    EXPECT_EQ(sample["partition"], Json::array({0, 0, 0})) << line;
    EXPECT_EQ(sample["quality"][0], 8) << line;
    EXPECT_FALSE(sample.contains("error")) << line;
  }
  EXPECT_EQ(samples, kPrompts);
  const Json& calls = summary["calls"];
  for (const char* key : {"generate:mock:gen", "judge:mock:judge", "embed:mock:embed"}) {
    ASSERT_TRUE(calls.contains(key)) << calls.dump();
    EXPECT_GT(calls[key]["requests"].get<int64_t>(), 0) << key;
    EXPECT_EQ(calls[key]["errors"].get<int64_t>(), 0) << key;
    EXPECT_GT(calls[key]["prompt_tokens"].get<int64_t>(), 0) << key;
  }

  // The same config again: mock-llm answers by rule, so the results files are byte-identical.
  std::unique_ptr<Process> again = Spawn({"run", config, "--out", Path("again"), "--quiet"}, kToken);
  ASSERT_NE(again, nullptr);
  ASSERT_EQ(again->Wait(), 0) << again->Output();
  for (const char* file : {"answers.jsonl", "samples.jsonl", "leaderboard.txt"}) {
    EXPECT_EQ(ReadTextFile(Path(absl::StrCat("out/", file))), ReadTextFile(Path(absl::StrCat("again/", file)))) << file;
  }
}

}  // namespace
}  // namespace noveltygrid::testing
