// HedgePolicy's waits (fixed and adaptive), the config fields that set them, and how hedges are
// counted and costed in summary.json's calls.
#include "worker/http/hedge_policy.h"

#include <map>
#include <optional>
#include <string>

#include "common/call_cost.h"
#include "common/config.h"
#include "common/records_json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/common/test_files.h"
#include "worker/models/model.h"

namespace noveltygrid {
namespace {

using ::testing::HasSubstr;

constexpr char kChat[] = "http://h/v1/chat/completions";
constexpr char kEmbed[] = "http://h/v1/embeddings";

ProviderConfig Hedging(absl::Duration after, double percentile) {
  ProviderConfig config;
  config.hedge_after = after;
  config.hedge_percentile = percentile;
  return config;
}

TEST(HedgePolicyTest, OffUnlessConfigured) {
  HedgePolicy policy(ProviderConfig{});
  EXPECT_FALSE(policy.enabled());
  EXPECT_EQ(policy.Delay(kChat), std::nullopt);
}

TEST(HedgePolicyTest, FixedWait) {
  HedgePolicy policy(Hedging(absl::Milliseconds(250), 0));
  EXPECT_TRUE(policy.enabled());
  policy.Observe(kChat, absl::Seconds(9));  // a fixed wait ignores what it sees
  EXPECT_EQ(policy.Delay(kChat), absl::Milliseconds(250));
}

TEST(HedgePolicyTest, AdaptiveWaitIsAMarginOverThePercentilePerUrl) {
  HedgePolicy policy(Hedging(absl::ZeroDuration(), 95));
  EXPECT_TRUE(policy.enabled());
  // 1..100 ms, in a scrambled order: the p95 is 95 ms.
  for (int i = 0; i < 100; ++i) {
    if (i < HedgePolicy::kMinSamples) EXPECT_EQ(policy.Delay(kChat), std::nullopt) << i;
    policy.Observe(kChat, absl::Milliseconds(1 + (i * 37) % 100));
  }
  EXPECT_EQ(policy.Delay(kChat), absl::Microseconds(142'500));  // 1.5 x 95 ms
  EXPECT_EQ(policy.Delay(kEmbed), std::nullopt);                // another URL has its own samples

  // A floor serves until there are samples, and below it the adaptive wait is not used.
  HedgePolicy floored(Hedging(absl::Milliseconds(200), 95));
  EXPECT_EQ(floored.Delay(kChat), absl::Milliseconds(200));
  for (int i = 0; i < 100; ++i) floored.Observe(kChat, absl::Milliseconds(1 + (i * 37) % 100));
  EXPECT_EQ(floored.Delay(kChat), absl::Milliseconds(200));
  for (int i = 0; i < HedgePolicy::kWindow; ++i) floored.Observe(kChat, absl::Milliseconds(300));
  EXPECT_EQ(floored.Delay(kChat), absl::Milliseconds(450));  // the window moved on

  // A provider answering in a millisecond: the wait stays at kMinAdaptiveWait, not 1.5 ms.
  HedgePolicy fast(Hedging(absl::ZeroDuration(), 95));
  for (int i = 0; i < 100; ++i) fast.Observe(kChat, absl::Milliseconds(1));
  EXPECT_EQ(fast.Delay(kChat), HedgePolicy::kMinAdaptiveWait);
}

std::string Sweep(const std::string& provider) {
  return "models: [sim:explorer]\ntemperatures: [0.7]\naidanbench:\n  questions: " +
         testing_files::SharedData("aidanbench/questions-paper-65.jsonl") +
         "\nproviders:\n  sim:\n    base_url: http://127.0.0.1:8000/v1\n" + provider;
}

absl::StatusOr<SweepConfig> Parse(const std::string& text) {
  return ParseSweepConfig(text, "p.yaml", [](const std::string&) { return std::nullopt; });
}

TEST(HedgeConfigTest, HedgeAfterMsAndPercentileReachTheEndpoint) {
  auto config = Parse(Sweep("    hedge_after_ms: 300\n    hedge_after: p99.5\n"));
  ASSERT_TRUE(config.ok()) << config.status();
  const ProviderConfig& p = config->endpoints.at("sim:explorer").provider;
  EXPECT_EQ(p.hedge_after, absl::Milliseconds(300));
  EXPECT_EQ(p.hedge_percentile, 99.5);

  auto plain = Parse(Sweep(""));
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ(plain->endpoints.at("sim:explorer").provider.hedge_after, absl::ZeroDuration());
  EXPECT_EQ(plain->endpoints.at("sim:explorer").provider.hedge_percentile, 0);
  // A different hedge is a different channel (workers key channels on the fingerprint).
  EXPECT_NE(Fingerprint(config->endpoints.at("sim:explorer")), Fingerprint(plain->endpoints.at("sim:explorer")));
}

TEST(HedgeConfigTest, NonsenseIsRefusedNamingTheField) {
  for (const char* bad : {"0", "-5", "abc", "1.5", "[1]"}) {
    auto config = Parse(Sweep(std::string("    hedge_after_ms: ") + bad + "\n"));
    ASSERT_FALSE(config.ok()) << bad;
    EXPECT_THAT(config.status().message(), HasSubstr("providers.sim.hedge_after_ms")) << bad;
  }
  auto late = Parse(Sweep("    timeout_s: 2\n    hedge_after_ms: 2000\n"));
  ASSERT_FALSE(late.ok());
  EXPECT_THAT(late.status().message(), HasSubstr("not below the provider's timeout"));
  for (const char* bad : {"95", "p", "p49", "p100", "p9x", "fast"}) {
    auto config = Parse(Sweep(std::string("    hedge_after: ") + bad + "\n"));
    ASSERT_FALSE(config.ok()) << bad;
    EXPECT_THAT(config.status().message(), HasSubstr("providers.sim.hedge_after")) << bad;
    EXPECT_THAT(config.status().message(), HasSubstr("p50 and p99.9")) << bad;
  }
}

TEST(HedgeCountingTest, AHedgedReplyIsCostedOncePerRequestSent) {
  ChatReply reply;
  reply.prompt_tokens = 100;
  reply.completion_tokens = 10;
  reply.retries = 1;
  reply.hedges = 1;
  CallCounters counters;
  CountReply(reply, counters);
  EXPECT_EQ(counters.prompt_tokens, 200);
  EXPECT_EQ(counters.completion_tokens, 20);
  EXPECT_EQ(counters.retries, 1);
  EXPECT_EQ(counters.hedges, 1);

  CallStats calls{{"generate:m", counters}, {"judge:m", CallCounters{}}};
  calls["judge:m"].prompt_tokens = 5;
  const Json json = CallStatsToJson(calls);
  EXPECT_EQ(json["generate:m"]["hedges"], 1);
  EXPECT_FALSE(json["judge:m"].contains("hedges"));  // summaries without hedging are unchanged
  EXPECT_EQ(CallStatsFromJson(json).at("generate:m").hedges, 1);
  const CallCosts costs = PriceCalls(calls, {{"m", ModelPrice{1.0, 2.0}}});
  EXPECT_DOUBLE_EQ(costs.by_key.at("generate:m"), (200 * 1.0 + 20 * 2.0) / 1e6);
}

}  // namespace
}  // namespace noveltygrid
