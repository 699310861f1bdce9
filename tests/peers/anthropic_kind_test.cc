// A peer of another kind: the sweep through Anthropic's Messages API (`api: anthropic`) against a real
// `noveltygrid serve-sim` process gives the in-process results, with the AidanBench prompt's stable
// prefix cached (and tests/sdk/anthropic_node checks serve-sim's side against the official SDK).
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/json_util.h"
#include "gtest/gtest.h"
#include "tests/common/test_files.h"
#include "tests/integration/http_provider_fixture.h"

namespace noveltygrid::testing {
namespace {

class AnthropicKindTest : public HttpProviderTest {
 protected:
  // AidanBench on 6 paper questions and NoveltyBench on 3 curated prompts (k = 4, one request per sample:
  // the Messages API has no n), 2 models x 2 temperatures; `routing` (models, judge, providers) appended.
  std::string WriteConfig(const std::string& name, const std::string& routing) {
    const std::string questions = WritePaperQuestions(6);
    const std::string path = Path(name + ".yaml");
    std::ofstream out(path);
    out << "name: api\nseed: 7\ntemperatures: [0.7, 1.0]\nembedder: lexical\nconcurrency: 16\n"
        << "aidanbench:\n  questions: " << questions << "\n"
        << "noveltybench:\n  prompts: " << testing_files::SharedData("noveltybench/curated.jsonl") << "\n"
        << "  limit: 3\n  k: 4\n  ask_n: false\n  temperatures: [1.0]\n"
        << routing;
    EXPECT_TRUE(out.good());
    return path;
  }
};

TEST_F(AnthropicKindTest, MessagesApiSweepMatchesInProcessModelsAndCachesThePromptPrefix) {
  StartServer({}, {{"NOVELTYGRID_SIM_API_KEY", kServerKey}});
  const std::string plain = WriteConfig("plain", "models: [sim:explorer, sim:steady]\njudge: sim:judge\n");
  const std::string messages = WriteConfig(
      "messages",
      absl::StrCat("models:\n  - {name: sim:explorer, provider: claude}\n"
                   "  - {name: sim:steady, provider: claude}\n"
                   "judge: {name: sim:judge, provider: claude}\n"
                   "providers:\n  claude:\n    base_url: ",
                   url_, "/v1\n    api: anthropic\n    api_key_env: SIM_TEST_KEY\n    prompt_cache: true\n"));
  RunReference(plain, Path("reference"));
  std::string output;
  ASSERT_EQ(RunSweep(messages, Path("messages"), {{"SIM_TEST_KEY", kServerKey}}, &output), 0) << output;
  ExpectSameResults(Path("reference"), Path("messages"));

  // Every chat call went through the Messages API, none through chat completions.
  const Json stats = Stats();
  const Json summary = Json::parse(ReadText(Path("messages/summary.json")));
  const Json& calls = summary["calls"];
  const int64_t chat_calls = calls["generate:sim:explorer"]["requests"].get<int64_t>() +
                             calls["generate:sim:steady"]["requests"].get<int64_t>() +
                             calls["judge:sim:judge"]["requests"].get<int64_t>();
  EXPECT_EQ(stats["messages"].get<int64_t>(), chat_calls) << stats.dump();
  EXPECT_EQ(stats["chat"].get<int64_t>(), 0) << stats.dump();
  // AidanBench's loops repeat their question and instructions: written to the cache once per unit and
  // read back by every later iteration. NoveltyBench's prompts have no marked prefix.
  const Json& explorer = calls["generate:sim:explorer"];
  EXPECT_GT(explorer.value("cache_write_tokens", int64_t{0}), 0) << explorer.dump();
  EXPECT_GT(explorer.value("cache_read_tokens", int64_t{0}), explorer.value("cache_write_tokens", int64_t{0}))
      << explorer.dump();
  EXPECT_GT(explorer["prompt_tokens"].get<int64_t>(),
            explorer["cache_read_tokens"].get<int64_t>() + explorer["cache_write_tokens"].get<int64_t>());
  EXPECT_FALSE(calls["judge:sim:judge"].contains("cache_read_tokens"));
  // The in-process run has no such counts.
  const Json reference = Json::parse(ReadText(Path("reference/summary.json")));
  EXPECT_FALSE(reference["calls"]["generate:sim:explorer"].contains("cache_read_tokens"));
}

}  // namespace
}  // namespace noveltygrid::testing
