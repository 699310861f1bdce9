// SimServer over real loopback HTTP: the OpenAI-compatible API -- chat, embeddings, the scorers'
// endpoints, errors, stats -- talked to with cpp-httplib's client (faults, shutdown and options:
// sim_server_fault_test.cc; the shared server and helpers: sim_server_fixture.h).
#include "tests/sim_server/sim_server_fixture.h"

namespace noveltygrid::sim_server_testing {
namespace {

TEST(SimServer, ChatCompletionHasOpenAiShapeAndIsDeterministic) {
  Running sim;
  httplib::Result first = sim.Post("/v1/chat/completions", kChatBody);
  ASSERT_TRUE(first);
  ASSERT_EQ(first->status, 200) << first->body;
  EXPECT_NE(first->get_header_value("Content-Type").find("application/json"), std::string::npos);
  json reply = Parse(first);
  EXPECT_EQ(reply["object"], "chat.completion");
  EXPECT_EQ(reply["model"], "sim:explorer");
  EXPECT_TRUE(reply["id"].get<std::string>().starts_with("chatcmpl-"));
  EXPECT_EQ(reply["created"], 1735689600 + 3);
  ASSERT_EQ(reply["choices"].size(), 1u);
  const json& choice = reply["choices"][0];
  EXPECT_EQ(choice["index"], 0);
  EXPECT_EQ(choice["message"]["role"], "assistant");
  EXPECT_FALSE(choice["message"]["content"].get<std::string>().empty());
  EXPECT_EQ(choice["finish_reason"], "stop");
  const json& usage = reply["usage"];
  EXPECT_GT(usage["prompt_tokens"].get<int>(), 0);
  EXPECT_GT(usage["completion_tokens"].get<int>(), 0);
  EXPECT_EQ(usage["total_tokens"], usage["prompt_tokens"].get<int>() + usage["completion_tokens"].get<int>());

  httplib::Result second = sim.Post("/v1/chat/completions", kChatBody);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->body, first->body);
}

TEST(SimServer, BareModelNameMeansSimModel) {
  Running sim;
  json bare = Parse(sim.Post("/v1/chat/completions", ChatBody("explorer", 0.7, 1).dump()));
  json full = Parse(sim.Post("/v1/chat/completions", ChatBody("sim:explorer", 0.7, 1).dump()));
  EXPECT_EQ(bare["model"], "sim:explorer");
  EXPECT_EQ(bare, full);
}

TEST(SimServer, NGivesNChoices) {
  Running sim;
  json reply = Parse(sim.Post("/v1/chat/completions", ChatBody("sim:explorer", 1.0, 3).dump()));
  ASSERT_EQ(reply["choices"].size(), 3u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(reply["choices"][i]["index"], i);
}

TEST(SimServer, TemperatureChangesOutputs) {
  Running sim;
  json cold = Parse(sim.Post("/v1/chat/completions", ChatBody("sim:explorer", 0.0, 5).dump()));
  json hot = Parse(sim.Post("/v1/chat/completions", ChatBody("sim:explorer", 1.5, 5).dump()));
  EXPECT_NE(Contents(cold), Contents(hot));
}

TEST(SimServer, MaxCompletionTokensAndTextPartsAreAccepted) {
  Running sim;
  json body = {{"model", "sim:steady"},
               {"messages", {{{"role", "user"}, {"content", {{{"type", "text"}, {"text", "Name a colour."}}}}}}},
               {"max_completion_tokens", 3}};
  json reply = Parse(sim.Post("/v1/chat/completions", body.dump()));
  ASSERT_EQ(reply["choices"].size(), 1u);
  EXPECT_LE(reply["usage"]["completion_tokens"].get<int>(), 3);
}

TEST(SimServer, JudgeAnswersCoherencePrompts) {
  Running sim;
  json body = {{"model", "sim:judge"},
               {"messages",
                {{{"role", "user"},
                  {"content",
                   "Rate the coherence of this answer from 0 to 100 in <coherence_score></coherence_score> tags.\n"
                   "<question>Name one use for a brick.</question>\n"
                   "<answer>You can use a brick as a doorstop.</answer>"}}}}};
  json reply = Parse(sim.Post("/v1/chat/completions", body.dump()));
  ASSERT_EQ(reply["choices"].size(), 1u);
  EXPECT_NE(reply["choices"][0]["message"]["content"].get<std::string>().find("<coherence_score>"), std::string::npos);
}

TEST(SimServer, UnknownModelIs404ModelNotFound) {
  Running sim;
  ExpectError(sim.Post("/v1/chat/completions", ChatBody("openai/gpt-4o", 0.7, 1).dump()), 404, "model_not_found");
  ExpectError(sim.Post("/v1/embeddings", R"({"model":"text-embedding-3-large","input":"x"})"), 404, "model_not_found");
}

TEST(SimServer, MalformedRequestsAre400) {
  Running sim;
  ExpectError(sim.Post("/v1/chat/completions", "{not json"), 400, "");
  ExpectError(sim.Post("/v1/chat/completions", R"({"model":"sim:explorer"})"), 400, "");
  ExpectError(sim.Post("/v1/chat/completions", ChatBody("sim:explorer", 3.0, 1).dump()), 400, "");
  ExpectError(sim.Post("/v1/chat/completions", ChatBody("sim:explorer", 0.7, 0).dump()), 400, "");
  ExpectError(sim.Post("/v1/embeddings", R"({"model":"lexical","input":[1,2,3]})"), 400, "");
  ExpectError(sim.Post("/predict", R"({"inputs":[["only one"]]})"), 400, "");
  ExpectError(sim.Post("/v1/reward", R"({"prompt":"p"})"), 400, "");
}

TEST(SimServer, UnknownPathIs404WithErrorBody) {
  Running sim;
  httplib::Result result = sim.Post("/v1/completions", "{}");
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, 404);
  EXPECT_TRUE(Parse(result).contains("error"));
}

std::vector<float> DecodeBase64Floats(const std::string& encoded) {
  std::string bytes;
  EXPECT_TRUE(absl::Base64Unescape(encoded, &bytes));
  std::vector<float> floats(bytes.size() / 4);
  for (size_t i = 0; i < floats.size(); ++i) {
    uint32_t bits = 0;
    for (int b = 0; b < 4; ++b) bits |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[4 * i + b])) << (8 * b);
    std::memcpy(&floats[i], &bits, sizeof bits);
  }
  return floats;
}

TEST(SimServer, EmbeddingsFloatAndBase64Agree) {
  Running sim;
  json request = {{"model", "lexical-64"}, {"input", {"a red brick doorstop", "grind it into pigment"}}};
  json as_floats = Parse(sim.Post("/v1/embeddings", request.dump()));
  request["encoding_format"] = "base64";
  json as_base64 = Parse(sim.Post("/v1/embeddings", request.dump()));
  EXPECT_EQ(as_floats["object"], "list");
  EXPECT_EQ(as_floats["model"], "lexical-64");
  EXPECT_GT(as_floats["usage"]["prompt_tokens"].get<int>(), 0);
  for (const char* key : {"object", "model", "usage"}) EXPECT_EQ(as_base64[key], as_floats[key]) << key;
  ASSERT_EQ(as_floats["data"].size(), 2u);
  ASSERT_EQ(as_base64["data"].size(), 2u);
  for (int i = 0; i < 2; ++i) {
    const json& item = as_floats["data"][i];
    EXPECT_EQ(item["object"], "embedding");
    EXPECT_EQ(item["index"], i);
    ASSERT_EQ(item["embedding"].size(), 64u);
    std::vector<float> floats;
    for (const json& v : item["embedding"]) floats.push_back(static_cast<float>(v.get<double>()));
    EXPECT_EQ(DecodeBase64Floats(as_base64["data"][i]["embedding"]), floats);
  }
}

TEST(SimServer, EmbeddingsSingleStringAndDimensions) {
  Running sim;
  json one = Parse(sim.Post("/v1/embeddings", R"({"model":"lexical","input":"brick","dimensions":256})"));
  ASSERT_EQ(one["data"].size(), 1u);
  EXPECT_EQ(one["data"][0]["embedding"].size(), 256u);
  ExpectError(sim.Post("/v1/embeddings", R"({"model":"lexical","input":"brick","dimensions":128})"), 400, "");
  ExpectError(sim.Post("/v1/embeddings", R"({"model":"lexical","input":"x","encoding_format":"hex"})"), 400, "");
}

TEST(SimServer, PredictScoresIdenticalAboveDifferent) {
  Running sim;
  const std::string a = "Use the brick as a doorstop to keep the kitchen door open.";
  const std::string b = "Grind the brick into red pigment for painting pottery.";
  json pairs = json::array({json::array({a, a}), json::array({a, b})});
  json reply = Parse(sim.Post("/predict", json{{"inputs", pairs}}.dump()));
  ASSERT_TRUE(reply.is_array());
  ASSERT_EQ(reply.size(), 2u);
  for (const json& pair : reply) {
    ASSERT_EQ(pair.size(), 2u);
    EXPECT_EQ(pair[0]["label"], "LABEL_0");
    EXPECT_EQ(pair[1]["label"], "LABEL_1");
    EXPECT_NEAR(pair[0]["score"].get<double>() + pair[1]["score"].get<double>(), 1.0, 1e-12);
  }
  EXPECT_GT(reply[0][1]["score"].get<double>(), reply[1][1]["score"].get<double>());

  json single = Parse(sim.Post("/predict", json{{"inputs", json::array({a, b})}}.dump()));
  ASSERT_EQ(single.size(), 2u);
  EXPECT_EQ(single[1], reply[1][1]);
}

TEST(SimServer, RewardScoresCoherentSimAnswerAboveWordSalad) {
  Running sim;
  const std::string prompt = "Name one unusual use for a brick.";
  json chat = Parse(sim.Post("/v1/chat/completions", ChatBody("sim:steady", 0.3, 1).dump()));
  const std::string answer = chat["choices"][0]["message"]["content"];
  const std::string salad = "gravel quickly purple the of of sings banana whence zx";
  json reply = Parse(
      sim.Post("/v1/reward",
               json{{"inputs", {{{"prompt", prompt}, {"response", answer}}, {{"prompt", prompt}, {"response", salad}}}}}
                   .dump()));
  ASSERT_EQ(reply["scores"].size(), 2u);
  const double good = reply["scores"][0];
  const double bad = reply["scores"][1];
  EXPECT_GT(good, bad);
  EXPECT_GE(bad, -10.0);
  EXPECT_LE(good, 2.0);

  json single = Parse(sim.Post("/v1/reward", json{{"prompt", prompt}, {"response", answer}}.dump()));
  EXPECT_EQ(single["scores"], json::array({good}));
  json messages = Parse(sim.Post(
      "/v1/reward",
      json{{"model", "Skywork/Skywork-Reward-Gemma-2-27B-v0.2"},
           {"messages", {{{"role", "user"}, {"content", prompt}}, {{"role", "assistant"}, {"content", answer}}}}}
          .dump()));
  EXPECT_EQ(messages["scores"], json::array({good}));
  EXPECT_EQ(messages["model"], "Skywork/Skywork-Reward-Gemma-2-27B-v0.2");
}

TEST(SimServer, StatsCountRequestsPerEndpoint) {
  Running sim;
  sim.Post("/v1/chat/completions", kChatBody);
  sim.Post("/v1/chat/completions", "{bad");
  sim.Post("/v1/embeddings", R"({"model":"lexical","input":"x"})");
  sim.Post("/predict", R"({"inputs":[["a","b"]]})");
  sim.Post("/v1/reward", R"({"prompt":"p","response":"r"})");
  sim.Post("/v1/reward", R"({"prompt":"p","response":"r"})");
  json stats = Parse(sim.Get("/stats"));
  EXPECT_EQ(stats, (json{{"chat", 2},
                         {"embeddings", 1},
                         {"classify", 1},
                         {"reward", 2},
                         {"messages", 0},
                         {"faults_injected", 0},
                         {"unauthorized", 0},
                         {"rate_limited", 0},
                         {"in_flight_peak", 1}}));
  httplib::Result health = sim.Get("/health");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  EXPECT_EQ(health->body, "ok");
  EXPECT_EQ(sim.server().stats().chat, 2);
}

TEST(SimServer, ConcurrentRequestsAreAllServed) {
  SimServerOptions options;
  options.latency_ms = 1;
  options.jitter_ms = 2;
  Running sim(options);
  std::vector<std::thread> threads;
  constexpr int kRequests = 32;
  std::vector<int> statuses(kRequests, 0);
  for (int i = 0; i < kRequests; ++i) {
    threads.emplace_back([&, i] {
      httplib::Client client("127.0.0.1", sim.port());
      httplib::Result result =
          client.Post("/v1/chat/completions", ChatBody("sim:explorer", 0.7, 1, i).dump(), "application/json");
      statuses[i] = result ? result->status : -1;
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(statuses, std::vector<int>(kRequests, 200));
  EXPECT_EQ(sim.server().stats().chat, kRequests);
}

}  // namespace
}  // namespace noveltygrid::sim_server_testing
