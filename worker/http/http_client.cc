// HttpClient: an event::EventLoop (common/event) on one loop thread that carries each request over
// one of two transports -- the built-in HTTP/1.1 one (http1_transport.h) for plain http:// to an IP
// address, libcurl's multi interface (curl_multi.h) for the rest -- plus RunAfter's timers, the counts
// of Stats() and the batching of replies to the executor. The loop thread owns both transports and
// the timers; other threads only touch the intake queues under mu_ and wake the loop
// (EventLoop::Wake: once per batch, with the loop's wake-up batching, HttpClientOptions::batch_window).
#include "worker/http/http_client.h"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <thread>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "common/event/event_loop.h"
#include "common/open_files.h"
#include "common/status_macros.h"
#include "worker/http/curl_api.h"
#include "worker/http/curl_multi.h"
#include "worker/http/http1_transport.h"

namespace noveltygrid {
namespace {

constexpr int kMaxEventsPerWait = 1024;  // epoll_wait's batch

// True when none of the variables curl reads for a proxy (or for exceptions to it) is set: then
// CURLOPT_PROXY "" and CURLOPT_NOPROXY "" mean what the empty environment means, and spare curl
// five getenv() calls per request.
bool ProxyVariablesUnset() {
  for (const char* name : {"http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY",
                           "no_proxy", "NO_PROXY", "socks_proxy", "SOCKS_PROXY"}) {
    if (std::getenv(name) != nullptr) return false;
  }
  return true;
}

class CurlHttpClient : public HttpClient, private event::EventLoop::Handler, private http1::CallSink {
 public:
  explicit CurlHttpClient(const HttpClientOptions& options)
      : options_(options),
        user_agent_header_(absl::StrCat("User-Agent: ", options.user_agent)),
        no_proxy_variables_(ProxyVariablesUnset()) {}

  absl::Status Start() {
    absl::StatusOr<std::unique_ptr<event::EventLoop>> loop =
        event::EventLoop::Create(this, {.max_events = kMaxEventsPerWait, .batch_window = options_.batch_window});
    if (!loop.ok()) return loop.status();
    loop_ = std::move(*loop);
    curl_ = std::make_unique<curl_http::CurlMulti>(loop_.get(), options_, user_agent_header_, no_proxy_variables_,
                                                   static_cast<http1::CallSink*>(this));
    if (options_.builtin_http1 && no_proxy_variables_ && !options_.compressed_responses) {
      http1_ = std::make_unique<http1::Http1Transport>(loop_.get(), options_, user_agent_header_,
                                                       static_cast<http1::CallSink*>(this));
    } else {
      RETURN_IF_ERROR(curl_->Init());  // every request goes to curl: a missing libcurl fails here
    }
    loop_thread_ = std::thread([this] {
      pthread_setname_np(pthread_self(), "ng-http-loop");  // findable in top and in load tests
      loop_->Run();
      Shutdown();
    });
    return absl::OkStatus();
  }

  ~CurlHttpClient() override {
    Abort();
    if (loop_thread_.joinable()) loop_thread_.join();
    curl_.reset();  // while loop_ lives: curl's cleanup may still take sockets out of its epoll set
  }

  void Abort() override {
    {
      absl::MutexLock lock(&mu_);
      stopping_ = true;
    }
    if (loop_ != nullptr) loop_->Wake();  // BeforeWait sees stopping_ and ends the loop
  }

  using HttpClient::Send;
  void Send(std::shared_ptr<const HttpRequest> request, HttpCallback done) override {
    {
      absl::MutexLock lock(&mu_);
      if (!stopping_) {
        requests_.fetch_add(1, std::memory_order_relaxed);
        in_flight_.fetch_add(1, std::memory_order_relaxed);
        incoming_.push_back(Incoming{std::move(request), std::move(done)});
        done = nullptr;
      }
    }
    if (done == nullptr) {
      loop_->Wake();
      return;
    }
    options_.executor->Schedule(
        [done = std::move(done)]() mutable { std::move(done)(absl::CancelledError("HTTP client is shutting down")); });
  }

  void RunAfter(absl::Duration delay, Task task) override {
    {
      absl::MutexLock lock(&mu_);
      if (!stopping_) {
        new_timers_.push_back(NewTimer{absl::Now() + delay, std::move(task)});
        task = nullptr;
      }
    }
    if (task == nullptr) {
      loop_->Wake();
      return;
    }
    options_.executor->Schedule(std::move(task));
  }

  absl::Status CheckUrl(const std::string& url) override {
    if (http1_ != nullptr && http1::Http1Transport::Carries(url)) return absl::OkStatus();
    return curl_http::LoadCurl().status();
  }

  HttpClientStats Stats() const override {
    HttpClientStats s;
    s.requests = requests_.load(std::memory_order_relaxed);
    s.in_flight = in_flight_.load(std::memory_order_relaxed);
    s.transport_errors = transport_errors_.load(std::memory_order_relaxed);
    s.connections_opened =
        (curl_ != nullptr ? curl_->connections_opened() : 0) + (http1_ != nullptr ? http1_->connections_opened() : 0);
    return s;
  }

 private:
  struct Incoming {
    std::shared_ptr<const HttpRequest> request;
    HttpCallback done;
  };
  struct NewTimer {
    absl::Time due;
    Task task;
  };

  // Loop thread, every round: take the requests and timers other threads queued, start the
  // requests; once stopping, end the loop instead (Shutdown follows).
  void BeforeWait() override {
    bool stopping;
    {
      absl::MutexLock lock(&mu_);
      intake_.swap(incoming_);
      timers_intake_.swap(new_timers_);
      stopping = stopping_;
    }
    for (NewTimer& timer : timers_intake_) AddTimer(timer.due, std::move(timer.task));
    timers_intake_.clear();
    if (stopping) {
      loop_->Quit();
      return;
    }
    for (Incoming& in : intake_) Start(std::move(in));
    intake_.clear();
    FlushFinished();  // requests that failed to start
  }

  // A socket is ready: the built-in transport's (its tags carry kTagBit) or curl's (the tag is the descriptor).
  void OnReady(uint64_t tag, uint32_t events) override {
    if ((tag & http1::Http1Transport::kTagBit) != 0) {
      http1_->OnReady(tag, events);
      return;
    }
    curl_->OnReady(static_cast<int>(tag), events);
  }

  // After the ready sockets and due timers (curl's among them): hand finished transfers over.
  void AfterReady() override {
    curl_->Reap();
    FlushFinished();
  }

  // Loop thread, once Run returned: requests queued but never started, transfers in flight, then
  // timers (their tasks are scheduled at once, in due order).
  void Shutdown() {
    {
      absl::MutexLock lock(&mu_);
      stopping_ = true;  // already, unless the loop itself failed
      intake_.insert(intake_.end(), std::make_move_iterator(incoming_.begin()),
                     std::make_move_iterator(incoming_.end()));
      incoming_.clear();
    }
    const absl::Status cancelled = absl::CancelledError("HTTP client is shutting down");
    for (Incoming& in : intake_) Finish(std::move(in.done), cancelled);
    intake_.clear();
    curl_->FailAll(cancelled);  // also stops curl's timer
    if (http1_ != nullptr) http1_->FailAll(cancelled);
    FlushFinished();
    loop_->timers().RunAll();
  }

  // RunAfter's task waits in timer_tasks_ and the loop timer holds only its slot: two words of
  // captures, stored in the timer itself, so a RunAfter allocates nothing on the loop.
  void AddTimer(absl::Time due, Task task) {
    uint32_t slot;
    if (!free_timer_tasks_.empty()) {
      slot = free_timer_tasks_.back();
      free_timer_tasks_.pop_back();
      timer_tasks_[slot] = std::move(task);
    } else {
      slot = static_cast<uint32_t>(timer_tasks_.size());
      timer_tasks_.push_back(std::move(task));
    }
    loop_->At(due, [this, slot] {
      options_.executor->Schedule(std::move(timer_tasks_[slot]));
      timer_tasks_[slot] = nullptr;
      free_timer_tasks_.push_back(slot);
    });
  }

  // Loop thread only. Replies are collected and handed to the executor a few per task by
  // FlushFinished(): one executor wake-up per reply cost more CPU than the reply itself.
  void Finish(HttpCallback done, absl::StatusOr<HttpResponse> result) {
    in_flight_.fetch_sub(1, std::memory_order_relaxed);
    finished_.emplace_back(std::move(done), std::move(result));
  }

  // A request of either transport finished. Cancellations (at Shutdown) are no transport errors.
  void Finished(HttpCallback done, absl::StatusOr<HttpResponse> result) override {
    if (!result.ok() && !absl::IsCancelled(result.status())) {
      transport_errors_.fetch_add(1, std::memory_order_relaxed);
    }
    Finish(std::move(done), std::move(result));
  }

  void FlushFinished() {
    constexpr size_t kRepliesPerTask = 8;  // small enough that several executor threads share a burst
    for (size_t begin = 0; begin < finished_.size(); begin += kRepliesPerTask) {
      const size_t end = std::min(finished_.size(), begin + kRepliesPerTask);
      std::vector<std::pair<HttpCallback, absl::StatusOr<HttpResponse>>> chunk;
      chunk.reserve(end - begin);
      for (size_t i = begin; i < end; ++i) chunk.push_back(std::move(finished_[i]));
      options_.executor->Schedule([chunk = std::move(chunk)]() mutable {
        for (auto& [done, result] : chunk) std::move(done)(std::move(result));
      });
    }
    finished_.clear();
  }

  void Start(Incoming in) {
    if (http1_ != nullptr && http1_->TryStart(in.request, in.done)) return;
    curl_->Send(std::move(in.request), std::move(in.done));
  }

  // Constant after construction.
  const HttpClientOptions options_;
  const std::string user_agent_header_;  // "User-Agent: ..."
  const bool no_proxy_variables_;        // see ProxyVariablesUnset
  std::unique_ptr<event::EventLoop> loop_;
  std::unique_ptr<curl_http::CurlMulti> curl_;    // everything http1_ does not take; libcurl loaded on demand
  std::unique_ptr<http1::Http1Transport> http1_;  // plain http:// to addresses; null: curl for everything
  std::thread loop_thread_;

  // Owned by the loop thread.
  std::vector<Incoming> intake_;
  std::vector<NewTimer> timers_intake_;
  std::vector<Task> timer_tasks_;  // see AddTimer
  std::vector<uint32_t> free_timer_tasks_;
  std::vector<std::pair<HttpCallback, absl::StatusOr<HttpResponse>>> finished_;  // replies not yet handed over

  absl::Mutex mu_;
  std::vector<Incoming> incoming_ ABSL_GUARDED_BY(mu_);
  std::vector<NewTimer> new_timers_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;

  std::atomic<int64_t> requests_{0};
  std::atomic<int64_t> in_flight_{0};
  std::atomic<int64_t> transport_errors_{0};
};

}  // namespace

absl::StatusOr<std::unique_ptr<HttpClient>> HttpClient::Create(const HttpClientOptions& options) {
  if (options.executor == nullptr) return absl::InvalidArgumentError("HttpClientOptions.executor is required");
  if (options.max_connections_per_host < 0 || options.max_total_connections < 0) {
    return absl::InvalidArgumentError("HTTP connection limits must be >= 0 (0 = unlimited)");
  }
  HttpClientOptions capped = options;
  if (const char* engine = std::getenv("NOVELTYGRID_HTTP1"); engine != nullptr && *engine != '\0') {
    const absl::string_view e(engine);
    if (e != "curl" && e != "builtin") {
      return absl::InvalidArgumentError(
          absl::StrCat("NOVELTYGRID_HTTP1 is \"", e, "\"; it takes \"builtin\" (the default) or \"curl\""));
    }
    capped.builtin_http1 = capped.builtin_http1 && e == "builtin";
  }
  if (std::optional<int> room = ConnectionRoom(); room.has_value()) {
    for (int* cap : {&capped.max_connections_per_host, &capped.max_total_connections}) {
      *cap = *cap == 0 ? *room : std::min(*cap, *room);
    }
  }
  auto client = std::make_unique<CurlHttpClient>(capped);
  absl::Status started = client->Start();
  if (!started.ok()) return started;
  return client;
}

}  // namespace noveltygrid
