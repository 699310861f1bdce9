// The fixture of the ProviderChannel tests (provider_channel_test.cc, provider_channel_key_test.cc):
// ProviderChannel over real loopback HTTP -- a scripted server for exact replies, the simulated model
// server for authentication and injected faults, and a fake limiter that records what it is charged.
#ifndef NOVELTYGRID_TESTS_WORKER_HTTP_PROVIDER_CHANNEL_FIXTURE_H_
#define NOVELTYGRID_TESTS_WORKER_HTTP_PROVIDER_CHANNEL_FIXTURE_H_

#include <unistd.h>

#include <cstdio>
#include <deque>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/blocking_counter.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim_server/sim_server.h"
#include "tests/worker/http/test_http_server.h"
#include "worker/http/provider_channel.h"
#include "worker/http/token_estimate.h"

namespace noveltygrid::provider_channel_testing {

using testing::RefusingPort;
using testing::TestHttpServer;

inline constexpr char kKey[] = "sk-test-DISTINCTIVE-9f3a7c";

// Admits at once (on the executor) and records every Release.
class FakeLimiter : public ProviderLimiter {
 public:
  explicit FakeLimiter(Executor* executor) : executor_(executor) {}
  using ProviderLimiter::Acquire;
  void Acquire(absl::AnyInvocable<void(TokenReservation) &&> go, int64_t reserve_tokens) override {
    absl::MutexLock lock(&mu_);
    ++admitted_;
    reserves_.push_back(reserve_tokens);
    executor_->Schedule(
        [go = std::move(go), r = TokenReservation{reserve_tokens, kMinute}]() mutable { std::move(go)(r); });
  }
  void Release(int64_t tokens, TokenReservation reserved) override {
    absl::MutexLock lock(&mu_);
    released_.push_back(tokens);
    settled_.push_back(reserved);
  }
  static constexpr int64_t kMinute = 29'000'000;
  std::vector<int64_t> reserves() const {
    absl::MutexLock lock(&mu_);
    return reserves_;
  }
  std::vector<TokenReservation> settled() const {
    absl::MutexLock lock(&mu_);
    return settled_;
  }
  ProviderLimiterStats Stats() const override {
    absl::MutexLock lock(&mu_);
    ProviderLimiterStats s;
    s.admitted = admitted_;
    s.in_flight = admitted_ - static_cast<int64_t>(released_.size());
    return s;
  }
  void Pump() override {}
  std::vector<int64_t> released() const {
    absl::MutexLock lock(&mu_);
    return released_;
  }

 private:
  Executor* const executor_;
  mutable absl::Mutex mu_;
  int64_t admitted_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<int64_t> released_ ABSL_GUARDED_BY(mu_);
  std::vector<int64_t> reserves_ ABSL_GUARDED_BY(mu_);
  std::vector<TokenReservation> settled_ ABSL_GUARDED_BY(mu_);
};

struct Scripted {
  int status = 200;
  std::string body = R"({"choices":[{"message":{"content":"ok"}}],"usage":{"total_tokens":42}})";
  std::map<std::string, std::string> headers;
};

// Serves POST /v1/chat/completions from a script (then the default reply); counts requests and
// remembers the last Authorization and Content-Type headers.
class ScriptedProvider {
 public:
  ScriptedProvider() {
    server_.server().Post("/v1/chat/completions", [this](const httplib::Request& req, httplib::Response& res) {
      Scripted reply;
      {
        absl::MutexLock lock(&mu_);
        ++requests_;
        authorization_ = req.get_header_value("Authorization");
        content_type_ = req.get_header_value("Content-Type");
        last_body_ = req.body;
        if (!script_.empty()) {
          reply = script_.front();
          script_.pop_front();
        }
      }
      if (reply.status == 0) {  // hang until released
        release_.WaitForNotificationWithTimeout(absl::Seconds(30));
        reply = Scripted();
      }
      res.status = reply.status;
      for (const auto& [name, value] : reply.headers) res.set_header(name, value);
      res.set_content(reply.body, "application/json");
    });
    server_.Start();
  }
  ~ScriptedProvider() { release_.Notify(); }

  void Push(Scripted reply) {
    absl::MutexLock lock(&mu_);
    script_.push_back(std::move(reply));
  }
  void PushMany(int n, const Scripted& reply) {
    for (int i = 0; i < n; ++i) Push(reply);
  }
  int requests() const {
    absl::MutexLock lock(&mu_);
    return requests_;
  }
  std::string authorization() const {
    absl::MutexLock lock(&mu_);
    return authorization_;
  }
  std::string content_type() const {
    absl::MutexLock lock(&mu_);
    return content_type_;
  }
  std::string last_body() const {
    absl::MutexLock lock(&mu_);
    return last_body_;
  }
  std::string base_url() const { return server_.Url("/v1"); }

 private:
  TestHttpServer server_;
  absl::Notification release_;
  mutable absl::Mutex mu_;
  std::deque<Scripted> script_ ABSL_GUARDED_BY(mu_);
  int requests_ ABSL_GUARDED_BY(mu_) = 0;
  std::string authorization_ ABSL_GUARDED_BY(mu_);
  std::string content_type_ ABSL_GUARDED_BY(mu_);
  std::string last_body_ ABSL_GUARDED_BY(mu_);
};

inline ProviderConfig Config(const std::string& base_url, int max_retries = 3) {
  ProviderConfig config;
  config.name = "test";
  config.base_url = base_url;
  config.api_key_env = "TEST_PROVIDER_KEY";
  config.max_retries = max_retries;
  config.initial_backoff = absl::Milliseconds(1);
  config.max_backoff = absl::Milliseconds(4);
  config.timeout = absl::Seconds(20);
  return config;
}

inline SecretLookup Env(std::map<std::string, std::string> values) {
  return [values = std::move(values)](const std::string& name) -> std::optional<std::string> {
    auto it = values.find(name);
    if (it == values.end()) return std::nullopt;
    return it->second;
  };
}

struct Result {
  absl::StatusOr<Json> reply;
  CallInfo info;
  std::thread::id thread;
};

class ProviderChannelTest : public ::testing::Test {
 protected:
  std::unique_ptr<ProviderChannel> Make(const ProviderConfig& config) {
    absl::StatusOr<std::unique_ptr<ProviderChannel>> channel = ProviderChannel::Create(
        config, http_.get(), &limiter_, &executor_, Env({{"TEST_PROVIDER_KEY", std::string("  ") + kKey + "\n"}}),
        /*max_hint=*/absl::Milliseconds(5));
    EXPECT_TRUE(channel.ok()) << channel.status();
    return channel.ok() ? *std::move(channel) : nullptr;
  }

  // For tests with a server of their own: close the connections before that server stops.
  void CloseClient() { http_.reset(); }

  Result Call(ProviderChannel& channel, Json body = Json::object({{"model", "m"}, {"n", 1}})) {
    absl::Notification done;
    Result result{absl::UnknownError("no reply"), {}, {}};
    channel.PostJson("/chat/completions", std::move(body), [&](absl::StatusOr<Json> reply, CallInfo info) {
      result = Result{std::move(reply), info, std::this_thread::get_id()};
      done.Notify();
    });
    done.WaitForNotification();
    if (!result.reply.ok()) {  // the key never shows in a Status
      EXPECT_EQ(result.reply.status().message().find(kKey), std::string::npos) << result.reply.status();
    }
    return result;
  }

  // Destroyed in reverse: the client first (closing its keep-alive connections, so the servers stop
  // at once), the executor last.
  ThreadPool executor_{2};
  ScriptedProvider server_;
  FakeLimiter limiter_{&executor_};
  std::unique_ptr<HttpClient> http_ = [this] {
    HttpClientOptions options;
    options.executor = &executor_;
    return *HttpClient::Create(options);
  }();
};

}  // namespace noveltygrid::provider_channel_testing

#endif  // NOVELTYGRID_TESTS_WORKER_HTTP_PROVIDER_CHANNEL_FIXTURE_H_
