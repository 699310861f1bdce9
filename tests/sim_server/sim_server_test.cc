// SimServer over real loopback HTTP: starts the server in-process on 127.0.0.1:0 and talks to it with
// cpp-httplib's client (raw sockets where the bytes matter).
#include "sim_server/sim_server.h"

#include <httplib.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/sim_server/raw_http_client.h"

namespace noveltygrid {
namespace {

using nlohmann::json;

constexpr char kChatBody[] =
    R"({"model":"sim:explorer","messages":[{"role":"user","content":"Name one unusual use for a brick."}],)"
    R"("temperature":0.7,"seed":3,"max_tokens":200,"stream_options":null,"unknown_field":{"x":1}})";

class Running {
 public:
  explicit Running(SimServerOptions options = {}) {
    absl::StatusOr<int> port = server_.Start(options);
    EXPECT_TRUE(port.ok()) << port.status();
    port_ = port.value_or(0);
    EXPECT_GT(port_, 0);
    client_ = std::make_unique<httplib::Client>("127.0.0.1", port_);
    client_->set_read_timeout(30, 0);
  }

  httplib::Result Post(const std::string& path, const std::string& body, const httplib::Headers& headers = {}) {
    return client_->Post(path.c_str(), headers, body, "application/json");
  }
  httplib::Result Get(const std::string& path) { return client_->Get(path.c_str()); }

  SimServer& server() { return server_; }
  httplib::Client& client() { return *client_; }
  int port() const { return port_; }

 private:
  SimServer server_;
  int port_ = 0;
  std::unique_ptr<httplib::Client> client_;
};

json Parse(const httplib::Result& result) {
  EXPECT_TRUE(result) << httplib::to_string(result.error());
  if (!result) return json();
  json body = json::parse(result->body, nullptr, false);
  EXPECT_FALSE(body.is_discarded()) << result->body;
  return body;
}

json ChatBody(const std::string& model, double temperature, int n, uint64_t seed = 1) {
  return {{"model", model},
          {"messages", {{{"role", "user"}, {"content", "Name one unusual use for a brick."}}}},
          {"temperature", temperature},
          {"n", n},
          {"seed", seed}};
}

std::vector<std::string> Contents(const json& reply) {
  std::vector<std::string> contents;
  for (const json& choice : reply["choices"]) contents.push_back(choice["message"]["content"]);
  return contents;
}

void ExpectError(const httplib::Result& result, int status, const std::string& code) {
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, status);
  json body = Parse(result);
  ASSERT_TRUE(body.contains("error")) << result->body;
  EXPECT_TRUE(body["error"]["message"].is_string());
  EXPECT_EQ(body["error"]["type"], "invalid_request_error");
  if (!code.empty()) {
    EXPECT_EQ(body["error"]["code"], code);
  }
}

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
                         {"faults_injected", 0},
                         {"unauthorized", 0},
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

SimServerOptions FaultOptions(SimFault fault) {
  SimServerOptions options;
  options.fault_rate = 1.0;
  options.faults = {fault};
  return options;
}

TEST(SimServer, Fault429HasRetryHeaders) {
  Running sim(FaultOptions(SimFault::kRateLimit));
  httplib::Result result = sim.Post("/v1/chat/completions", kChatBody);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, 429);
  EXPECT_EQ(result->get_header_value("Retry-After"), "1");
  EXPECT_EQ(result->get_header_value("retry-after-ms"), "200");
  EXPECT_TRUE(Parse(result)["error"]["message"].is_string());
  // Never on /stats or /health.
  json stats = Parse(sim.Get("/stats"));
  EXPECT_EQ(stats["faults_injected"], 1);
  EXPECT_EQ(stats["chat"], 1);
  EXPECT_EQ(sim.Get("/health")->status, 200);
}

TEST(SimServer, Fault500) {
  Running sim(FaultOptions(SimFault::kServerError));
  httplib::Result result = sim.Post("/v1/embeddings", R"({"model":"lexical","input":"x"})");
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, 500);
  EXPECT_TRUE(Parse(result).contains("error"));
}

TEST(SimServer, FaultMalformedIs200WithNonJsonBody) {
  Running sim(FaultOptions(SimFault::kMalformed));
  httplib::Result result = sim.Post("/v1/chat/completions", kChatBody);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, 200);
  EXPECT_TRUE(json::parse(result->body, nullptr, false).is_discarded());
}

TEST(SimServer, FaultTruncatedIsFirstHalfOfTheRealBody) {
  Running clean;
  Running sim(FaultOptions(SimFault::kTruncated));
  const std::string full = clean.Post("/v1/chat/completions", kChatBody)->body;
  httplib::Result result = sim.Post("/v1/chat/completions", kChatBody);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, 200);
  EXPECT_EQ(result->body, full.substr(0, full.size() / 2));
  EXPECT_EQ(result->get_header_value("Content-Length"), std::to_string(full.size() / 2));
  EXPECT_TRUE(json::parse(result->body, nullptr, false).is_discarded());
}

TEST(SimServer, FaultTimeoutSendsNothingUntilStopped) {
  Running sim(FaultOptions(SimFault::kTimeout));
  sim.client().set_read_timeout(0, 200'000);
  httplib::Result result = sim.Post("/v1/chat/completions", kChatBody);
  EXPECT_FALSE(result);  // the client gave up; Stop (in the destructor) ends the server's wait
  EXPECT_EQ(sim.server().stats().faults_injected, 1);
}

TEST(SimServer, TimeoutFaultPromisesABodyAndDropsTheConnectionOnStop) {
  SimServer server;
  absl::StatusOr<int> port = server.Start(FaultOptions(SimFault::kTimeout));
  ASSERT_TRUE(port.ok()) << port.status();
  testing::RawHttpConnection c(*port);
  ASSERT_TRUE(c.Send(absl::StrCat("POST /v1/chat/completions HTTP/1.1\r\nContent-Length: ", std::strlen(kChatBody),
                                  "\r\n\r\n", kChatBody)));
  while (server.stats().faults_injected < 1) std::this_thread::yield();
  server.Stop();
  testing::RawResponse r = c.Read();
  EXPECT_EQ(r.status, 0);  // the body never came
  EXPECT_TRUE(r.HasHeader("HTTP/1.1 200 OK\r\n")) << r.head;
  EXPECT_TRUE(r.HasHeader("Content-Length: 1024\r\n")) << r.head;
  EXPECT_EQ(r.body, "");
}

// Waiting requests are timers on the event loop, not parked threads: one loop holds hundreds at once.
TEST(SimServer, OneLoopHoldsManyWaitingRequestsAndStopAnswersThem) {
  SimServerOptions options;
  options.threads = 1;
  options.latency_ms = 3'600'000;
  SimServer server;
  absl::StatusOr<int> port = server.Start(options);
  ASSERT_TRUE(port.ok()) << port.status();
  constexpr int kWaiting = 300;
  const std::string body = ChatBody("sim:steady", 0.5, 1).dump();
  std::vector<std::unique_ptr<testing::RawHttpConnection>> connections;
  for (int i = 0; i < kWaiting; ++i) {
    connections.push_back(std::make_unique<testing::RawHttpConnection>(*port));
    ASSERT_TRUE(connections.back()->Send(
        absl::StrCat("POST /v1/chat/completions HTTP/1.1\r\nContent-Length: ", body.size(), "\r\n\r\n", body)));
  }
  while (server.stats().chat < kWaiting) std::this_thread::yield();
  EXPECT_EQ(server.stats().in_flight_peak, kWaiting);
  server.Stop();
  for (auto& c : connections) {
    testing::RawResponse r = c->Read();
    EXPECT_EQ(r.status, 503);
    EXPECT_NE(r.body.find("shutting down"), std::string::npos) << r.body;
  }
}

TEST(SimServer, WrongMethodAndChunkedBodyAreRefused) {
  Running sim;
  httplib::Result get = sim.Get("/v1/chat/completions");
  ASSERT_TRUE(get);
  EXPECT_EQ(get->status, 404);
  EXPECT_NE(Parse(get)["error"]["message"].get<std::string>().find("GET /v1/chat/completions"), std::string::npos);
  testing::RawHttpConnection c(sim.port());
  ASSERT_TRUE(c.Send("POST /v1/embeddings HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"));
  testing::RawResponse r = c.Read();
  EXPECT_EQ(r.status, 411);
  json error = json::parse(r.body, nullptr, false);
  EXPECT_EQ(error["error"]["type"], "invalid_request_error") << r.body;
  EXPECT_EQ(sim.server().stats().embeddings, 0);
}

TEST(SimServer, FaultsAreDeterministicPerSeedAndSequence) {
  SimServerOptions options;
  options.fault_rate = 0.5;
  options.faults = {SimFault::kRateLimit, SimFault::kServerError};
  options.seed = 7;
  auto statuses = [&options] {
    Running sim(options);
    std::vector<int> out;
    for (int i = 0; i < 20; ++i) out.push_back(sim.Post("/v1/reward", R"({"prompt":"p","response":"r"})")->status);
    return out;
  };
  std::vector<int> first = statuses();
  EXPECT_EQ(first, statuses());
  EXPECT_NE(std::count(first.begin(), first.end(), 200), 0);
  EXPECT_NE(std::count(first.begin(), first.end(), 200), 20);
}

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) { setenv(name, value, 1); }
  ~ScopedEnv() { unsetenv(name_); }

 private:
  const char* name_;
};

TEST(SimServer, ApiKeyFromEnvironmentIsRequired) {
  ScopedEnv env("NOVELTYGRID_SIM_API_KEY", "sk-sim-secret");
  SimServerOptions options;
  options.api_key = SimApiKeyFromEnvironment();
  Running sim(options);
  for (const httplib::Headers& headers : {httplib::Headers{}, httplib::Headers{{"Authorization", "Bearer wrong"}},
                                          httplib::Headers{{"Authorization", "sk-sim-secret"}}}) {
    httplib::Result result = sim.Post("/v1/chat/completions", kChatBody, headers);
    ExpectError(result, 401, "invalid_api_key");
    EXPECT_EQ(result->body.find("sk-sim-secret"), std::string::npos);
  }
  ExpectError(sim.Post("/predict", R"({"inputs":[["a","b"]]})"), 401, "invalid_api_key");
  const httplib::Headers good = {{"Authorization", "Bearer sk-sim-secret"}};
  httplib::Result ok = sim.Post("/v1/chat/completions", kChatBody, good);
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200);
  EXPECT_EQ(ok->body.find("sk-sim-secret"), std::string::npos);
  EXPECT_EQ(sim.Get("/health")->status, 200);
  EXPECT_EQ(Parse(sim.Get("/stats"))["chat"], 1);  // rejected requests are not counted
}

TEST(SimServer, StopRightAfterStartAndTwice) {
  SimServer server;
  ASSERT_TRUE(server.Start({}).ok());
  server.Stop();
  server.Stop();
}

TEST(SimServer, BusyPortIsAnError) {
  Running first;
  SimServerOptions options;
  options.port = first.port();
  SimServer second;
  absl::StatusOr<int> port = second.Start(options);
  ASSERT_FALSE(port.ok());
  EXPECT_NE(port.status().message().find(std::to_string(first.port())), std::string::npos);
}

TEST(SimServer, RejectsBadOptions) {
  SimServerOptions options;
  options.fault_rate = 1.5;
  SimServer server;
  EXPECT_FALSE(server.Start(options).ok());
}

TEST(ParseSimFaults, KnownNamesAndErrors) {
  absl::StatusOr<std::vector<SimFault>> faults = ParseSimFaults("429, timeout,429");
  ASSERT_TRUE(faults.ok());
  EXPECT_EQ(*faults, (std::vector<SimFault>{SimFault::kRateLimit, SimFault::kTimeout}));
  EXPECT_EQ(ParseSimFaults("all")->size(), 5u);
  absl::StatusOr<std::vector<SimFault>> bad = ParseSimFaults("500,503");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("503"), std::string::npos);
}

}  // namespace
}  // namespace noveltygrid
