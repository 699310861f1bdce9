// What the SimServer tests share (sim_server_test.cc, sim_server_fault_test.cc, anthropic_api_test.cc,
// rate_limiter_test.cc): a server started in-process on 127.0.0.1:0 (on the clock the test gives)
// with cpp-httplib's client to talk to it, and helpers for the replies.
#ifndef NOVELTYGRID_TESTS_SIM_SERVER_SIM_SERVER_FIXTURE_H_
#define NOVELTYGRID_TESTS_SIM_SERVER_SIM_SERVER_FIXTURE_H_

#include <httplib.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "common/clock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "sim_server/sim_server.h"
#include "tests/sim_server/raw_http_client.h"

namespace noveltygrid::sim_server_testing {

using nlohmann::json;

inline constexpr char kChatBody[] =
    R"({"model":"sim:explorer","messages":[{"role":"user","content":"Name one unusual use for a brick."}],)"
    R"("temperature":0.7,"seed":3,"max_tokens":200,"stream_options":null,"unknown_field":{"x":1}})";

class Running {
 public:
  // `clock` (rate limits, prompt-cache lifetimes) must outlive this object.
  explicit Running(SimServerOptions options = {}, const Clock* clock = SystemClockInstance()) : server_(clock) {
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

inline json Parse(const httplib::Result& result) {
  EXPECT_TRUE(result) << httplib::to_string(result.error());
  if (!result) return json();
  json body = json::parse(result->body, nullptr, false);
  EXPECT_FALSE(body.is_discarded()) << result->body;
  return body;
}

inline json ChatBody(const std::string& model, double temperature, int n, uint64_t seed = 1) {
  return {{"model", model},
          {"messages", {{{"role", "user"}, {"content", "Name one unusual use for a brick."}}}},
          {"temperature", temperature},
          {"n", n},
          {"seed", seed}};
}

inline std::vector<std::string> Contents(const json& reply) {
  std::vector<std::string> contents;
  for (const json& choice : reply["choices"]) contents.push_back(choice["message"]["content"]);
  return contents;
}

inline void ExpectError(const httplib::Result& result, int status, const std::string& code) {
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

}  // namespace noveltygrid::sim_server_testing

#endif  // NOVELTYGRID_TESTS_SIM_SERVER_SIM_SERVER_FIXTURE_H_
