// HttpClient on libcurl's multi interface, driven by an event::EventLoop (common/event) on one loop
// thread, which owns the multi handle, every easy handle (curl_transfer.h) and the timers; other
// threads only touch the intake queues under mu_ and wake the loop (EventLoop::Wake: once per batch,
// with the loop's wake-up batching, HttpClientOptions::batch_window).
//
// The loop drives curl with curl_multi_socket_action over the loop's epoll set (CURLMOPT_SOCKETFUNCTION
// registers sockets, CURLMOPT_TIMERFUNCTION arms a loop timer) rather than curl_multi_perform + multi_poll,
// whose cost grows with the transfers in flight (every transfer visited, the pollfd array rebuilt, at each
// wakeup); socket_action only touches the sockets that are ready.
#include "worker/http/http_client.h"

#include <curl/curl.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <thread>
#include <unordered_map>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "common/event/event_loop.h"
#include "common/open_files.h"
#include "common/status_macros.h"
#include "worker/http/curl_api.h"
#include "worker/http/curl_transfer.h"
#include "worker/http/http1_transport.h"

namespace noveltygrid {
namespace {

using curl_http::Curl;
using curl_http::RedactUrl;
using curl_http::ToMillis;
using curl_http::Transfer;

constexpr size_t kMaxParsedUrls = 256;      // distinct URLs kept parsed (a worker has a handful)
constexpr int kMaxEventsPerWait = 1024;     // epoll_wait's batch
constexpr long kReceiveBufferBytes = 4096;  // per easy handle (curl: 16 KiB); a bigger reply takes more reads

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
    if (options_.builtin_http1 && no_proxy_variables_ && !options_.compressed_responses) {
      http1_ = std::make_unique<http1::Http1Transport>(loop_.get(), options_, user_agent_header_,
                                                       static_cast<http1::CallSink*>(this));
    } else {
      RETURN_IF_ERROR(StartCurl());  // every request goes to curl: a missing libcurl fails here
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
    for (Transfer* t : free_) {
      Curl().easy_cleanup(t->easy);
      delete t;
    }
    if (multi_ != nullptr) Curl().multi_cleanup(multi_);
    for (auto& [url, parsed] : parsed_urls_) Curl().url_cleanup(parsed);
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
        connections_opened_.load(std::memory_order_relaxed) + (http1_ != nullptr ? http1_->connections_opened() : 0);
    return s;
  }

 private:
  struct Incoming {
    std::shared_ptr<const HttpRequest> request;
    HttpCallback done;
  };
  // The epoll registration of one file descriptor. Sockets curl opens for connections are "tracked":
  // when curl stops watching one (the transfer finished, the connection idles in the cache) it stays
  // in the epoll set, so the next transfer on the same connection costs no epoll_ctl; an event on a
  // socket nobody wants removes it then. Tracking ends when curl closes the socket (so a reused fd
  // number starts fresh). Other descriptors (the resolver's) are added and removed eagerly.
  struct FdState {
    bool tracked = false;
    uint32_t registered = 0;  // the events in the epoll set; 0 = not in it
    uint32_t wanted = 0;      // what curl asked for; 0 = nothing
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

  // A socket is ready: tell curl. The tag is the descriptor.
  void OnReady(uint64_t tag, uint32_t events) override {
    if ((tag & http1::Http1Transport::kTagBit) != 0) {
      http1_->OnReady(tag, events);
      return;
    }
    const int fd = static_cast<int>(tag);
    if (!Wanted(fd)) return;
    int flags = 0;
    if (events & (EPOLLIN | EPOLLHUP | EPOLLRDHUP)) flags |= CURL_CSELECT_IN;
    if (events & EPOLLOUT) flags |= CURL_CSELECT_OUT;
    if (events & EPOLLERR) flags |= CURL_CSELECT_ERR;
    int running = 0;
    Curl().multi_socket_action(multi_, fd, flags, &running);
  }

  // After the ready sockets and due timers (curl's among them): hand finished transfers over.
  void AfterReady() override {
    Reap();
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
    for (Transfer* t : active_) {
      Curl().multi_remove_handle(multi_, t->easy);
      Finish(std::move(t->done), cancelled);
      Recycle(t);
    }
    active_.clear();
    if (http1_ != nullptr) http1_->FailAll(cancelled);
    FlushFinished();
    loop_->Cancel(curl_timer_);
    curl_timer_ = {};
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

  FdState& Fd(int fd) {
    if (static_cast<size_t>(fd) >= fds_.size()) fds_.resize(static_cast<size_t>(fd) + 64);
    return fds_[fd];
  }

  // Puts `fd` into the loop's epoll set with `events` (0: out of it); its tag is the descriptor.
  void Register(int fd, FdState& state, uint32_t events) {
    if (state.registered == events) return;
    if (events == 0) {
      loop_->Unwatch(fd);  // may already be gone with the closed socket
    } else if (state.registered == 0 ? !loop_->Watch(fd, events, fd) : !loop_->Rewatch(fd, events, fd)) {
      // Our view was stale (a descriptor closed behind curl's back and its number reused).
      state.registered == 0 ? loop_->Rewatch(fd, events, fd) : loop_->Watch(fd, events, fd);
    }
    state.registered = events;
  }

  // False for an event on a tracked socket curl is not watching (an idle keep-alive connection the
  // server closed, say): it leaves the epoll set and curl learns of it when it reuses the connection.
  bool Wanted(int fd) {
    FdState& state = Fd(fd);
    if (state.wanted != 0) return true;
    Register(fd, state, 0);
    return false;
  }

  // curl tells which sockets to watch for what; they go into the epoll set.
  static int OnSocket(CURL*, curl_socket_t fd, int what, void* self, void*) {
    auto* client = static_cast<CurlHttpClient*>(self);
    FdState& state = client->Fd(fd);
    uint32_t events = 0;
    if (what != CURL_POLL_REMOVE) {
      if (what & CURL_POLL_IN) events |= EPOLLIN | EPOLLRDHUP;
      if (what & CURL_POLL_OUT) events |= EPOLLOUT;
    }
    state.wanted = events;
    if (events == 0 && state.tracked) return 0;  // stays registered until an event or the close
    client->Register(fd, state, events);
    return 0;
  }

  static curl_socket_t OnOpenSocket(void* self, curlsocktype, curl_sockaddr* address) {
    const curl_socket_t fd = socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
    if (fd != CURL_SOCKET_BAD) static_cast<CurlHttpClient*>(self)->Fd(fd) = FdState{.tracked = true};
    return fd;
  }

  static int OnCloseSocket(void* self, curl_socket_t fd) {
    static_cast<CurlHttpClient*>(self)->Fd(fd) = FdState{};  // close() takes it out of the epoll set
    return close(fd);
  }

  // curl wants CURL_SOCKET_TIMEOUT after `timeout_ms` (-1: never): one loop timer, re-armed.
  static int OnTimer(CURLM*, long timeout_ms, void* self) {
    auto* client = static_cast<CurlHttpClient*>(self);
    client->loop_->Cancel(client->curl_timer_);
    client->curl_timer_ = {};
    if (timeout_ms >= 0) {
      client->curl_timer_ = client->loop_->After(absl::Milliseconds(timeout_ms), [client] {
        client->curl_timer_ = {};  // curl sets the next one from inside the call
        int running = 0;
        Curl().multi_socket_action(client->multi_, CURL_SOCKET_TIMEOUT, 0, &running);
      });
    }
    return 0;
  }

  // Loop thread only. Replies are collected and handed to the executor a few per task by
  // FlushFinished(): one executor wake-up per reply cost more CPU than the reply itself.
  void Finish(HttpCallback done, absl::StatusOr<HttpResponse> result) {
    in_flight_.fetch_sub(1, std::memory_order_relaxed);
    finished_.emplace_back(std::move(done), std::move(result));
  }

  // A request of the built-in HTTP/1.1 transport finished.
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
    if (absl::Status curl = StartCurl(); !curl.ok()) {
      transport_errors_.fetch_add(1, std::memory_order_relaxed);
      Finish(std::move(in.done),
             absl::Status(curl.code(),
                          absl::StrCat(in.request->method, " ", RedactUrl(in.request->url), ": ", curl.message())));
      return;
    }
    Transfer* t;
    if (!free_.empty()) {
      t = free_.back();
      free_.pop_back();
    } else {
      t = NewTransfer();
      if (t == nullptr) {
        transport_errors_.fetch_add(1, std::memory_order_relaxed);
        Finish(std::move(in.done), absl::InternalError("curl_easy_init failed"));
        return;
      }
    }
    CURLU* parsed_url = ParsedUrl(in.request->url);
    t->Prepare(std::move(in.request), std::move(in.done), user_agent_header_, parsed_url);
    const HttpRequest& r = *t->request;
    const CURLMcode added = Curl().multi_add_handle(multi_, t->easy);
    if (added != CURLM_OK) {
      transport_errors_.fetch_add(1, std::memory_order_relaxed);
      Finish(std::move(t->done),
             absl::InternalError(absl::StrCat(r.method, " ", RedactUrl(r.url),
                                              ": curl_multi_add_handle: ", Curl().multi_strerror(added))));
      Recycle(t);
      return;
    }
    t->slot = active_.size();
    active_.push_back(t);
  }

  // Loads libcurl and makes the multi handle: in Start() when curl carries every request, else on the
  // loop thread before the first request the built-in transport does not take (curl_api.h).
  absl::Status StartCurl() {
    if (multi_ != nullptr) return absl::OkStatus();
    ASSIGN_OR_RETURN(const curl_http::CurlApi* curl, curl_http::LoadCurl());
    multi_ = curl->multi_init();
    if (multi_ == nullptr) return absl::InternalError("curl_multi_init failed");
    curl->multi_setopt(multi_, CURLMOPT_PIPELINING, static_cast<long>(CURLPIPE_MULTIPLEX));
    curl->multi_setopt(multi_, CURLMOPT_MAX_HOST_CONNECTIONS, static_cast<long>(options_.max_connections_per_host));
    curl->multi_setopt(multi_, CURLMOPT_MAX_TOTAL_CONNECTIONS, static_cast<long>(options_.max_total_connections));
    curl->multi_setopt(multi_, CURLMOPT_MAXCONNECTS, static_cast<long>(std::max(options_.max_total_connections, 1)));
    curl->multi_setopt(multi_, CURLMOPT_SOCKETFUNCTION, &CurlHttpClient::OnSocket);
    curl->multi_setopt(multi_, CURLMOPT_SOCKETDATA, this);
    curl->multi_setopt(multi_, CURLMOPT_TIMERFUNCTION, &CurlHttpClient::OnTimer);
    curl->multi_setopt(multi_, CURLMOPT_TIMERDATA, this);
    return absl::OkStatus();
  }

  // A transfer with a fresh easy handle and the options every request shares.
  Transfer* NewTransfer() {
    const curl_http::CurlApi& curl = Curl();
    CURL* e = curl.easy_init();
    if (e == nullptr) return nullptr;
    auto* t = new Transfer;
    t->easy = e;
    curl.easy_setopt(e, CURLOPT_PRIVATE, t);
    curl.easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl.easy_setopt(e, CURLOPT_BUFFERSIZE, kReceiveBufferBytes);
    curl.easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
    curl.easy_setopt(e, CURLOPT_TCP_NODELAY, 1L);
    curl.easy_setopt(
        e, CURLOPT_HTTP_VERSION,
        options_.http2 ? static_cast<long>(CURL_HTTP_VERSION_2TLS) : static_cast<long>(CURL_HTTP_VERSION_1_1));
    if (options_.compressed_responses) curl.easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");  // gzip, br, ...
    if (no_proxy_variables_) {
      curl.easy_setopt(e, CURLOPT_PROXY, "");
      curl.easy_setopt(e, CURLOPT_NOPROXY, "");
    }
    t->max_body = options_.max_response_bytes;
    t->InstallCallbacks();
    curl.easy_setopt(e, CURLOPT_OPENSOCKETFUNCTION, &CurlHttpClient::OnOpenSocket);
    curl.easy_setopt(e, CURLOPT_OPENSOCKETDATA, this);
    curl.easy_setopt(e, CURLOPT_CLOSESOCKETFUNCTION, &CurlHttpClient::OnCloseSocket);
    curl.easy_setopt(e, CURLOPT_CLOSESOCKETDATA, this);
    return t;
  }

  // `url` parsed once for CURLOPT_CURLU (with the flags curl parses CURLOPT_URL with), so that curl
  // copies the parts instead of parsing the text and printing it back for every request. Null when
  // the URL does not parse (curl then reports it) or too many distinct URLs were seen.
  CURLU* ParsedUrl(const std::string& url) {
    if (auto it = parsed_urls_.find(url); it != parsed_urls_.end()) return it->second;
    if (parsed_urls_.size() >= kMaxParsedUrls) return nullptr;
    CURLU* parsed = Curl().url();
    if (parsed != nullptr && Curl().url_set(parsed, CURLUPART_URL, url.c_str(),
                                            CURLU_GUESS_SCHEME | CURLU_NON_SUPPORT_SCHEME) != CURLUE_OK) {
      Curl().url_cleanup(parsed);
      parsed = nullptr;
    }
    parsed_urls_.emplace(url, parsed);
    return parsed;
  }

  void Reap() {
    if (multi_ == nullptr) return;  // curl not started: nothing of its to reap
    int queued = 0;
    while (CURLMsg* msg = Curl().multi_info_read(multi_, &queued)) {
      if (msg->msg != CURLMSG_DONE) continue;
      CURL* e = msg->easy_handle;
      const CURLcode code = msg->data.result;
      Transfer* t = nullptr;
      Curl().easy_getinfo(e, CURLINFO_PRIVATE, reinterpret_cast<char**>(&t));
      long connects = 0;
      Curl().easy_getinfo(e, CURLINFO_NUM_CONNECTS, &connects);
      connections_opened_.fetch_add(connects, std::memory_order_relaxed);
      Curl().multi_remove_handle(multi_, e);
      // Swap-remove from the active list.
      active_[t->slot] = active_.back();
      active_[t->slot]->slot = t->slot;
      active_.pop_back();

      if (code != CURLE_OK) {
        transport_errors_.fetch_add(1, std::memory_order_relaxed);
        Finish(std::move(t->done), t->Failure(code));
      } else {
        Finish(std::move(t->done), t->TakeResponse());
      }
      Recycle(t);
    }
  }

  void Recycle(Transfer* t) {
    t->Clear();
    free_.push_back(t);
  }

  // Constant after construction.
  const HttpClientOptions options_;
  const std::string user_agent_header_;  // "User-Agent: ..."
  const bool no_proxy_variables_;        // see ProxyVariablesUnset
  std::unique_ptr<event::EventLoop> loop_;
  std::unique_ptr<http1::Http1Transport> http1_;  // plain http:// to addresses; null: curl for everything
  std::thread loop_thread_;

  // Owned by the loop thread.
  CURLM* multi_ = nullptr;     // made by StartCurl (in Start, before the thread, or on it)
  event::TimerId curl_timer_;  // when curl wants CURL_SOCKET_TIMEOUT
  std::vector<FdState> fds_;   // by descriptor number
  std::vector<Incoming> intake_;
  std::vector<NewTimer> timers_intake_;
  std::vector<Task> timer_tasks_;  // see AddTimer
  std::vector<uint32_t> free_timer_tasks_;
  std::vector<Transfer*> active_;
  std::vector<std::pair<HttpCallback, absl::StatusOr<HttpResponse>>> finished_;  // replies not yet handed over
  std::vector<Transfer*> free_;
  std::unordered_map<std::string, CURLU*> parsed_urls_;  // see ParsedUrl; null values too

  absl::Mutex mu_;
  std::vector<Incoming> incoming_ ABSL_GUARDED_BY(mu_);
  std::vector<NewTimer> new_timers_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;

  std::atomic<int64_t> requests_{0};
  std::atomic<int64_t> in_flight_{0};
  std::atomic<int64_t> transport_errors_{0};
  std::atomic<int64_t> connections_opened_{0};
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
