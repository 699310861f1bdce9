// Sweeps through the other provider APIs against a real `noveltygrid serve-sim` process: Anthropic's
// Messages API (`api: anthropic`) gives the in-process results, with the AidanBench prompt's stable
// prefix cached.
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/json_util.h"
#include "gtest/gtest.h"
#include "tests/common/storage/redis_server.h"
#include "tests/common/test_files.h"
#include "tests/integration/http_provider_fixture.h"

namespace noveltygrid::testing {
namespace {

class ProviderApiTest : public HttpProviderTest {
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

TEST_F(ProviderApiTest, AnthropicMessagesApiSweepMatchesInProcessModelsAndCachesThePromptPrefix) {
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

// No limits in the config; serve-sim allows 600 requests a minute and says so in its headers. Three
// workers sharing Redis learn the limit from the first replies and keep to 90% of it cluster-wide: after
// the first minute (where requests sent before anything was learned may be refused) no request is refused, and the
// sweep uses at least 85% of what the provider allows. A measurement over wall-clock minutes, as the claim is one: the
// test runs about three minutes.
TEST_F(ProviderApiTest, ThreeWorkersLearnTheProvidersLimitAndStayUnderIt) {
  constexpr int kLimit = 600;
  process_timeout_ = absl::Minutes(6);
  absl::StatusOr<std::unique_ptr<testing_redis::RedisServer>> redis = testing_redis::RedisServer::Start();
  ASSERT_TRUE(redis.ok()) << redis.status();
  StartServer({"--requests-per-minute", std::to_string(kLimit)});
  // AidanBench only (every request limited), far more work than three minutes at the limit: the sweep
  // is stopped when the measurement is done.
  const std::string config = Path("learned.yaml");
  {
    std::ofstream out(config);
    out << "name: learned\nseed: 7\nmodels: [sim:explorer, sim:steady, sim:chaotic, sim:collapse]\n"
        << "temperatures: [0.4, 0.7, 1.0, 1.3]\njudge: sim:judge\nembedder: lexical\nconcurrency: 48\n"
        << "aidanbench:\n  questions: " << NOVELTYGRID_SOURCE_DIR << "/datasets/aidanbench/questions-paper-65.jsonl\n"
        << SimProvider("    max_retries: 40\n");
    ASSERT_TRUE(out.good());
  }
  std::string address;
  std::unique_ptr<Process> coordinator =
      StartCoordinator(config, Path("cluster"), {"--redis", (*redis)->url()}, &address);
  ASSERT_NE(coordinator, nullptr);
  std::vector<std::unique_ptr<Process>> workers;
  for (const char* id : {"w1", "w2", "w3"}) {
    workers.push_back(
        Spawn({"worker", "--coordinator", address, "--id", id, "--concurrency", "16", "--redis", (*redis)->url()}));
    ASSERT_NE(workers.back(), nullptr);
  }
  const absl::Time start = absl::Now();
  const auto answered = [](const Json& stats) {
    return stats["chat"].get<int64_t>() + stats["embeddings"].get<int64_t>() + stats["messages"].get<int64_t>();
  };
  // The measurement window: from a minute after the start, for two minutes.
  absl::SleepFor(start + absl::Seconds(65) - absl::Now());
  const Json first = Stats();
  absl::SleepFor(start + absl::Seconds(185) - absl::Now());
  const Json last = Stats();
  const double minutes = 2.0;
  std::cout << "learned limits: " << answered(last) - answered(first) << " requests answered and "
            << last["rate_limited"].get<int64_t>() - first["rate_limited"].get<int64_t>()
            << " refused in the two minutes after the first (limit " << kLimit
            << "/min); refused in the first: " << first["rate_limited"].get<int64_t>() << "\n";
  EXPECT_EQ(last["rate_limited"], first["rate_limited"]) << "refused after the first minute:\n"
                                                         << first.dump() << "\n"
                                                         << last.dump();
  EXPECT_GE(answered(last) - answered(first), static_cast<int64_t>(0.85 * kLimit * minutes)) << first.dump() << "\n"
                                                                                             << last.dump();
  // The workers did learn the limit (without it, three workers of 16 loops would far exceed 600 a minute).
  for (const auto& w : workers) {
    EXPECT_TRUE(absl::StrContains(w->Output(), "reports 600 requests")) << w->Output();
  }
}

}  // namespace
}  // namespace noveltygrid::testing
