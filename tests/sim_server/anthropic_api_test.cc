// serve-sim's Anthropic Messages route over real loopback HTTP: the same texts as the OpenAI route for
// the same conversation, Anthropic's reply and error shapes, prompt-cache accounting (on a fake clock),
// its headers, API key and injected faults.
#include <algorithm>
#include <vector>

#include "tests/sim_server/sim_server_fixture.h"

namespace noveltygrid::sim_server_testing {
namespace {

constexpr char kSystem[] = "You are a careful assistant who answers briefly.";  // 8 words
constexpr char kUser[] = "Name one unusual use for a brick.";                   // 7 words
constexpr int kSystemWords = 8;
constexpr int kUserWords = 7;

const httplib::Headers kVersion = {{"anthropic-version", "2023-06-01"}};

json TextBlock(const std::string& text, bool cache = false) {
  json block = {{"type", "text"}, {"text", text}};
  if (cache) block["cache_control"] = {{"type", "ephemeral"}};
  return block;
}

// An Anthropic request: `system` as one cached text block when `cache_system`.
json MessagesBody(const std::string& model, const std::string& user, bool cache_system = false) {
  json body = {{"model", model},
               {"max_tokens", 200},
               {"temperature", 0.7},
               {"messages", {{{"role", "user"}, {"content", user}}}}};
  body["system"] = cache_system ? json::array({TextBlock(kSystem, true)}) : json(kSystem);
  return body;
}

// The OpenAI request for the same conversation.
json ChatEquivalent(const std::string& model, const std::string& user) {
  return {{"model", model},
          {"max_tokens", 200},
          {"temperature", 0.7},
          {"messages", {{{"role", "system"}, {"content", kSystem}}, {{"role", "user"}, {"content", user}}}}};
}

void ExpectAnthropicError(const httplib::Result& result, int status, const std::string& type) {
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, status) << result->body;
  json body = Parse(result);
  EXPECT_EQ(body["type"], "error") << result->body;
  EXPECT_EQ(body["error"]["type"], type) << result->body;
  EXPECT_TRUE(body["error"]["message"].is_string()) << result->body;
}

TEST(AnthropicApi, AnswersTheSameTextAsTheOpenAiRoute) {
  Running sim;
  for (const std::string model : {"sim:explorer", "steady", "sim:judge"}) {
    json anthropic = Parse(sim.Post("/v1/messages", MessagesBody(model, kUser).dump(), kVersion));
    json openai = Parse(sim.Post("/v1/chat/completions", ChatEquivalent(model, kUser).dump()));
    ASSERT_EQ(anthropic["content"].size(), 1u) << anthropic.dump();
    EXPECT_EQ(anthropic["content"][0]["type"], "text");
    EXPECT_EQ(anthropic["content"][0]["text"], openai["choices"][0]["message"]["content"]) << model;
    EXPECT_EQ(anthropic["model"], openai["model"]);
    EXPECT_EQ(anthropic["usage"]["input_tokens"], openai["usage"]["prompt_tokens"]);
    EXPECT_EQ(anthropic["usage"]["output_tokens"], openai["usage"]["completion_tokens"]);
  }
}

TEST(AnthropicApi, SameTextForBlocksSeedsAndMultiTurnConversations) {
  Running sim;
  json anthropic = {{"model", "sim:chaotic"},
                    {"max_tokens", 50},
                    {"temperature", 0.3},
                    {"seed", 11},
                    {"metadata", {{"user_id", "sweep-7"}}},
                    {"stop_sequences", {"\n\nHuman:"}},
                    {"system", {TextBlock("Be brief."), TextBlock(kSystem, true)}},
                    {"messages",
                     {{{"role", "user"}, {"content", {TextBlock(kUser), TextBlock("Answer in one line.", true)}}},
                      {{"role", "assistant"}, {"content", "Use it as a doorstop."}},
                      {{"role", "user"}, {"content", "Another one."}}}}};
  json openai = {{"model", "sim:chaotic"},
                 {"max_tokens", 50},
                 {"temperature", 0.3},
                 {"seed", 11},
                 {"messages",
                  // A message's blocks are one text to the model: concatenated, no separator.
                  {{{"role", "system"}, {"content", std::string("Be brief.") + kSystem}},
                   {{"role", "user"}, {"content", std::string(kUser) + "Answer in one line."}},
                   {{"role", "assistant"}, {"content", "Use it as a doorstop."}},
                   {{"role", "user"}, {"content", "Another one."}}}}};
  json a = Parse(sim.Post("/v1/messages", anthropic.dump(), kVersion));
  json o = Parse(sim.Post("/v1/chat/completions", openai.dump()));
  EXPECT_EQ(a["content"][0]["text"], o["choices"][0]["message"]["content"]) << a.dump();
  const json& usage = a["usage"];
  EXPECT_EQ(usage["input_tokens"].get<int>() + usage["cache_creation_input_tokens"].get<int>() +
                usage["cache_read_input_tokens"].get<int>(),
            o["usage"]["prompt_tokens"].get<int>());
  // Another seed: another text (the route passes the seed through).
  anthropic["seed"] = 12;
  EXPECT_NE(Parse(sim.Post("/v1/messages", anthropic.dump(), kVersion))["content"][0]["text"], a["content"][0]["text"]);
  // NoveltyGrid's client sends its seed as metadata.user_id (the real API has no seed field).
  anthropic.erase("seed");
  anthropic["metadata"]["user_id"] = "noveltygrid-seed-11";
  EXPECT_EQ(Parse(sim.Post("/v1/messages", anthropic.dump(), kVersion))["content"][0]["text"], a["content"][0]["text"]);
}

TEST(AnthropicApi, ReplyHasAnthropicShapeAndIsDeterministic) {
  Running sim;
  httplib::Result first = sim.Post("/v1/messages", MessagesBody("sim:explorer", kUser).dump(), kVersion);
  ASSERT_TRUE(first);
  ASSERT_EQ(first->status, 200) << first->body;
  json reply = Parse(first);
  EXPECT_TRUE(reply["id"].get<std::string>().starts_with("msg_")) << reply.dump();
  EXPECT_EQ(reply["type"], "message");
  EXPECT_EQ(reply["role"], "assistant");
  EXPECT_EQ(reply["model"], "sim:explorer");
  EXPECT_EQ(reply["stop_reason"], "end_turn");
  EXPECT_TRUE(reply["stop_sequence"].is_null());
  EXPECT_EQ(reply["usage"], (json{{"input_tokens", kSystemWords + kUserWords},
                                  {"cache_creation_input_tokens", 0},
                                  {"cache_read_input_tokens", 0},
                                  {"output_tokens", reply["usage"]["output_tokens"]}}));
  EXPECT_GT(reply["usage"]["output_tokens"].get<int>(), 0);
  EXPECT_EQ(sim.Post("/v1/messages", MessagesBody("sim:explorer", kUser).dump(), kVersion)->body, first->body);
  EXPECT_EQ(Parse(sim.Get("/stats"))["messages"], 2);
}

TEST(AnthropicApi, StopReasonIsMaxTokensWhenTheTextUsesThemAll) {
  Running sim;
  json body = MessagesBody("sim:explorer", kUser);
  body["max_tokens"] = 1;
  json reply = Parse(sim.Post("/v1/messages", body.dump(), kVersion));
  EXPECT_EQ(reply["usage"]["output_tokens"], 1) << reply.dump();
  EXPECT_EQ(reply["stop_reason"], "max_tokens");
}

// (input_tokens, cache_creation_input_tokens, cache_read_input_tokens) of a reply.
std::vector<int> CacheUsage(const json& reply) {
  const json& usage = reply["usage"];
  return {usage.value("input_tokens", -1), usage.value("cache_creation_input_tokens", -1),
          usage.value("cache_read_input_tokens", -1)};
}

TEST(AnthropicApi, CacheWritesOnceThenReadsTheSamePrefix) {
  FakeClock clock;
  Running sim({}, &clock);
  auto send = [&](const json& body) { return CacheUsage(Parse(sim.Post("/v1/messages", body.dump(), kVersion))); };
  const json cached = MessagesBody("sim:explorer", kUser, true);
  EXPECT_EQ(send(cached), (std::vector<int>{kUserWords, kSystemWords, 0}));
  EXPECT_EQ(send(cached), (std::vector<int>{kUserWords, 0, kSystemWords}));
  // Another question after the same cached system prompt reads it too.
  EXPECT_EQ(send(MessagesBody("sim:explorer", "Name two uses.", true)), (std::vector<int>{3, 0, kSystemWords}));
  // The cache is per model.
  EXPECT_EQ(send(MessagesBody("sim:steady", kUser, true)), (std::vector<int>{kUserWords, kSystemWords, 0}));
  // No cache_control: nothing is cached or read.
  EXPECT_EQ(send(MessagesBody("sim:explorer", kUser)), (std::vector<int>{kSystemWords + kUserWords, 0, 0}));
}

TEST(AnthropicApi, LongestCachedBreakpointIsReadAndTheRestWritten) {
  FakeClock clock;
  Running sim({}, &clock);
  auto send = [&](const json& body) { return CacheUsage(Parse(sim.Post("/v1/messages", body.dump(), kVersion))); };
  auto turn = [](const std::string& user) {
    json body = MessagesBody("sim:explorer", "", true);
    body["messages"] = {{{"role", "user"}, {"content", {TextBlock(user, true)}}}};
    return body;
  };
  EXPECT_EQ(send(turn(kUser)), (std::vector<int>{0, kSystemWords + kUserWords, 0}));
  // The system breakpoint is cached, the second one is new: read 8, write 3.
  EXPECT_EQ(send(turn("Name two uses.")), (std::vector<int>{0, 3, kSystemWords}));
  EXPECT_EQ(send(turn(kUser)), (std::vector<int>{0, 0, kSystemWords + kUserWords}));
}

TEST(AnthropicApi, CachedPrefixesExpireFiveMinutesAfterTheirLastUse) {
  FakeClock clock;
  Running sim({}, &clock);
  auto send = [&](const json& body) { return CacheUsage(Parse(sim.Post("/v1/messages", body.dump(), kVersion))); };
  const json cached = MessagesBody("sim:explorer", kUser, true);
  const std::vector<int> write = {kUserWords, kSystemWords, 0};
  const std::vector<int> read = {kUserWords, 0, kSystemWords};
  EXPECT_EQ(send(cached), write);
  clock.Advance(absl::Minutes(4));
  EXPECT_EQ(send(cached), read);  // and renewed
  clock.Advance(absl::Minutes(4));
  EXPECT_EQ(send(cached), read);
  clock.Advance(absl::Minutes(5));
  EXPECT_EQ(send(cached), write);
  // ttl "1h" lives an hour.
  json hour = cached;
  hour["system"][0]["cache_control"]["ttl"] = "1h";
  hour["model"] = "sim:steady";
  EXPECT_EQ(send(hour), write);
  clock.Advance(absl::Minutes(59));
  EXPECT_EQ(send(hour), read);
}

TEST(AnthropicApi, RequestErrorsHaveAnthropicShape) {
  Running sim;
  ExpectAnthropicError(sim.Post("/v1/messages", MessagesBody("sim:explorer", kUser).dump()), 400,
                       "invalid_request_error");  // no anthropic-version
  auto expect_invalid = [&](json body, const std::string& mention) {
    httplib::Result result = sim.Post("/v1/messages", body.dump(), kVersion);
    ExpectAnthropicError(result, 400, "invalid_request_error");
    EXPECT_NE(result->body.find(mention), std::string::npos) << result->body;
  };
  json body = MessagesBody("sim:explorer", kUser);
  body.erase("max_tokens");
  expect_invalid(body, "max_tokens");
  auto with = [](const char* key, json value) {
    json body = MessagesBody("sim:explorer", kUser);
    body[key] = std::move(value);
    return body;
  };
  expect_invalid(with("temperature", 1.5), "temperature");
  expect_invalid(with("stream", true), "stream");
  expect_invalid(with("messages", json::array()), "messages");
  expect_invalid(with("max_tokens", 0), "max_tokens");
  json system_role = MessagesBody("sim:explorer", kUser);
  system_role["messages"] = {{{"role", "system"}, {"content", kSystem}}};
  expect_invalid(system_role, "role");
  json image = MessagesBody("sim:explorer", kUser);
  image["messages"][0]["content"] = {{{"type", "image"}, {"source", {{"type", "base64"}}}}};
  expect_invalid(image, "text");
  json bad_cache = MessagesBody("sim:explorer", kUser, true);
  bad_cache["system"][0]["cache_control"] = {{"type", "persistent"}};
  expect_invalid(bad_cache, "cache_control");
  json five = MessagesBody("sim:explorer", kUser);
  five["system"] = json::array();
  for (int i = 0; i < 5; ++i) five["system"].push_back(TextBlock("x", true));
  expect_invalid(five, "maximum of 4");
  ExpectAnthropicError(sim.Post("/v1/messages", "{not json", kVersion), 400, "invalid_request_error");

  httplib::Result unknown = sim.Post("/v1/messages", MessagesBody("claude-no-such", kUser).dump(), kVersion);
  ExpectAnthropicError(unknown, 404, "not_found_error");
  EXPECT_NE(unknown->body.find("claude-no-such"), std::string::npos);
}

TEST(AnthropicApi, ApiKeyAsXApiKeyOrBearer) {
  SimServerOptions options;
  options.api_key = "sk-ant-sim";
  Running sim(options);
  const std::string body = MessagesBody("sim:explorer", kUser).dump();
  httplib::Result none = sim.Post("/v1/messages", body, kVersion);
  ExpectAnthropicError(none, 401, "authentication_error");
  EXPECT_EQ(none->body.find("sk-ant-sim"), std::string::npos);
  ExpectAnthropicError(
      sim.Post("/v1/messages", body, {{"anthropic-version", "2023-06-01"}, {"x-api-key", "sk-ant-wrong"}}), 401,
      "authentication_error");
  EXPECT_EQ(sim.Post("/v1/messages", body, {{"anthropic-version", "2023-06-01"}, {"x-api-key", "sk-ant-sim"}})->status,
            200);
  EXPECT_EQ(
      sim.Post("/v1/messages", body, {{"anthropic-version", "2023-06-01"}, {"Authorization", "Bearer sk-ant-sim"}})
          ->status,
      200);
  // x-api-key is Anthropic's header only.
  ExpectError(sim.Post("/v1/chat/completions", kChatBody, {{"x-api-key", "sk-ant-sim"}}), 401, "invalid_api_key");
  json stats = Parse(sim.Get("/stats"));
  EXPECT_EQ(stats["unauthorized"], 3);
  EXPECT_EQ(stats["messages"], 2);
}

SimServerOptions FaultOptions(SimFault fault) {
  SimServerOptions options;
  options.fault_rate = 1.0;
  options.faults = {fault};
  return options;
}

TEST(AnthropicApi, InjectedFaultsHaveAnthropicShape) {
  const std::string body = MessagesBody("sim:explorer", kUser).dump();
  {
    Running sim(FaultOptions(SimFault::kOverloaded));
    ExpectAnthropicError(sim.Post("/v1/messages", body, kVersion), 529, "overloaded_error");
    httplib::Result chat = sim.Post("/v1/chat/completions", kChatBody);
    ASSERT_TRUE(chat);
    EXPECT_EQ(chat->status, 529);
    EXPECT_EQ(Parse(chat)["error"]["code"], "overloaded");
    EXPECT_EQ(Parse(sim.Get("/stats"))["faults_injected"], 2);
  }
  {
    Running sim(FaultOptions(SimFault::kRateLimit));
    httplib::Result limited = sim.Post("/v1/messages", body, kVersion);
    ExpectAnthropicError(limited, 429, "rate_limit_error");
    EXPECT_EQ(limited->get_header_value("retry-after"), "1");
  }
  {
    Running sim(FaultOptions(SimFault::kServerError));
    ExpectAnthropicError(sim.Post("/v1/messages", body, kVersion), 500, "api_error");
  }
  {
    Running clean;
    Running sim(FaultOptions(SimFault::kTruncated));
    const std::string full = clean.Post("/v1/messages", body, kVersion)->body;
    EXPECT_EQ(sim.Post("/v1/messages", body, kVersion)->body, full.substr(0, full.size() / 2));
  }
}

TEST(ParseSimFaults, OverloadedIsOptIn) {
  absl::StatusOr<std::vector<SimFault>> faults = ParseSimFaults("529,429");
  ASSERT_TRUE(faults.ok()) << faults.status();
  EXPECT_EQ(*faults, (std::vector<SimFault>{SimFault::kOverloaded, SimFault::kRateLimit}));
  absl::StatusOr<std::vector<SimFault>> all = ParseSimFaults("all");
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(std::count(all->begin(), all->end(), SimFault::kOverloaded), 0);
}

}  // namespace
}  // namespace noveltygrid::sim_server_testing
