// The config's providers:, model routing and prices: sections (common/provider_yaml.h).
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/config.h"
#include "common/unit_settings.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/common/test_files.h"

namespace noveltygrid {
namespace {

using ::noveltygrid::testing_files::SharedData;
using ::testing::AllOf;
using ::testing::HasSubstr;

const std::string kPaperQuestions = SharedData("aidanbench/questions-paper-65.jsonl");

std::string Config(const std::string& models, const std::string& extra, const std::string& helpers = "") {
  return "models: " + models + "\ntemperatures: [0.7]\n" + helpers + "aidanbench:\n  questions: " + kPaperQuestions +
         "\n" + extra;
}

absl::StatusOr<SweepConfig> Parse(const std::string& text, std::map<std::string, std::string> env = {}) {
  return ParseSweepConfig(text, "examples/p.yaml", [env](const std::string& name) -> std::optional<std::string> {
    auto it = env.find(name);
    return it == env.end() ? std::nullopt : std::optional<std::string>(it->second);
  });
}

std::string Error(const std::string& text) { return std::string(Parse(text).status().message()); }

TEST(ProviderConfigTest, SimulatedModelsStayInProcessWithoutASimProvider) {
  auto config = Parse(Config("[sim:explorer]", ""));
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_TRUE(config->endpoints.empty());
}

TEST(ProviderConfigTest, KnownProviderNamesGetTheirDefaults) {
  auto config = Parse(Config("[openai:gpt-4o, 'openrouter:anthropic/claude-3.5-sonnet', 'ollama:llama3:8b']", ""));
  ASSERT_TRUE(config.ok()) << config.status();
  ASSERT_EQ(config->endpoints.size(), 3u);
  const ModelEndpoint& openai = config->endpoints.at("openai:gpt-4o");
  EXPECT_EQ(openai.remote_model, "gpt-4o");
  EXPECT_EQ(openai.provider.base_url, "https://api.openai.com/v1");
  EXPECT_EQ(openai.provider.api_key_env, "OPENAI_API_KEY");
  EXPECT_EQ(openai.provider.max_tokens_field, "max_completion_tokens");
  EXPECT_EQ(config->endpoints.at("openrouter:anthropic/claude-3.5-sonnet").remote_model, "anthropic/claude-3.5-sonnet");
  const ModelEndpoint& ollama = config->endpoints.at("ollama:llama3:8b");
  EXPECT_EQ(ollama.remote_model, "llama3:8b");  // only the first ':' separates the provider
  EXPECT_TRUE(ollama.provider.api_key_env.empty());
  EXPECT_EQ(ollama.provider.max_tokens_field, "max_tokens");
}

TEST(ProviderConfigTest, DeclaredProviderWithLimitsExtraBodyAndAMapModel) {
  auto config = Parse(Config("[{name: big, provider: local, model: Qwen/Qwen2.5-72B, extra_body: {top_k: 40}}]",
                             "providers:\n"
                             "  local:\n"
                             "    base_url: ${VLLM_URL}/v1/\n"
                             "    api_key_env: LOCAL_KEY\n"
                             "    max_in_flight: 32\n"
                             "    requests_per_minute: 600\n"
                             "    tokens_per_minute: 100000\n"
                             "    timeout_s: 30\n"
                             "    max_retries: 3\n"
                             "    embed_batch: 16\n"
                             "    extra_body: {top_p: 0.9, stop: ['</answer>']}\n"
                             "prices:\n"
                             "  big: {prompt: 0.5, completion: 1.5}\n"),
                      {{"VLLM_URL", "http://10.0.0.5:8000"}});
  ASSERT_TRUE(config.ok()) << config.status();
  const ModelEndpoint& big = config->endpoints.at("big");
  EXPECT_EQ(big.remote_model, "Qwen/Qwen2.5-72B");
  EXPECT_EQ(big.provider.name, "local");
  EXPECT_EQ(big.provider.base_url, "http://10.0.0.5:8000/v1");  // trailing slash dropped
  EXPECT_EQ(big.provider.api_key_env, "LOCAL_KEY");
  EXPECT_EQ(big.provider.limits.max_in_flight, 32);
  EXPECT_EQ(big.provider.limits.requests_per_minute, 600);
  EXPECT_EQ(big.provider.limits.tokens_per_minute, 100000);
  EXPECT_EQ(big.provider.timeout, absl::Seconds(30));
  EXPECT_EQ(big.provider.max_retries, 3);
  EXPECT_EQ(big.provider.embed_batch, 16);
  EXPECT_EQ(big.extra_body_json, R"({"top_p":0.9,"stop":["</answer>"],"top_k":40})");
  EXPECT_EQ(config->prices.at("big").prompt_per_million, 0.5);
  EXPECT_EQ(config->prices.at("big").completion_per_million, 1.5);
}

TEST(ProviderConfigTest, ASimProviderRoutesTheSimulatedFamilyWithoutChangingUnitIds) {
  const std::string in_process = Config("[sim:explorer]", "");
  const std::string over_http = Config("[sim:explorer]", "providers:\n  sim:\n    base_url: http://127.0.0.1:9/v1\n");
  auto a = Parse(in_process);
  auto b = Parse(over_http);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(b->endpoints.size(), 3u);  // the generator, sim:judge and lexical
  EXPECT_EQ(b->endpoints.at("lexical").remote_model, "lexical");
  EXPECT_EQ(AidanSettingsHash(MakeAidanSettings(*a)), AidanSettingsHash(MakeAidanSettings(*b)));
  // A different remote model does change what a unit computes.
  auto c = Parse(Config("[{name: sim:explorer, provider: sim, model: sim:steady}]",
                        "providers:\n  sim:\n    base_url: http://127.0.0.1:9/v1\n"));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_NE(AidanSettingsHash(MakeAidanSettings(*a)), AidanSettingsHash(MakeAidanSettings(*c)));
}

TEST(ProviderConfigTest, BadProviderSectionsAreRefusedClearly) {
  EXPECT_THAT(Error(Config("[acme:model-1]", "")),
              AllOf(HasSubstr("models[0]: unknown provider 'acme'"), HasSubstr("openai, openrouter")));
  EXPECT_THAT(Error(Config("[gpt4]", "")), HasSubstr("models[0]: 'gpt4' names no provider"));
  EXPECT_THAT(Error(Config("[acme:m]", "providers:\n  acme: {api_key_env: K}\n")),
              AllOf(HasSubstr("providers.acme.base_url: missing"), HasSubstr("OpenAI-compatible base URL")));
  EXPECT_THAT(Error(Config("[acme:m]", "providers:\n  acme: {base_url: 'ftp://x'}\n")),
              HasSubstr("providers.acme.base_url: 'ftp://x' is not an http(s) URL"));
  const std::string key_inline = Error(Config("[openai:gpt-4o]", "providers:\n  openai: {api_key: sk-abc123}\n"));
  EXPECT_THAT(key_inline, AllOf(HasSubstr("providers.openai.api_key: keys are never written in the config"),
                                HasSubstr("api_key_env")));
  EXPECT_THAT(key_inline, ::testing::Not(HasSubstr("sk-abc123")));
  EXPECT_THAT(Error(Config("[openai:gpt-4o]", "providers:\n  openai: {api_key_env: sk-abc}\n")),
              HasSubstr("is not an environment variable name"));
  EXPECT_THAT(Error(Config("[openai:gpt-4o]", "providers:\n  openai: {max_in_flight: -1}\n")),
              HasSubstr("providers.openai.max_in_flight"));
  EXPECT_THAT(Error(Config("[openai:gpt-4o]", "providers:\n  openai: {extra_body: {messages: []}}\n")),
              HasSubstr("providers.openai.extra_body.messages: is set by NoveltyGrid"));
  EXPECT_THAT(Error(Config("[openai:gpt-4o]", "providers:\n  openai: {max_tokens_field: max_new_tokens}\n")),
              HasSubstr("expected max_tokens or max_completion_tokens"));
  EXPECT_THAT(Error(Config("[openai:gpt-4o]", "providers:\n  openai: {base_ur: 'http://x'}\n")), HasSubstr("base_ur"));
  EXPECT_THAT(Error(Config("[openai:gpt-4o]", "prices:\n  openai:gpt-5: {prompt: 1}\n")),
              AllOf(HasSubstr("prices.openai:gpt-5: is not a model of this sweep"), HasSubstr("openai:gpt-4o")));
  EXPECT_THAT(Error(Config("[{name: x, model: m}]", "")),
              HasSubstr("models[0].provider: missing while model is given"));
  // What would make results lie about what was sent, or leak a key, is refused.
  EXPECT_THAT(Error(Config("[openai:gpt-4o]", "providers:\n  openai: {extra_body: {temperature: 0}}\n")),
              HasSubstr("providers.openai.extra_body.temperature: is set by NoveltyGrid"));
  EXPECT_THAT(Error(Config("[acme:m]", "providers:\n  acme: {base_url: 'http://user:pw@host/v1'}\n")),
              AllOf(HasSubstr("holds credentials"), ::testing::Not(HasSubstr("pw@"))));
  EXPECT_THAT(
      std::string(Parse(Config("[openai:gpt-4o]", "providers:\n  openai: {api_key_env: '${K}'}\n"), {{"K", "gsk_abc"}})
                      .status()
                      .message()),
      AllOf(HasSubstr("api_key_env: is expanded from the environment"), ::testing::Not(HasSubstr("gsk_abc"))));
  EXPECT_THAT(Error(Config("[openai:gpt-4o]", "providers:\n  openai: {api_key_env: NOVELTYGRID_TOKEN}\n")),
              HasSubstr("names one of NoveltyGrid's own variables"));
  EXPECT_THAT(Error(Config("[{name: openai:gpt-4o, dimensions: 8}]", "")),
              HasSubstr("models[0].dimensions: applies to embedders only"));
  EXPECT_THAT(Error(Config("[sim:explorer]", "", "embedder: {name: lexical, dimensions: 64}\n")),
              HasSubstr("runs in-process, where extra_body, dimensions"));
  EXPECT_THAT(Error(Config("[sim:explorer]", "", "embedder: {name: openai:e3, extra_body: {user: x}}\n")),
              HasSubstr("embedder.extra_body: applies to chat models only"));
}

TEST(ProviderConfigTest, JudgeAndEmbedderAcceptTheMapForm) {
  auto config = Parse(Config("[sim:explorer]", "",
                             "judge: openai:o3-mini\n"
                             "embedder: {name: openai:text-embedding-3-large, dimensions: 1024}\n"));
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->judge, "openai:o3-mini");
  EXPECT_EQ(config->embedder, "openai:text-embedding-3-large");
  EXPECT_EQ(config->endpoints.at("openai:text-embedding-3-large").dimensions, 1024);
  EXPECT_EQ(config->endpoints.at("openai:text-embedding-3-large").remote_model, "text-embedding-3-large");
  EXPECT_EQ(config->endpoints.count("sim:explorer"), 0u);
}

TEST(ProviderConfigTest, ReasoningEffortFromTheMapOrTheReferenceSuffix) {
  auto config =
      Parse(Config("['openrouter:openai/o3-mini:high', {name: o4, provider: openai, model: o4-mini, "
                   "reasoning_effort: low, temperature: omit}, openai:gpt-4o]",
                   ""));
  ASSERT_TRUE(config.ok()) << config.status();
  const ModelEndpoint& suffixed = config->endpoints.at("openrouter:openai/o3-mini:high");
  EXPECT_EQ(suffixed.remote_model, "openai/o3-mini");  // the suffix is not sent as part of the model name
  EXPECT_EQ(suffixed.reasoning_effort, "high");
  EXPECT_FALSE(suffixed.omit_temperature);
  const ModelEndpoint& mapped = config->endpoints.at("o4");
  EXPECT_EQ(mapped.reasoning_effort, "low");
  EXPECT_TRUE(mapped.omit_temperature);
  EXPECT_EQ(config->endpoints.at("openai:gpt-4o").reasoning_effort, "");
  EXPECT_EQ(ModelsWithoutTemperature(*config), (std::vector<std::string>{"o4"}));
  // A tag that is not an effort stays part of the model name.
  auto ollama = Parse(Config("['ollama:llama3:8b']", ""));
  ASSERT_TRUE(ollama.ok());
  EXPECT_EQ(ollama->endpoints.at("ollama:llama3:8b").remote_model, "llama3:8b");
  EXPECT_EQ(ollama->endpoints.at("ollama:llama3:8b").reasoning_effort, "");
  // A provider's model name given as `model:` is sent as written, whatever it ends with.
  auto named = Parse(Config("[{name: local-high, provider: vllm, model: 'qwen:high'}]", ""));
  ASSERT_TRUE(named.ok()) << named.status();
  EXPECT_EQ(named->endpoints.at("local-high").remote_model, "qwen:high");
  EXPECT_EQ(named->endpoints.at("local-high").reasoning_effort, "");

  // The effort and an omitted temperature are settings of the unit: they change its id, and only then.
  auto plain = Parse(Config("[openai:o3]", ""));
  auto high = Parse(Config("['openai:o3:high']", ""));
  auto omitted = Parse(Config("[{name: openai:o3, temperature: omit}]", ""));
  ASSERT_TRUE(plain.ok() && high.ok() && omitted.ok()) << omitted.status();
  EXPECT_NE(AidanSettingsHash(MakeAidanSettings(*plain)), AidanSettingsHash(MakeAidanSettings(*high)));
  EXPECT_NE(AidanSettingsHash(MakeAidanSettings(*plain)), AidanSettingsHash(MakeAidanSettings(*omitted)));
}

TEST(ProviderConfigTest, ReasoningSettingsThatWouldMisreportARunAreRefused) {
  EXPECT_THAT(Error(Config("[{name: openai:o3, reasoning_effort: extreme}]", "")),
              AllOf(HasSubstr("models[0].reasoning_effort: 'extreme'"), HasSubstr("low, medium or high")));
  EXPECT_THAT(Error(Config("[{name: 'openai:o3:high', reasoning_effort: low}]", "")),
              HasSubstr("ends in :high but reasoning_effort is low"));
  EXPECT_THAT(Error(Config("['openai:o3:high']", "providers:\n  openai: {extra_body: {reasoning_effort: low}}\n")),
              HasSubstr("extra_body sets one too"));
  EXPECT_THAT(Error(Config("[{name: openai:o3, temperature: 0}]", "")),
              AllOf(HasSubstr("models[0].temperature: '0'"), HasSubstr("expected omit")));
  EXPECT_THAT(Error(Config("[sim:explorer]", "", "embedder: {name: openai:e3, temperature: omit}\n")),
              HasSubstr("embedder: 'openai:e3' has reasoning_effort or temperature: omit"));
  EXPECT_THAT(Error(Config("[{name: sim:explorer, reasoning_effort: high}]", "")),
              HasSubstr("runs in-process, where extra_body, dimensions, reasoning_effort"));
  // Several temperatures for a model that is never sent one: the ablation would be noise, so it is refused.
  const std::string ablation =
      "models: [{name: openai:o3, temperature: omit}, openai:gpt-4o]\n"
      "temperatures: [0.3, 0.7, 1.0]\naidanbench:\n  questions: " +
      kPaperQuestions + "\n";
  EXPECT_THAT(Error(ablation), AllOf(HasSubstr("models[0].temperature: 'openai:o3' is declared temperature: omit"),
                                     HasSubstr("aidanbench sweeps 3 temperatures")));
  const std::string one_temperature =
      "models: [{name: openai:o3, temperature: omit}]\ntemperatures: [1.0]\n"
      "aidanbench:\n  questions: " +
      kPaperQuestions + "\n";
  EXPECT_TRUE(Parse(one_temperature).ok()) << Parse(one_temperature).status();
}

TEST(ProviderConfigTest, TheAnthropicApiServesChatRolesWithinItsLimits) {
  auto config = Parse(Config("[anthropic:claude-sonnet-4-5]", "providers:\n  anthropic: {prompt_cache: true}\n"));
  ASSERT_TRUE(config.ok()) << config.status();
  const ModelEndpoint& claude = config->endpoints.at("anthropic:claude-sonnet-4-5");
  EXPECT_EQ(claude.provider.api, kApiAnthropic);
  EXPECT_EQ(claude.provider.base_url, "https://api.anthropic.com/v1");
  EXPECT_EQ(claude.provider.api_key_env, "ANTHROPIC_API_KEY");
  EXPECT_TRUE(claude.provider.prompt_cache);
  EXPECT_THAT(Error(Config("[openai:gpt-4o]", "providers:\n  openai: {prompt_cache: true}\n")),
              HasSubstr("providers.openai.prompt_cache: applies to api: anthropic only"));
  EXPECT_THAT(Error(Config("[lab:m]", "providers:\n  lab: {base_url: 'http://x/v1', api: gemini}\n")),
              HasSubstr("providers.lab.api: 'gemini'"));
  EXPECT_THAT(Error(Config("[sim:explorer]", "", "embedder: anthropic:voyage\n")),
              HasSubstr("embedder: 'anthropic:voyage' is served by the Messages API"));
  EXPECT_THAT(Error(Config("['anthropic:claude:high']", "")), HasSubstr("which the Messages API has not"));
  const std::string hot =
      "models: [anthropic:claude]\ntemperatures: [0.7, 1.5]\naidanbench:\n  questions: " + kPaperQuestions + "\n";
  EXPECT_THAT(Error(hot), AllOf(HasSubstr("models[0]: 'anthropic:claude' is served by the Messages API, whose "
                                          "temperature ends at 1"),
                                HasSubstr("1.5")));
  const std::string novelty =
      "models: [{name: sim:explorer, provider: claude}]\ntemperatures: [1.0]\n"
      "providers:\n  claude: {base_url: 'http://127.0.0.1:9/v1', api: anthropic}\nnoveltybench:\n  prompts: " +
      SharedData("noveltybench/curated.jsonl") + "\n";
  EXPECT_THAT(Error(novelty), HasSubstr("noveltybench: {ask_n: false}"));
  EXPECT_TRUE(Parse(novelty + "  modes: [in-context]\n").ok()) << "in-context asks one sample per request";
  EXPECT_THAT(Error(Config("[anthropic:claude]", "providers:\n  anthropic: {extra_body: {metadata: {user_id: x}}}\n")),
              HasSubstr("extra_body sets metadata, which NoveltyGrid sets for every Messages API request"));
  EXPECT_TRUE(Parse(novelty + "  ask_n: false\n").ok()) << Parse(novelty + "  ask_n: false\n").status();
}

// The README's realistic sweep loads as written, each model routed to its vendor's API.
TEST(ProviderConfigTest, TheMixedProvidersExampleLoads) {
  absl::StatusOr<SweepConfig> config = LoadSweepConfig(NOVELTYGRID_SOURCE_DIR "/examples/mixed-providers.yaml");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->endpoints.at("openai:o4-mini:high").reasoning_effort, "high");
  EXPECT_EQ(config->endpoints.at("openai:o4-mini:high").remote_model, "o4-mini");
  EXPECT_EQ(config->endpoints.at("claude-sonnet-4-5").provider.api, kApiAnthropic);
  EXPECT_TRUE(config->endpoints.at("claude-sonnet-4-5").provider.prompt_cache);
  EXPECT_EQ(config->endpoints.at("qwen2.5-72b-local").provider.base_url, "http://10.0.0.5:8000/v1");
  EXPECT_EQ(config->prices.size(), 5u);
}

}  // namespace
}  // namespace noveltygrid
