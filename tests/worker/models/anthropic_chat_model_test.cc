// AnthropicChatModel: the Messages API body (system, turns, the cached prefix, seed, temperature) and
// the reply (text blocks, usage with cache counts).
#include "worker/models/anthropic_chat_model.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim_test_util.h"
#include "tests/worker/models/scripted_channel.h"

namespace noveltygrid {
namespace {

using modeltest::ScriptedChannel;
using simtest::QueueExecutor;
using ::testing::HasSubstr;

ModelEndpoint Claude(bool prompt_cache) {
  ModelEndpoint e;
  e.name = "anthropic:claude";
  e.remote_model = "claude-sonnet-4-5";
  e.provider.name = "anthropic";
  e.provider.api = kApiAnthropic;
  e.provider.prompt_cache = prompt_cache;
  e.extra_body_json = R"({"top_k":5})";
  return e;
}

ChatRequest Loop() {
  ChatRequest request;
  const std::string stable = "Answer the question: uses of a brick?\n";
  request.messages = {{"system", "be brief"},
                      {"user", stable + "<previous_answers>a wall</previous_answers>", stable.size()}};
  request.temperature = 0.7;
  request.max_tokens = 300;
  request.seed = 42;
  return request;
}

TEST(AnthropicChatModelTest, RequestBodyMarksTheStablePrefixForTheCache) {
  ScriptedChannel channel;
  QueueExecutor executor;
  auto model = AnthropicChatModel::Create(Claude(true), &channel, &executor);
  ASSERT_TRUE(model.ok()) << model.status();
  const Json body = (*model)->RequestBody(Loop());
  EXPECT_EQ(body["model"], "claude-sonnet-4-5");
  EXPECT_EQ(body["max_tokens"], 300);
  EXPECT_EQ(body["system"], "be brief");
  EXPECT_EQ(body["temperature"].get<double>(), 0.7);
  EXPECT_EQ(body["metadata"]["user_id"], "noveltygrid-seed-42");
  EXPECT_EQ(body["top_k"], 5);
  ASSERT_EQ(body["messages"].size(), 1u);
  const Json& content = body["messages"][0]["content"];
  ASSERT_EQ(content.size(), 2u);
  EXPECT_EQ(content[0]["text"], "Answer the question: uses of a brick?\n");
  EXPECT_EQ(content[0]["cache_control"], (Json{{"type", "ephemeral"}}));
  EXPECT_EQ(content[1]["text"], "<previous_answers>a wall</previous_answers>");
  EXPECT_FALSE(content[1].contains("cache_control"));

  // Without prompt_cache, or with temperature omitted: plain content, no temperature.
  ModelEndpoint plain = Claude(false);
  plain.omit_temperature = true;
  model = AnthropicChatModel::Create(plain, &channel, &executor);
  ASSERT_TRUE(model.ok());
  const Json uncached = (*model)->RequestBody(Loop());
  EXPECT_TRUE(uncached["messages"][0]["content"].is_string());
  EXPECT_FALSE(uncached.contains("temperature"));
}

TEST(AnthropicChatModelTest, RepliesGiveTheTextAndEveryTokenCount) {
  const Json reply = {
      {"type", "message"},
      {"content", {{{"type", "thinking"}, {"thinking", "hmm"}}, {{"type", "text"}, {"text", "a path"}}}},
      {"stop_reason", "end_turn"},
      {"usage",
       {{"input_tokens", 10},
        {"output_tokens", 4},
        {"cache_creation_input_tokens", 30},
        {"cache_read_input_tokens", 60}}}};
  absl::StatusOr<ChatReply> parsed = AnthropicChatModel::ParseReply(reply);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->choices, std::vector<std::string>{"a path"});
  EXPECT_EQ(parsed->prompt_tokens, 100);  // everything the prompt held, cached or not
  EXPECT_EQ(parsed->cache_write_tokens, 30);
  EXPECT_EQ(parsed->cache_read_tokens, 60);
  EXPECT_EQ(parsed->completion_tokens, 4);
  CallCounters counters;
  CountReply(*parsed, counters);
  EXPECT_EQ(counters.cache_read_tokens, 60);
  EXPECT_EQ(counters.cache_write_tokens, 30);

  EXPECT_THAT(AnthropicChatModel::ParseReply(Json{{"content", Json::array()}, {"stop_reason", "max_tokens"}})
                  .status()
                  .message(),
              HasSubstr("no text block (stop_reason \"max_tokens\")"));
  EXPECT_THAT(AnthropicChatModel::ParseReply(Json{{"id", "x"}}).status().message(), HasSubstr("no \"content\""));
}

TEST(AnthropicChatModelTest, CompletePostsToMessagesAndRefusesN) {
  ScriptedChannel channel;
  QueueExecutor executor;
  auto model = AnthropicChatModel::Create(Claude(false), &channel, &executor);
  ASSERT_TRUE(model.ok());
  std::optional<absl::StatusOr<ChatReply>> got;
  (*model)->Complete(Loop(), [&got](absl::StatusOr<ChatReply> r) { got = std::move(r); });
  ASSERT_EQ(channel.calls.size(), 1u);
  EXPECT_EQ(channel.calls[0].path, "/messages");
  std::move(channel.calls[0].done)(Json{{"content", {{{"type", "text"}, {"text", "ok"}}}}}, CallInfo{2});
  ASSERT_TRUE(got.has_value() && got->ok());
  EXPECT_EQ((*got)->retries, 1);

  ChatRequest many = Loop();
  many.n = 3;
  got.reset();
  (*model)->Complete(many, [&got](absl::StatusOr<ChatReply> r) { got = std::move(r); });
  EXPECT_EQ(channel.calls.size(), 1u);  // nothing sent
  EXPECT_FALSE(got.has_value());        // delivered on the executor, never inline
  executor.RunAll();
  ASSERT_TRUE(got.has_value());
  EXPECT_THAT(got->status().message(), HasSubstr("no n"));
}

}  // namespace
}  // namespace noveltygrid
