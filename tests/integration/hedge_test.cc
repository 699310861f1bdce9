// Hedged requests through a real `noveltygrid serve-sim` process whose timeout fault leaves requests
// without a reply for far longer than the provider's timeout: with hedge_after_ms the sweep's results
// are byte-identical to the fault-free run's, and summary.json counts and costs the duplicates.
#include <cstdint>
#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "common/json_util.h"
#include "gtest/gtest.h"
#include "tests/integration/cluster_harness.h"
#include "tests/integration/http_provider_fixture.h"
#include "tests/integration/process.h"

namespace noveltygrid::testing {
namespace {

constexpr char kPrices[] = "prices:\n  sim:explorer: {prompt: 1, completion: 2}\n";

int64_t Counter(const Json& calls, const std::string& field) {
  int64_t total = 0;
  for (const auto& [key, counters] : calls.items()) total += counters.value(field, int64_t{0});
  return total;
}

TEST_F(HttpProviderTest, HedgedRequestsGiveTheFaultFreeResultsAndAreCountedAndCosted) {
  // The fault-free run, through serve-sim too.
  StartServer();
  const std::string plain = WriteHttpConfig("plain", SimProvider() + kPrices);
  std::string output;
  ASSERT_EQ(RunSweep(plain, Path("fault-free"), {}, &output), 0) << output;
  server_.reset();

  // 2% of requests hang for 10 minutes, far beyond the provider's timeout (5 s); the channel hedges
  // after 300 ms, and again 300 ms later should the duplicate hang too. (Only when all three hang does
  // the attempt wait out the timeout and get retried, as without hedging.)
  StartServer({"--fault-rate", "0.02", "--faults", "timeout", "--seed", "3", "--timeout-hold-ms", "600000"});
  const std::string hedged =
      WriteHttpConfig("hedged", SimProvider("    timeout_s: 5\n    hedge_after_ms: 300\n") + kPrices);
  ASSERT_EQ(RunSweep(hedged, Path("hedged"), {}, &output), 0) << output;
  ExpectSameResults(Path("fault-free"), Path("hedged"));

  const Json stats = Stats();
  EXPECT_GT(stats["faults_injected"].get<int64_t>(), 0) << stats.dump();
  const Json before = Json::parse(ReadText(Path("fault-free/summary.json")))["calls"];
  const Json after = Json::parse(ReadText(Path("hedged/summary.json")))["calls"];
  EXPECT_EQ(Counter(before, "hedges"), 0) << before.dump();  // no field without hedging
  EXPECT_GT(Counter(after, "hedges"), 0) << after.dump();
  // The same calls, answered the same: the extra tokens (and dollars) are the duplicates'.
  for (const auto& [key, counters] : after.items()) {
    EXPECT_EQ(counters["requests"], before[key]["requests"]) << key;
    const int64_t hedges = counters.value("hedges", int64_t{0});
    if (hedges == 0 || !absl::StartsWith(key, "generate:")) continue;
    EXPECT_GT(counters["prompt_tokens"].get<int64_t>(), before[key]["prompt_tokens"].get<int64_t>()) << key;
    if (key == "generate:sim:explorer") {
      EXPECT_GT(counters["cost_usd"].get<double>(), before[key]["cost_usd"].get<double>()) << key;
    }
  }
}

}  // namespace
}  // namespace noveltygrid::testing
