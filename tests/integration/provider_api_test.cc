// Limits learned from a real `noveltygrid serve-sim` process's rate-limit headers by a cluster of three
// workers. (The sweep through the Messages API is tests/peers/anthropic_kind_test.cc.)
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

class ProviderApiTest : public HttpProviderTest {};

// No limits in the config; serve-sim allows 600 requests a minute and says so in its headers. Three
// workers sharing Redis learn the limit from the first replies and keep to 90% of it cluster-wide: once
// settled no request is refused, and the sweep uses at least 85% of what the provider allows. Settling
// takes up to two minutes: the requests sent before anything was learned empty serve-sim's bucket (600,
// refilled at 10 a second), and the learned limit counts calendar minutes, so the first full minute after
// learning can start its 540 before the bucket has them back. The measurement is the two minutes after
// that, over wall-clock minutes as the claim is one: the test runs about four minutes.
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
  // The measurement window: from two minutes after the start, for two minutes.
  absl::SleepFor(start + absl::Seconds(125) - absl::Now());
  const Json first = Stats();
  absl::SleepFor(start + absl::Seconds(245) - absl::Now());
  const Json last = Stats();
  const double minutes = 2.0;
  std::cout << "learned limits: " << answered(last) - answered(first) << " requests answered and "
            << last["rate_limited"].get<int64_t>() - first["rate_limited"].get<int64_t>()
            << " refused in the two minutes after the first two (limit " << kLimit
            << "/min); refused in the first two: " << first["rate_limited"].get<int64_t>() << "\n";
  EXPECT_EQ(last["rate_limited"], first["rate_limited"]) << "refused after the first two minutes:\n"
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
