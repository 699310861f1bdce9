// OpenAiChatModel against a scripted ProviderChannel: request bodies and strict reply parsing (the
// embedder has openai_embedder_test.cc).
#include "worker/models/openai_models.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim_test_util.h"
#include "tests/worker/models/scripted_channel.h"
#include "worker/http/retry_policy.h"

namespace noveltygrid {
namespace {

using modeltest::ScriptedChannel;
using modeltest::TestEndpoint;
using simtest::QueueExecutor;
using ::testing::HasSubstr;

Json Completion(std::vector<std::pair<int, std::string>> choices) {
  Json c = Json::array();
  for (auto& [index, text] : choices)
    c.push_back(Json{{"index", index}, {"message", {{"role", "assistant"}, {"content", text}}}});
  return Json{{"choices", c}, {"usage", {{"prompt_tokens", 11}, {"completion_tokens", 7}}}};
}

TEST(OpenAiChatModelTest, RequestBodyCarriesEverySamplingParameterAndTheExtraFields) {
  ScriptedChannel channel;
  auto model = OpenAiChatModel::Create(TestEndpoint("max_completion_tokens"), &channel);
  ASSERT_TRUE(model.ok()) << model.status();
  ChatRequest request;
  request.messages = {{"system", "be brief"}, {"user", "list uses of a brick"}};
  request.temperature = 0.7;
  request.max_tokens = 321;
  request.seed = 42;
  request.n = 3;
  const Json body = Json::parse((*model)->RequestBody(request));
  EXPECT_EQ(body["model"], "org/big-model");
  EXPECT_EQ(body["messages"][1]["content"], "list uses of a brick");
  EXPECT_EQ(body["temperature"].get<double>(), 0.7);
  EXPECT_EQ(body["max_completion_tokens"], 321);
  EXPECT_FALSE(body.contains("max_tokens"));
  EXPECT_EQ(body["seed"], 42);
  EXPECT_EQ(body["n"], 3);
  EXPECT_EQ(body["top_p"].get<double>(), 0.5);
  request.n = 1;
  EXPECT_FALSE(Json::parse((*model)->RequestBody(request)).contains("n"));  // the default is not sent
}

TEST(OpenAiChatModelTest, RepliesAreParsedStrictly) {
  auto ok = OpenAiChatModel::ParseReply(Completion({{1, "second"}, {0, "first"}}).dump(), 2);
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(ok->choices, (std::vector<std::string>{"first", "second"}));  // by index, not order
  EXPECT_EQ(ok->prompt_tokens, 11);
  EXPECT_EQ(ok->completion_tokens, 7);

  EXPECT_THAT(OpenAiChatModel::ParseReply(Completion({{0, "only"}}).dump(), 3).status().message(),
              HasSubstr("1 choices for n=3"));
  EXPECT_THAT(OpenAiChatModel::ParseReply(Json{{"id", "x"}}.dump(), 1).status().message(), HasSubstr("no \"choices\""));
  Json refusal = {{"choices", {{{"index", 0}, {"message", {{"content", nullptr}, {"refusal", "I can't"}}}}}}};
  EXPECT_THAT(OpenAiChatModel::ParseReply(refusal.dump(), 1).status().message(), HasSubstr("refused: I can't"));
  EXPECT_THAT(OpenAiChatModel::ParseReply(Completion({{0, "a"}, {0, "b"}}).dump(), 2).status().message(),
              HasSubstr("repeated"));
}

// Token counts feed costs, budgets and provider limits: a negative or absurd one reads as 0 (found by
// tests/fuzz/provider_reply_fuzz: "prompt_tokens": -5 was passed on as is).
TEST(OpenAiChatModelTest, UsageIsNeverNegativeNorAbsurd) {
  Json reply = Completion({{0, "a"}});
  reply["usage"] = {{"prompt_tokens", -5}, {"completion_tokens", INT64_MAX}};
  absl::StatusOr<ChatReply> parsed = OpenAiChatModel::ParseReply(reply.dump(), 1);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->prompt_tokens, 0);
  EXPECT_EQ(parsed->completion_tokens, 0);
  reply["usage"] = {{"prompt_tokens", kMaxUsageTokens}, {"completion_tokens", 3}};
  parsed = OpenAiChatModel::ParseReply(reply.dump(), 1);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->prompt_tokens, kMaxUsageTokens);
  EXPECT_EQ(parsed->completion_tokens, 3);

  int64_t tokens = 1;
  const char* embeddings = R"({"data":[{"index":0,"embedding":[1.0,2.0]}],"usage":{"prompt_tokens":-1}})";
  ASSERT_TRUE(OpenAiEmbedder::ParseReply(embeddings, 1, &tokens).ok());
  EXPECT_EQ(tokens, 0);
}

// A 10 MB answer is a clear error of the call (the unit then ends with it), not an answer cut short;
// one of exactly the limit is an answer.
TEST(OpenAiChatModelTest, AnAnswerOverTheLimitIsAnErrorNotAnAnswer) {
  const std::string huge(10 << 20, 'a');
  absl::StatusOr<ChatReply> refused = OpenAiChatModel::ParseReply(Completion({{0, huge}}).dump(), 1);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument) << refused.status();
  EXPECT_THAT(refused.status().message(), HasSubstr("choice 0 holds 10485760 bytes of text, more than the 1048576"));
  const std::string largest(kMaxAnswerBytes, 'a');
  absl::StatusOr<ChatReply> kept = OpenAiChatModel::ParseReply(Completion({{0, largest}}).dump(), 1);
  ASSERT_TRUE(kept.ok()) << kept.status();
  EXPECT_EQ(kept->choices.front().size(), kMaxAnswerBytes);
}

TEST(OpenAiChatModelTest, CompleteReportsRetriesAndProviderErrors) {
  QueueExecutor executor;
  ScriptedChannel channel;
  auto model = OpenAiChatModel::Create(TestEndpoint(), &channel);
  ASSERT_TRUE(model.ok());
  std::optional<absl::StatusOr<ChatReply>> first, second;
  (*model)->Complete(ChatRequest{{{"user", "q"}}}, [&](absl::StatusOr<ChatReply> r) { first = std::move(r); });
  (*model)->Complete(ChatRequest{{{"user", "q"}}}, [&](absl::StatusOr<ChatReply> r) { second = std::move(r); });
  ASSERT_EQ(channel.calls.size(), 2u);
  EXPECT_EQ(channel.calls[0].path, "/chat/completions");
  std::move(channel.calls[0].done)(Completion({{0, "answer"}}), CallInfo{3});
  std::move(channel.calls[1].done)(absl::UnauthenticatedError("provider 'local': HTTP 401: bad key"), CallInfo{1});
  ASSERT_TRUE(first.has_value() && first->ok());
  EXPECT_EQ((*first)->choices.front(), "answer");
  EXPECT_EQ((*first)->retries, 2);
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->status().code(), absl::StatusCode::kUnauthenticated);
}

TEST(OpenAiChatModelTest, ExtraBodyMustBeAnObject) {
  ScriptedChannel channel;
  ModelEndpoint e = TestEndpoint();
  e.extra_body_json = "[1]";
  EXPECT_EQ(OpenAiChatModel::Create(e, &channel).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(OpenAiChatModelTest, ReasoningEffortIsSentAsEachProviderExpectsAndTemperatureCanBeOmitted) {
  ScriptedChannel channel;
  ChatRequest request;
  request.messages = {{"user", "list uses of a brick"}};
  request.temperature = 0.7;
  ModelEndpoint openai = TestEndpoint();
  openai.reasoning_effort = "high";
  openai.omit_temperature = true;
  auto model = OpenAiChatModel::Create(openai, &channel);
  ASSERT_TRUE(model.ok()) << model.status();
  Json body = Json::parse((*model)->RequestBody(request));
  EXPECT_EQ(body["reasoning_effort"], "high");
  EXPECT_FALSE(body.contains("reasoning"));
  EXPECT_FALSE(body.contains("temperature"));

  ModelEndpoint openrouter = TestEndpoint();
  openrouter.provider.name = "router";
  openrouter.provider.base_url = "https://openrouter.ai/api/v1";
  openrouter.reasoning_effort = "low";
  model = OpenAiChatModel::Create(openrouter, &channel);
  ASSERT_TRUE(model.ok()) << model.status();
  body = Json::parse((*model)->RequestBody(request));
  EXPECT_EQ(body["reasoning"], (Json{{"effort", "low"}}));
  EXPECT_FALSE(body.contains("reasoning_effort"));
  EXPECT_EQ(body["temperature"].get<double>(), 0.7);

  model = OpenAiChatModel::Create(TestEndpoint(), &channel);  // no effort: neither field
  body = Json::parse((*model)->RequestBody(request));
  EXPECT_FALSE(body.contains("reasoning") || body.contains("reasoning_effort"));
}

TEST(OpenAiChatModelTest, ReasoningTokensAreReadFromEitherPlace) {
  Json reply = Completion({{0, "a"}});
  reply["usage"]["completion_tokens_details"] = {{"reasoning_tokens", 5}, {"audio_tokens", 0}};
  absl::StatusOr<ChatReply> parsed = OpenAiChatModel::ParseReply(reply.dump(), 1);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->reasoning_tokens, 5);
  EXPECT_EQ(parsed->completion_tokens, 7);
  reply["usage"].erase("completion_tokens_details");
  reply["usage"]["reasoning_tokens"] = 3;
  EXPECT_EQ(OpenAiChatModel::ParseReply(reply.dump(), 1)->reasoning_tokens, 3);
  reply["usage"]["reasoning_tokens"] = -3;
  EXPECT_EQ(OpenAiChatModel::ParseReply(reply.dump(), 1)->reasoning_tokens, 0);
  EXPECT_EQ(OpenAiChatModel::ParseReply(Completion({{0, "a"}}).dump(), 1)->reasoning_tokens, 0);

  CallCounters counters;
  ChatReply counted;
  counted.prompt_tokens = 2;
  counted.completion_tokens = 9;
  counted.reasoning_tokens = 7;
  counted.retries = 1;
  CountReply(counted, counters);
  EXPECT_EQ(counters.reasoning_tokens, 7);
  EXPECT_EQ(counters.completion_tokens, 9);
  EXPECT_EQ(ReasoningShare(counted, 0, 3) + ReasoningShare(counted, 1, 3) + ReasoningShare(counted, 2, 3), 7);
  EXPECT_EQ(ReasoningShare(counted, 0, 3), 3);
}

}  // namespace
}  // namespace noveltygrid
