// Test environment of the HTTP scorers: the real stack a worker builds (ThreadPool, HttpClient,
// ProviderLimiter without limits, ProviderChannel) pointed at a base URL, a canned-reply HTTP server
// for reply shapes serve-sim never sends, and a waiter that turns a callback into a value.
#ifndef NOVELTYGRID_TESTS_WORKER_SCORERS_SCORER_TEST_ENV_H_
#define NOVELTYGRID_TESTS_WORKER_SCORERS_SCORER_TEST_ENV_H_

#include <httplib.h>

#include <atomic>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "common/executor.h"
#include "common/provider_config.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "worker/http/http_client.h"
#include "worker/http/provider_channel.h"
#include "worker/limits/provider_limiter.h"

namespace noveltygrid::testing {

inline constexpr char kKeyVariable[] = "NG_SCORERS_TEST_KEY";

// One reply delivered through a callback. Wait() bounds the wait so a lost callback fails the test
// instead of hanging it; it is not a timing assertion.
template <typename Reply>
class Waiter {
 public:
  absl::AnyInvocable<void(absl::StatusOr<Reply>) &&> Callback() {
    return [this](absl::StatusOr<Reply> reply) {
      thread_ = std::this_thread::get_id();
      result_.emplace(std::move(reply));
      done_.Notify();
    };
  }
  absl::StatusOr<Reply> Wait() {
    if (!done_.WaitForNotificationWithTimeout(absl::Seconds(60))) {
      ADD_FAILURE() << "the callback never ran";
      return absl::DeadlineExceededError("the callback never ran");
    }
    return *result_;
  }
  // The thread the callback ran on (valid after Wait).
  std::thread::id thread() const { return thread_; }

 private:
  absl::Notification done_;
  std::optional<absl::StatusOr<Reply>> result_;
  std::thread::id thread_;
};

// ThreadPool + HttpClient + ProviderLimiter (no limits) + ProviderChannel for `base_url`, sending
// `key` (when non-empty) through the channel's environment lookup; no retries unless asked.
class ChannelStack {
 public:
  explicit ChannelStack(const std::string& base_url, const std::string& key = "", int max_retries = 0) : pool_(4) {
    HttpClientOptions http_options;
    http_options.executor = &pool_;
    absl::StatusOr<std::unique_ptr<HttpClient>> http = HttpClient::Create(http_options);
    EXPECT_TRUE(http.ok()) << http.status();
    if (!http.ok()) return;
    http_ = *std::move(http);

    ProviderLimiterOptions limiter_options;
    limiter_options.provider = "scorers-test";
    limiter_options.executor = &pool_;
    absl::StatusOr<std::unique_ptr<ProviderLimiter>> limiter = MakeProviderLimiter(limiter_options);
    EXPECT_TRUE(limiter.ok()) << limiter.status();
    if (!limiter.ok()) return;
    limiter_ = *std::move(limiter);

    ProviderConfig config;
    config.name = "scorers-test";
    config.base_url = base_url;
    config.api_key_env = key.empty() ? "" : kKeyVariable;
    config.timeout = absl::Seconds(30);
    config.max_retries = max_retries;
    config.initial_backoff = absl::Milliseconds(1);
    config.max_backoff = absl::Milliseconds(1);
    absl::StatusOr<std::unique_ptr<ProviderChannel>> channel = ProviderChannel::Create(
        config, http_.get(), limiter_.get(), &pool_, [key](const std::string& name) -> std::optional<std::string> {
          if (name == kKeyVariable) return key;
          return std::nullopt;
        });
    EXPECT_TRUE(channel.ok()) << channel.status();
    if (channel.ok()) channel_ = *std::move(channel);
  }

  ProviderChannel* channel() { return channel_.get(); }
  Executor* executor() { return &pool_; }

 private:
  ThreadPool pool_;  // destroyed last: the others deliver their final callbacks through it
  std::unique_ptr<HttpClient> http_;
  std::unique_ptr<ProviderLimiter> limiter_;
  std::unique_ptr<ProviderChannel> channel_;
};

// A loopback HTTP server answering POST `path` with whatever status and body the test set last.
class CannedServer {
 public:
  CannedServer() {
    server_.Post(R"(/.*)", [this](const httplib::Request& request, httplib::Response& response) {
      absl::MutexLock lock(&mu_);
      ++requests_;
      last_body_ = request.body;
      const auto reply = replies_.find(request.path);
      response.status = reply == replies_.end() ? 404 : reply->second.first;
      const std::string body =
          reply == replies_.end() ? R"({"error":{"message":"no canned reply"}})" : reply->second.second;
      response.set_content(body, "application/json");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    EXPECT_GT(port_, 0);
    listener_ = std::thread([this] {
      server_.listen_after_bind();
      listener_done_ = true;
    });
    // stop() is a no-op until the accept loop runs, so wait for it (as SimServer::Start does).
    while (!server_.is_running() && !listener_done_) std::this_thread::yield();
  }
  ~CannedServer() {
    server_.stop();
    listener_.join();
  }

  void Answer(const std::string& path, int status, std::string body) {
    absl::MutexLock lock(&mu_);
    replies_[path] = {status, std::move(body)};
  }

  std::string base_url() const { return absl::StrCat("http://127.0.0.1:", port_); }
  int requests() {
    absl::MutexLock lock(&mu_);
    return requests_;
  }
  std::string last_body() {
    absl::MutexLock lock(&mu_);
    return last_body_;
  }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread listener_;
  std::atomic<bool> listener_done_{false};
  absl::Mutex mu_;
  std::map<std::string, std::pair<int, std::string>> replies_ ABSL_GUARDED_BY(mu_);
  int requests_ ABSL_GUARDED_BY(mu_) = 0;
  std::string last_body_ ABSL_GUARDED_BY(mu_);
};

// `Scorer::Create(options, ...)` on `stack`'s channel and executor; null (and a test failure) when it
// fails.
template <typename Scorer, typename Options>
std::unique_ptr<Scorer> CreateOnStack(const Options& options, ChannelStack& stack) {
  absl::StatusOr<std::unique_ptr<Scorer>> scorer = Scorer::Create(options, stack.channel(), stack.executor());
  EXPECT_TRUE(scorer.ok()) << scorer.status();
  return scorer.ok() ? *std::move(scorer) : nullptr;
}

// For each (reply body, expected message part) of `cases`: `canned` answers `path` with that body, and
// the call `call()` makes must fail with InvalidArgument naming the problem and the endpoint ("WHAT at
// BASE_URL+PATH", `what` as "reward model 'id'").
template <typename Call>
void ExpectRepliesRejected(CannedServer& canned, const std::string& path, const std::string& what,
                           const std::vector<std::pair<std::string, std::string>>& cases, Call call) {
  for (const auto& [body, expected] : cases) {
    canned.Answer(path, 200, body);
    const auto scored = call();
    ASSERT_FALSE(scored.ok()) << body;
    EXPECT_EQ(scored.status().code(), absl::StatusCode::kInvalidArgument) << body << ": " << scored.status();
    EXPECT_THAT(std::string(scored.status().message()), ::testing::HasSubstr(expected)) << body;
    EXPECT_THAT(std::string(scored.status().message()),
                ::testing::HasSubstr(absl::StrCat(what, " at ", canned.base_url(), path)));
  }
}

}  // namespace noveltygrid::testing

#endif  // NOVELTYGRID_TESTS_WORKER_SCORERS_SCORER_TEST_ENV_H_
