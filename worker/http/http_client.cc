// HttpClient on libcurl's multi interface: one loop thread owns the multi handle, every easy handle
// and the timer heap; other threads only touch the intake queues under mu_ and wake the loop through
// an eventfd (once per batch: wake_pending_).
//
// The loop drives curl with curl_multi_socket_action over its own epoll set (CURLMOPT_SOCKETFUNCTION /
// TIMERFUNCTION) rather than curl_multi_perform + curl_multi_poll: perform visits every transfer (and
// poll()s its socket) on each wakeup and multi_poll rebuilds the pollfd array each time, so their
// cost grows with the transfers in flight; socket_action only touches the sockets that are ready.
#include "worker/http/http_client.h"

#include <curl/curl.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <queue>
#include <thread>
#include <unordered_map>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"

namespace noveltygrid {
namespace {

constexpr int kIdlePollMs = 60'000;             // the loop sleeps this long at most when nothing is due
constexpr uint64_t kMaxBodyReserve = 64 << 20;  // a Content-Length beyond this is not trusted for reserve()
constexpr size_t kMaxParsedUrls = 256;          // distinct URLs kept parsed (a worker has a handful)

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

long ToMillis(absl::Duration d) {
  const int64_t ms = absl::ToInt64Milliseconds(absl::Ceil(d, absl::Milliseconds(1)));
  return static_cast<long>(std::clamp<int64_t>(ms, 1, 0x7fffffff));
}

// scheme://host[:port]/path -- without userinfo and query string, which may carry credentials.
std::string RedactUrl(absl::string_view url) {
  url = url.substr(0, url.find_first_of("?#"));
  const size_t scheme_end = url.find("://");
  const size_t authority = scheme_end == absl::string_view::npos ? 0 : scheme_end + 3;
  const size_t path = url.find('/', authority);
  const size_t at = url.substr(0, path).find('@', authority);
  if (at == absl::string_view::npos) return std::string(url);
  return absl::StrCat(url.substr(0, authority), url.substr(at + 1));
}

// The one place curl errors become Status. `detail` is curl's error buffer (no request headers).
absl::Status CurlError(CURLcode code, const char* detail, const HttpRequest& request) {
  std::string message = absl::StrCat(request.method, " ", RedactUrl(request.url), ": ", curl_easy_strerror(code));
  if (detail != nullptr && detail[0] != '\0') absl::StrAppend(&message, " (", detail, ")");
  switch (code) {
    case CURLE_OPERATION_TIMEDOUT:
      return absl::DeadlineExceededError(message);
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_SSL_CONNECT_ERROR:  // a handshake cut short: may be the network
    case CURLE_SSL_SHUTDOWN_FAILED:
    case CURLE_SSL_INVALIDCERTSTATUS:  // an OCSP answer that did not come
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
    case CURLE_HTTP3:
    case CURLE_QUIC_CONNECT_ERROR:
      return absl::UnavailableError(message);
    // Certificates this machine cannot verify or present: its CA bundle, pinning or client
    // certificate is wrong, and no retry will change that.
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_CRL_BADFILE:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_CLIENTCERT:
    case CURLE_SSL_CIPHER:
      return absl::UnauthenticatedError(message);
    default:
      return absl::InternalError(message);
  }
}

// One request from Send to its callback. Pooled with its easy handle, so steady traffic allocates
// neither handles nor header lists: the curl_slist is rebuilt only when a request's headers differ
// from those of the transfer's previous request (a provider sends the same ones every time).
struct Transfer {
  CURL* easy = nullptr;
  size_t slot = 0;  // index in the loop's active list
  std::shared_ptr<const HttpRequest> request;
  HttpCallback done;
  curl_slist* headers = nullptr;
  std::vector<std::string> headers_source;  // what `headers` was built from
  HttpResponse response;
  std::string retry_after;
  std::string retry_after_ms;
  char error[CURL_ERROR_SIZE] = {};

  // `user_agent` is the client's "User-Agent: ..." line, sent unless the request has its own: as a
  // header rather than CURLOPT_USERAGENT, which curl formats afresh for every request.
  void SetHeaders(const std::vector<std::string>& wanted, const std::string& user_agent) {
    if (headers != nullptr && wanted == headers_source) return;
    curl_slist_free_all(headers);
    headers = nullptr;
    bool has_agent = false;
    for (const std::string& header : wanted) {
      headers = curl_slist_append(headers, header.c_str());
      has_agent = has_agent || absl::StartsWithIgnoreCase(header, "user-agent:");
    }
    if (!has_agent) headers = curl_slist_append(headers, user_agent.c_str());
    headers = curl_slist_append(headers, "Expect:");  // no 100-continue round trip for big bodies
    headers_source = wanted;
  }

  void Clear() {
    request.reset();
    done = nullptr;
    response = HttpResponse();
    retry_after.clear();
    retry_after_ms.clear();
    error[0] = '\0';
  }

  ~Transfer() { curl_slist_free_all(headers); }
};

size_t OnBody(char* data, size_t size, size_t count, void* user) {
  static_cast<Transfer*>(user)->response.body.append(data, size * count);
  return size * count;
}

size_t OnHeader(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t n = size * count;
  absl::string_view line(data, n);
  if (absl::StartsWith(line, "HTTP/")) {  // a new response (after 100 Continue or a redirect): start over
    t->response.content_type.clear();
    t->retry_after.clear();
    t->retry_after_ms.clear();
    return n;
  }
  const size_t colon = line.find(':');
  if (colon == absl::string_view::npos) return n;
  const absl::string_view name = absl::StripAsciiWhitespace(line.substr(0, colon));
  const absl::string_view value = absl::StripAsciiWhitespace(line.substr(colon + 1));
  if (absl::EqualsIgnoreCase(name, "content-type")) {
    t->response.content_type = std::string(value);
  } else if (absl::EqualsIgnoreCase(name, "content-length")) {
    // Room for the whole body at once rather than a string grown (and copied) chunk by chunk.
    uint64_t length = 0;
    if (absl::SimpleAtoi(value, &length) && length <= kMaxBodyReserve) t->response.body.reserve(length);
  } else if (absl::EqualsIgnoreCase(name, "retry-after")) {
    t->retry_after = std::string(value);
  } else if (absl::EqualsIgnoreCase(name, "retry-after-ms")) {
    t->retry_after_ms = std::string(value);
  }
  return n;
}

void GlobalInit() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

class CurlHttpClient : public HttpClient {
 public:
  explicit CurlHttpClient(const HttpClientOptions& options)
      : options_(options),
        user_agent_header_(absl::StrCat("User-Agent: ", options.user_agent)),
        no_proxy_variables_(ProxyVariablesUnset()) {}

  absl::Status Start() {
    multi_ = curl_multi_init();
    if (multi_ == nullptr) return absl::InternalError("curl_multi_init failed");
    curl_multi_setopt(multi_, CURLMOPT_PIPELINING, static_cast<long>(CURLPIPE_MULTIPLEX));
    curl_multi_setopt(multi_, CURLMOPT_MAX_HOST_CONNECTIONS, static_cast<long>(options_.max_connections_per_host));
    curl_multi_setopt(multi_, CURLMOPT_MAX_TOTAL_CONNECTIONS, static_cast<long>(options_.max_total_connections));
    curl_multi_setopt(multi_, CURLMOPT_MAXCONNECTS, static_cast<long>(std::max(options_.max_total_connections, 1)));
    curl_multi_setopt(multi_, CURLMOPT_SOCKETFUNCTION, &CurlHttpClient::OnSocket);
    curl_multi_setopt(multi_, CURLMOPT_SOCKETDATA, this);
    curl_multi_setopt(multi_, CURLMOPT_TIMERFUNCTION, &CurlHttpClient::OnTimer);
    curl_multi_setopt(multi_, CURLMOPT_TIMERDATA, this);
    epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
    wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (epoll_fd_ < 0 || wake_fd_ < 0)
      return absl::InternalError(absl::StrCat("epoll/eventfd: ", std::strerror(errno)));
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = wake_fd_;
    if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, wake_fd_, &ev) != 0) {
      return absl::InternalError(absl::StrCat("epoll_ctl: ", std::strerror(errno)));
    }
    loop_ = std::thread([this] { Loop(); });
    return absl::OkStatus();
  }

  ~CurlHttpClient() override {
    {
      absl::MutexLock lock(&mu_);
      stopping_ = true;
    }
    if (loop_.joinable()) {
      Wake();
      loop_.join();
    }
    for (Transfer* t : free_) {
      curl_easy_cleanup(t->easy);
      delete t;
    }
    if (multi_ != nullptr) curl_multi_cleanup(multi_);
    for (auto& [url, parsed] : parsed_urls_) curl_url_cleanup(parsed);
    if (wake_fd_ >= 0) close(wake_fd_);
    if (epoll_fd_ >= 0) close(epoll_fd_);
  }

  void Abort() override {
    {
      absl::MutexLock lock(&mu_);
      stopping_ = true;
    }
    Wake();
  }

  using HttpClient::Send;
  void Send(std::shared_ptr<const HttpRequest> request, HttpCallback done) override {
    bool queued = false;
    bool wake = false;
    {
      absl::MutexLock lock(&mu_);
      if (!stopping_) {
        requests_.fetch_add(1, std::memory_order_relaxed);
        in_flight_.fetch_add(1, std::memory_order_relaxed);
        incoming_.push_back(Incoming{std::move(request), std::move(done)});
        queued = true;
        wake = WakeLocked();
      }
    }
    if (queued) {
      if (wake) Wake();
      return;
    }
    options_.executor->Schedule(
        [done = std::move(done)]() mutable { std::move(done)(absl::CancelledError("HTTP client is shutting down")); });
  }

  void RunAfter(absl::Duration delay, Task task) override {
    bool queued = false;
    bool wake = false;
    {
      absl::MutexLock lock(&mu_);
      if (!stopping_) {
        new_timers_.push_back(Timer{absl::Now() + delay, 0, std::move(task)});
        queued = true;
        wake = WakeLocked();
      }
    }
    if (queued) {
      if (wake) Wake();
      return;
    }
    options_.executor->Schedule(std::move(task));
  }

  HttpClientStats Stats() const override {
    HttpClientStats s;
    s.requests = requests_.load(std::memory_order_relaxed);
    s.in_flight = in_flight_.load(std::memory_order_relaxed);
    s.transport_errors = transport_errors_.load(std::memory_order_relaxed);
    s.connections_opened = connections_opened_.load(std::memory_order_relaxed);
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
  struct Timer {
    absl::Time due;
    uint64_t seq = 0;  // FIFO among equal due times
    Task task;
  };
  struct Later {
    bool operator()(const Timer& a, const Timer& b) const { return a.due != b.due ? a.due > b.due : a.seq > b.seq; }
  };

  // True when the loop must be woken (it may be asleep with nothing queued before this item);
  // later items in the same batch ride on that one wakeup.
  bool WakeLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (wake_pending_) return false;
    wake_pending_ = true;
    return true;
  }

  void Loop() {
    pthread_setname_np(pthread_self(), "ng-http-loop");  // findable in top and in load tests
    std::vector<Incoming> incoming;
    std::vector<Timer> new_timers;
    bool stopping = false;
    absl::Time last_wake = absl::InfinitePast();  // when epoll_wait last returned events
    while (true) {
      {
        absl::MutexLock lock(&mu_);
        incoming.swap(incoming_);
        new_timers.swap(new_timers_);
        wake_pending_ = false;
        stopping = stopping_;
      }
      for (Timer& timer : new_timers) {
        timer.seq = timer_seq_++;
        timers_.push(std::move(timer));
      }
      new_timers.clear();
      if (stopping) break;
      for (Incoming& in : incoming) Start(std::move(in));
      incoming.clear();
      FlushFinished();  // requests that failed to start

      // Wait for socket activity, curl's next timeout, the next timer or a wakeup.
      int timeout_ms = kIdlePollMs;
      const absl::Time now = absl::Now();
      if (curl_deadline_.has_value()) timeout_ms = std::min<long>(timeout_ms, WaitMillis(*curl_deadline_ - now));
      if (!timers_.empty()) timeout_ms = std::min<long>(timeout_ms, WaitMillis(timers_.top().due - now));
      const int n = epoll_wait(epoll_fd_, events_.data(), static_cast<int>(events_.size()), timeout_ms);
      const absl::Time woke = n > 0 ? absl::Now() : absl::InfinitePast();
      int running = 0;
      for (int i = 0; i < n; ++i) {
        const epoll_event& ev = events_[i];
        if (ev.data.fd == wake_fd_) {
          uint64_t count;
          ssize_t ignored = read(wake_fd_, &count, sizeof count);  // one read resets the eventfd counter
          (void)ignored;
          continue;
        }
        if (!Wanted(ev.data.fd)) continue;
        int flags = 0;
        if (ev.events & (EPOLLIN | EPOLLHUP | EPOLLRDHUP)) flags |= CURL_CSELECT_IN;
        if (ev.events & EPOLLOUT) flags |= CURL_CSELECT_OUT;
        if (ev.events & EPOLLERR) flags |= CURL_CSELECT_ERR;
        curl_multi_socket_action(multi_, ev.data.fd, flags, &running);
      }
      if (curl_deadline_.has_value() && *curl_deadline_ <= absl::Now()) {
        curl_deadline_.reset();  // curl sets the next one from inside the call
        curl_multi_socket_action(multi_, CURL_SOCKET_TIMEOUT, 0, &running);
      }
      Reap();
      FlushFinished();
      RunDueTimers();
      if (n > 0) {
        Pause(woke, last_wake);
        last_wake = woke;
      }
    }
    // Shutting down: requests queued but never started, transfers in flight, then timers.
    const absl::Status cancelled = absl::CancelledError("HTTP client is shutting down");
    for (Incoming& in : incoming) Finish(std::move(in.done), cancelled);
    for (Transfer* t : active_) {
      curl_multi_remove_handle(multi_, t->easy);
      Finish(std::move(t->done), cancelled);
      Recycle(t);
    }
    active_.clear();
    FlushFinished();
    while (!timers_.empty()) {
      options_.executor->Schedule(std::move(const_cast<Timer&>(timers_.top()).task));
      timers_.pop();
    }
  }

  // Wake-up batching (HttpClientOptions::batch_window): after a wake-up at `woke` that came soon after
  // the one at `previous`, sleep until woke + batch_window. Meanwhile Send and RunAfter only queue
  // (wake_pending_ set: no eventfd write); the next round takes everything that came due at once.
  void Pause(absl::Time woke, absl::Time previous) {
    const absl::Duration window = options_.batch_window;
    if (window <= absl::ZeroDuration() || woke - previous >= 2 * window) return;
    const absl::Duration left = woke + window - absl::Now();
    if (left <= absl::ZeroDuration()) return;
    {
      absl::MutexLock lock(&mu_);
      if (stopping_) return;
      wake_pending_ = true;  // reset at the top of the next round, which reads the queues
    }
    absl::SleepFor(left);
  }

  // Milliseconds to wait for a deadline `left` away, rounded up so the loop does not spin.
  static long WaitMillis(absl::Duration left) {
    if (left <= absl::ZeroDuration()) return 0;
    return ToMillis(left);
  }

  void Wake() {
    const uint64_t one = 1;
    ssize_t ignored = write(wake_fd_, &one, sizeof one);  // EAGAIN: a wakeup is already pending
    (void)ignored;
  }

  FdState& Fd(int fd) {
    if (static_cast<size_t>(fd) >= fds_.size()) fds_.resize(static_cast<size_t>(fd) + 64);
    return fds_[fd];
  }

  // Puts `fd` into the epoll set with `events` (0: out of it).
  void Register(int fd, FdState& state, uint32_t events) {
    if (state.registered == events) return;
    if (events == 0) {
      epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);  // may already be gone with the closed socket
    } else {
      epoll_event ev{};
      ev.data.fd = fd;
      ev.events = events;
      const int op = state.registered == 0 ? EPOLL_CTL_ADD : EPOLL_CTL_MOD;
      if (epoll_ctl(epoll_fd_, op, fd, &ev) != 0) {
        // Our view was stale (a descriptor closed behind curl's back and its number reused).
        epoll_ctl(epoll_fd_, op == EPOLL_CTL_ADD ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, fd, &ev);
      }
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

  static int OnTimer(CURLM*, long timeout_ms, void* self) {
    auto* client = static_cast<CurlHttpClient*>(self);
    if (timeout_ms < 0) {
      client->curl_deadline_.reset();
    } else {
      client->curl_deadline_ = absl::Now() + absl::Milliseconds(timeout_ms);
    }
    return 0;
  }

  // Loop thread only. Replies are collected and handed to the executor a few per task by
  // FlushFinished(): one executor wake-up per reply cost more CPU than the reply itself.
  void Finish(HttpCallback done, absl::StatusOr<HttpResponse> result) {
    in_flight_.fetch_sub(1, std::memory_order_relaxed);
    finished_.emplace_back(std::move(done), std::move(result));
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
    // A pooled handle keeps its constant options (no curl_easy_reset: that frees and re-allocates
    // curl's buffers every time); everything that varies per request is set here.
    t->request = std::move(in.request);
    t->done = std::move(in.done);
    const HttpRequest& r = *t->request;
    CURL* e = t->easy;
    t->SetHeaders(r.headers, user_agent_header_);
    curl_easy_setopt(e, CURLOPT_URL, r.url.c_str());
    curl_easy_setopt(e, CURLOPT_CURLU, ParsedUrl(r.url));  // null: curl parses CURLOPT_URL itself
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, ToMillis(r.timeout));
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, ToMillis(r.connect_timeout));
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, t->headers);
    if (r.method == "GET") {
      curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
      curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, nullptr);
    } else {
      curl_easy_setopt(e, CURLOPT_POST, 1L);
      curl_easy_setopt(e, CURLOPT_POSTFIELDS, r.body.data());
      curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(r.body.size()));
      curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, r.method == "POST" ? nullptr : r.method.c_str());
    }
    const CURLMcode added = curl_multi_add_handle(multi_, e);
    if (added != CURLM_OK) {
      transport_errors_.fetch_add(1, std::memory_order_relaxed);
      Finish(std::move(t->done),
             absl::InternalError(absl::StrCat(r.method, " ", RedactUrl(r.url),
                                              ": curl_multi_add_handle: ", curl_multi_strerror(added))));
      Recycle(t);
      return;
    }
    t->slot = active_.size();
    active_.push_back(t);
  }

  // A transfer with a fresh easy handle and the options every request shares.
  Transfer* NewTransfer() {
    CURL* e = curl_easy_init();
    if (e == nullptr) return nullptr;
    auto* t = new Transfer;
    t->easy = e;
    curl_easy_setopt(e, CURLOPT_PRIVATE, t);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(e, CURLOPT_TCP_NODELAY, 1L);
    curl_easy_setopt(
        e, CURLOPT_HTTP_VERSION,
        options_.http2 ? static_cast<long>(CURL_HTTP_VERSION_2TLS) : static_cast<long>(CURL_HTTP_VERSION_1_1));
    if (options_.compressed_responses) curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");  // gzip, br, ...
    if (no_proxy_variables_) {
      curl_easy_setopt(e, CURLOPT_PROXY, "");
      curl_easy_setopt(e, CURLOPT_NOPROXY, "");
    }
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, t->error);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, &OnBody);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, t);
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, &OnHeader);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, t);
    curl_easy_setopt(e, CURLOPT_OPENSOCKETFUNCTION, &CurlHttpClient::OnOpenSocket);
    curl_easy_setopt(e, CURLOPT_OPENSOCKETDATA, this);
    curl_easy_setopt(e, CURLOPT_CLOSESOCKETFUNCTION, &CurlHttpClient::OnCloseSocket);
    curl_easy_setopt(e, CURLOPT_CLOSESOCKETDATA, this);
    return t;
  }

  // `url` parsed once for CURLOPT_CURLU (with the flags curl parses CURLOPT_URL with), so that curl
  // copies the parts instead of parsing the text and printing it back for every request. Null when
  // the URL does not parse (curl then reports it) or too many distinct URLs were seen.
  CURLU* ParsedUrl(const std::string& url) {
    if (auto it = parsed_urls_.find(url); it != parsed_urls_.end()) return it->second;
    if (parsed_urls_.size() >= kMaxParsedUrls) return nullptr;
    CURLU* parsed = curl_url();
    if (parsed != nullptr &&
        curl_url_set(parsed, CURLUPART_URL, url.c_str(), CURLU_GUESS_SCHEME | CURLU_NON_SUPPORT_SCHEME) != CURLUE_OK) {
      curl_url_cleanup(parsed);
      parsed = nullptr;
    }
    parsed_urls_.emplace(url, parsed);
    return parsed;
  }

  void Reap() {
    int queued = 0;
    while (CURLMsg* msg = curl_multi_info_read(multi_, &queued)) {
      if (msg->msg != CURLMSG_DONE) continue;
      CURL* e = msg->easy_handle;
      const CURLcode code = msg->data.result;
      Transfer* t = nullptr;
      curl_easy_getinfo(e, CURLINFO_PRIVATE, reinterpret_cast<char**>(&t));
      long connects = 0;
      curl_easy_getinfo(e, CURLINFO_NUM_CONNECTS, &connects);
      connections_opened_.fetch_add(connects, std::memory_order_relaxed);
      curl_multi_remove_handle(multi_, e);
      // Swap-remove from the active list.
      active_[t->slot] = active_.back();
      active_[t->slot]->slot = t->slot;
      active_.pop_back();

      if (code != CURLE_OK) {
        transport_errors_.fetch_add(1, std::memory_order_relaxed);
        Finish(std::move(t->done), CurlError(code, t->error, *t->request));
      } else {
        long status = 0;
        curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
        HttpResponse response = std::move(t->response);
        response.status = static_cast<int>(status);
        std::optional<absl::Duration> hint;
        if (!t->retry_after_ms.empty()) {
          double ms = 0;
          if (absl::SimpleAtod(t->retry_after_ms, &ms) && std::isfinite(ms) && ms >= 0) {
            hint = absl::Milliseconds(ms);
          }
        }
        if (!hint.has_value() && !t->retry_after.empty()) hint = ParseRetryAfter(t->retry_after, absl::Now());
        response.retry_after = hint;
        Finish(std::move(t->done), std::move(response));
      }
      Recycle(t);
    }
  }

  void Recycle(Transfer* t) {
    t->Clear();
    free_.push_back(t);
  }

  void RunDueTimers() {
    const absl::Time now = absl::Now();
    while (!timers_.empty() && timers_.top().due <= now) {
      options_.executor->Schedule(std::move(const_cast<Timer&>(timers_.top()).task));
      timers_.pop();
    }
  }

  // Constant after construction.
  const HttpClientOptions options_;
  const std::string user_agent_header_;  // "User-Agent: ..."
  const bool no_proxy_variables_;        // see ProxyVariablesUnset
  CURLM* multi_ = nullptr;
  std::thread loop_;

  int epoll_fd_ = -1;
  int wake_fd_ = -1;  // eventfd: Send and RunAfter wake the loop through it

  // Owned by the loop thread.
  std::optional<absl::Time> curl_deadline_;  // when curl wants CURL_SOCKET_TIMEOUT
  std::vector<epoll_event> events_ = std::vector<epoll_event>(1024);
  std::vector<FdState> fds_;  // by descriptor number
  std::vector<Transfer*> active_;
  std::vector<std::pair<HttpCallback, absl::StatusOr<HttpResponse>>> finished_;  // replies not yet handed over
  std::vector<Transfer*> free_;
  std::unordered_map<std::string, CURLU*> parsed_urls_;  // see ParsedUrl; null values too
  std::priority_queue<Timer, std::vector<Timer>, Later> timers_;
  uint64_t timer_seq_ = 0;

  absl::Mutex mu_;
  std::vector<Incoming> incoming_ ABSL_GUARDED_BY(mu_);
  std::vector<Timer> new_timers_ ABSL_GUARDED_BY(mu_);
  bool wake_pending_ ABSL_GUARDED_BY(mu_) = false;
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
  GlobalInit();
  auto client = std::make_unique<CurlHttpClient>(options);
  absl::Status started = client->Start();
  if (!started.ok()) return started;
  return client;
}

std::optional<absl::Duration> ParseRetryAfter(const std::string& value, absl::Time now) {
  const absl::string_view v = absl::StripAsciiWhitespace(value);
  if (v.empty()) return std::nullopt;
  if (absl::ascii_isdigit(static_cast<unsigned char>(v[0])) || v[0] == '.') {
    double seconds = 0;
    if (!absl::SimpleAtod(v, &seconds) || !std::isfinite(seconds) || seconds < 0) return std::nullopt;
    return absl::Seconds(seconds);
  }
  const std::string date(v);
  const time_t when = curl_getdate(date.c_str(), nullptr);
  if (when == -1) return std::nullopt;
  return std::max(absl::FromTimeT(when) - now, absl::ZeroDuration());
}

}  // namespace noveltygrid
