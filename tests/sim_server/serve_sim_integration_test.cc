// `noveltygrid serve-sim` as a real process ($NOVELTYGRID_BIN under ctest): it announces its port,
// answers over HTTP, rejects bad flags and exits 0 on SIGTERM.
#include <httplib.h>

#include <csignal>
#include <cstdlib>
#include <string>

#include "absl/strings/numbers.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/integration/process.h"

namespace noveltygrid {
namespace {

using testing::Process;
using testing::ProcessOptions;

std::string Binary() {
  const char* bin = std::getenv("NOVELTYGRID_BIN");
  return bin == nullptr ? "" : bin;
}

std::unique_ptr<Process> Start(std::vector<std::string> args, std::map<std::string, std::string> env = {}) {
  args.insert(args.begin(), {Binary(), "serve-sim"});
  ProcessOptions options;
  options.args = std::move(args);
  options.env = std::move(env);
  options.unset_env = {"NOVELTYGRID_SIM_API_KEY"};
  options.timeout = absl::Seconds(60);
  absl::StatusOr<std::unique_ptr<Process>> process = Process::Start(std::move(options));
  EXPECT_TRUE(process.ok()) << process.status();
  return process.ok() ? *std::move(process) : nullptr;
}

TEST(ServeSimIntegration, ServesUntilSigterm) {
  if (Binary().empty()) GTEST_SKIP() << "NOVELTYGRID_BIN is not set (run under ctest)";
  std::unique_ptr<Process> sim =
      Start({"--listen", "127.0.0.1:0", "--latency-ms", "1", "--jitter-ms", "2"}, {{"NOVELTYGRID_SIM_API_KEY", "k1"}});
  ASSERT_NE(sim, nullptr);
  const std::string prefix = "noveltygrid serve-sim: listening on 127.0.0.1:";
  absl::StatusOr<std::string> line = sim->WaitForStdoutPrefix(prefix);
  ASSERT_TRUE(line.ok()) << line.status() << sim->Output();
  int port = 0;
  ASSERT_TRUE(absl::SimpleAtoi(line->substr(prefix.size()), &port)) << *line;

  httplib::Client client("127.0.0.1", port);
  const std::string body = R"({"model":"explorer","messages":[{"role":"user","content":"Name a use for a brick."}]})";
  httplib::Result denied = client.Post("/v1/chat/completions", body, "application/json");
  ASSERT_TRUE(denied);
  EXPECT_EQ(denied->status, 401);
  httplib::Result chat =
      client.Post("/v1/chat/completions", httplib::Headers{{"Authorization", "Bearer k1"}}, body, "application/json");
  ASSERT_TRUE(chat);
  EXPECT_EQ(chat->status, 200) << chat->body;
  httplib::Result stats = client.Get("/stats");
  ASSERT_TRUE(stats);
  EXPECT_EQ(nlohmann::json::parse(stats->body)["chat"], 1);

  sim->Signal(SIGTERM);
  EXPECT_EQ(sim->Wait(), 0) << sim->Output();
  EXPECT_EQ(sim->Output().find("k1\n"), std::string::npos);
}

TEST(ServeSimIntegration, HelpAndBadFlags) {
  if (Binary().empty()) GTEST_SKIP() << "NOVELTYGRID_BIN is not set (run under ctest)";
  std::unique_ptr<Process> help = Start({"--help"});
  ASSERT_NE(help, nullptr);
  EXPECT_EQ(help->Wait(), 0);
  EXPECT_NE(help->Stdout().find("--fault-rate"), std::string::npos);
  for (const std::vector<std::string>& args : {std::vector<std::string>{},
                                               {"--listen", "nowhere"},
                                               {"--listen", "127.0.0.1:0", "--fault-rate", "2"},
                                               {"--listen", "127.0.0.1:0", "--faults", "503"},
                                               {"--listen", "127.0.0.1:0", "--bogus"}}) {
    std::unique_ptr<Process> bad = Start(args);
    ASSERT_NE(bad, nullptr);
    EXPECT_EQ(bad->Wait(), 2) << bad->Output();
  }
}

// --requests-per-minute reaches the server: the second request of the minute gets 429 (the bucket
// refills one request per minute, so the test would need to stall a minute to see otherwise).
TEST(ServeSimIntegration, RateLimitFlags) {
  if (Binary().empty()) GTEST_SKIP() << "NOVELTYGRID_BIN is not set (run under ctest)";
  std::unique_ptr<Process> sim = Start({"--listen", "127.0.0.1:0", "--requests-per-minute", "1"});
  ASSERT_NE(sim, nullptr);
  const std::string prefix = "noveltygrid serve-sim: listening on 127.0.0.1:";
  absl::StatusOr<std::string> line = sim->WaitForStdoutPrefix(prefix);
  ASSERT_TRUE(line.ok()) << line.status() << sim->Output();
  int port = 0;
  ASSERT_TRUE(absl::SimpleAtoi(line->substr(prefix.size()), &port)) << *line;
  httplib::Client client("127.0.0.1", port);
  const std::string body = R"({"model":"explorer","messages":[{"role":"user","content":"Name a use for a brick."}]})";
  httplib::Result first = client.Post("/v1/chat/completions", body, "application/json");
  ASSERT_TRUE(first);
  EXPECT_EQ(first->status, 200) << first->body;
  EXPECT_EQ(first->get_header_value("x-ratelimit-limit-requests"), "1");
  EXPECT_EQ(first->get_header_value("x-ratelimit-remaining-requests"), "0");
  httplib::Result second = client.Post("/v1/chat/completions", body, "application/json");
  ASSERT_TRUE(second);
  EXPECT_EQ(second->status, 429) << second->body;
  int retry_after = 0;
  EXPECT_TRUE(absl::SimpleAtoi(second->get_header_value("retry-after"), &retry_after));
  EXPECT_GE(retry_after, 1);
  EXPECT_LE(retry_after, 60);
  EXPECT_EQ(nlohmann::json::parse(client.Get("/stats")->body)["rate_limited"], 1);
  sim->Signal(SIGTERM);
  EXPECT_EQ(sim->Wait(), 0) << sim->Output();

  std::unique_ptr<Process> bad = Start({"--listen", "127.0.0.1:0", "--tokens-per-minute", "-5"});
  ASSERT_NE(bad, nullptr);
  EXPECT_EQ(bad->Wait(), 2) << bad->Output();
}

}  // namespace
}  // namespace noveltygrid
