// CurlMulti (curl_multi.h): the libcurl transport of the HTTP client -- the multi handle on the
// client's event loop, the pooled easy handles and their sockets.
#include "worker/http/curl_multi.h"

#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "common/status_macros.h"
#include "worker/http/curl_api.h"

namespace noveltygrid::curl_http {
namespace {

constexpr size_t kMaxParsedUrls = 256;      // distinct URLs kept parsed (a worker has a handful)
constexpr long kReceiveBufferBytes = 4096;  // per easy handle (curl: 16 KiB); a bigger reply takes more reads

}  // namespace

CurlMulti::CurlMulti(event::EventLoop* loop, const HttpClientOptions& options, std::string user_agent_header,
                     bool no_proxy_variables, http1::CallSink* sink)
    : loop_(loop),
      options_(options),
      user_agent_header_(std::move(user_agent_header)),
      no_proxy_variables_(no_proxy_variables),
      sink_(sink) {}

CurlMulti::~CurlMulti() {
  // Handles exist only once LoadCurl succeeded: a transport that never started never calls Curl().
  for (Transfer* t : free_) {
    Curl().easy_cleanup(t->easy);
    delete t;
  }
  if (multi_ != nullptr) Curl().multi_cleanup(multi_);
  for (auto& [url, parsed] : parsed_urls_) Curl().url_cleanup(parsed);
}

absl::Status CurlMulti::Init() {
  if (multi_ != nullptr) return absl::OkStatus();
  ASSIGN_OR_RETURN(const CurlApi* curl, LoadCurl());
  multi_ = curl->multi_init();
  if (multi_ == nullptr) return absl::InternalError("curl_multi_init failed");
  curl->multi_setopt(multi_, CURLMOPT_PIPELINING, static_cast<long>(CURLPIPE_MULTIPLEX));
  curl->multi_setopt(multi_, CURLMOPT_MAX_HOST_CONNECTIONS, static_cast<long>(options_.max_connections_per_host));
  curl->multi_setopt(multi_, CURLMOPT_MAX_TOTAL_CONNECTIONS, static_cast<long>(options_.max_total_connections));
  curl->multi_setopt(multi_, CURLMOPT_MAXCONNECTS, static_cast<long>(std::max(options_.max_total_connections, 1)));
  curl->multi_setopt(multi_, CURLMOPT_SOCKETFUNCTION, &CurlMulti::OnSocket);
  curl->multi_setopt(multi_, CURLMOPT_SOCKETDATA, this);
  curl->multi_setopt(multi_, CURLMOPT_TIMERFUNCTION, &CurlMulti::OnTimer);
  curl->multi_setopt(multi_, CURLMOPT_TIMERDATA, this);
  return absl::OkStatus();
}

void CurlMulti::Send(std::shared_ptr<const HttpRequest> request, HttpCallback done) {
  if (absl::Status curl = Init(); !curl.ok()) {
    sink_->Finished(
        std::move(done),
        absl::Status(curl.code(), absl::StrCat(request->method, " ", RedactUrl(request->url), ": ", curl.message())));
    return;
  }
  Transfer* t;
  if (!free_.empty()) {
    t = free_.back();
    free_.pop_back();
  } else {
    t = NewTransfer();
    if (t == nullptr) {
      sink_->Finished(std::move(done), absl::InternalError("curl_easy_init failed"));
      return;
    }
  }
  CURLU* parsed_url = ParsedUrl(request->url);
  t->Prepare(std::move(request), std::move(done), user_agent_header_, parsed_url);
  const HttpRequest& r = *t->request;
  const CURLMcode added = Curl().multi_add_handle(multi_, t->easy);
  if (added != CURLM_OK) {
    sink_->Finished(std::move(t->done),
                    absl::InternalError(absl::StrCat(r.method, " ", RedactUrl(r.url),
                                                     ": curl_multi_add_handle: ", Curl().multi_strerror(added))));
    Recycle(t);
    return;
  }
  t->slot = active_.size();
  active_.push_back(t);
}

void CurlMulti::OnReady(int fd, uint32_t events) {
  if (!Wanted(fd)) return;
  int flags = 0;
  if (events & (EPOLLIN | EPOLLHUP | EPOLLRDHUP)) flags |= CURL_CSELECT_IN;
  if (events & EPOLLOUT) flags |= CURL_CSELECT_OUT;
  if (events & EPOLLERR) flags |= CURL_CSELECT_ERR;
  int running = 0;
  Curl().multi_socket_action(multi_, fd, flags, &running);
}

void CurlMulti::Reap() {
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
      sink_->Finished(std::move(t->done), t->Failure(code));  // never Cancelled: a transport error
    } else {
      sink_->Finished(std::move(t->done), t->TakeResponse());
    }
    Recycle(t);
  }
}

void CurlMulti::FailAll(const absl::Status& status) {
  for (Transfer* t : active_) {
    Curl().multi_remove_handle(multi_, t->easy);
    sink_->Finished(std::move(t->done), status);
    Recycle(t);
  }
  active_.clear();
  loop_->Cancel(curl_timer_);
  curl_timer_ = {};
}

CurlMulti::FdState& CurlMulti::Fd(int fd) {
  if (static_cast<size_t>(fd) >= fds_.size()) fds_.resize(static_cast<size_t>(fd) + 64);
  return fds_[fd];
}

void CurlMulti::Register(int fd, FdState& state, uint32_t events) {
  if (state.registered == events) return;
  if (events == 0) {
    loop_->Unwatch(fd);  // may already be gone with the closed socket
  } else if (state.registered == 0 ? !loop_->Watch(fd, events, fd) : !loop_->Rewatch(fd, events, fd)) {
    // Our view was stale (a descriptor closed behind curl's back and its number reused).
    state.registered == 0 ? loop_->Rewatch(fd, events, fd) : loop_->Watch(fd, events, fd);
  }
  state.registered = events;
}

bool CurlMulti::Wanted(int fd) {
  FdState& state = Fd(fd);
  if (state.wanted != 0) return true;
  Register(fd, state, 0);
  return false;
}

int CurlMulti::OnSocket(CURL*, curl_socket_t fd, int what, void* self, void*) {
  auto* multi = static_cast<CurlMulti*>(self);
  FdState& state = multi->Fd(fd);
  uint32_t events = 0;
  if (what != CURL_POLL_REMOVE) {
    if (what & CURL_POLL_IN) events |= EPOLLIN | EPOLLRDHUP;
    if (what & CURL_POLL_OUT) events |= EPOLLOUT;
  }
  state.wanted = events;
  if (events == 0 && state.tracked) return 0;  // stays registered until an event or the close
  multi->Register(fd, state, events);
  return 0;
}

curl_socket_t CurlMulti::OnOpenSocket(void* self, curlsocktype, curl_sockaddr* address) {
  const curl_socket_t fd = socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
  if (fd != CURL_SOCKET_BAD) static_cast<CurlMulti*>(self)->Fd(fd) = FdState{.tracked = true};
  return fd;
}

int CurlMulti::OnCloseSocket(void* self, curl_socket_t fd) {
  static_cast<CurlMulti*>(self)->Fd(fd) = FdState{};  // close() takes it out of the epoll set
  return close(fd);
}

int CurlMulti::OnTimer(CURLM*, long timeout_ms, void* self) {
  auto* multi = static_cast<CurlMulti*>(self);
  multi->loop_->Cancel(multi->curl_timer_);
  multi->curl_timer_ = {};
  if (timeout_ms >= 0) {
    multi->curl_timer_ = multi->loop_->After(absl::Milliseconds(timeout_ms), [multi] {
      multi->curl_timer_ = {};  // curl sets the next one from inside the call
      int running = 0;
      Curl().multi_socket_action(multi->multi_, CURL_SOCKET_TIMEOUT, 0, &running);
    });
  }
  return 0;
}

Transfer* CurlMulti::NewTransfer() {
  const CurlApi& curl = Curl();
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
  curl.easy_setopt(e, CURLOPT_OPENSOCKETFUNCTION, &CurlMulti::OnOpenSocket);
  curl.easy_setopt(e, CURLOPT_OPENSOCKETDATA, this);
  curl.easy_setopt(e, CURLOPT_CLOSESOCKETFUNCTION, &CurlMulti::OnCloseSocket);
  curl.easy_setopt(e, CURLOPT_CLOSESOCKETDATA, this);
  return t;
}

CURLU* CurlMulti::ParsedUrl(const std::string& url) {
  if (auto it = parsed_urls_.find(url); it != parsed_urls_.end()) return it->second;
  if (parsed_urls_.size() >= kMaxParsedUrls) return nullptr;
  CURLU* parsed = Curl().url();
  if (parsed != nullptr &&
      Curl().url_set(parsed, CURLUPART_URL, url.c_str(), CURLU_GUESS_SCHEME | CURLU_NON_SUPPORT_SCHEME) != CURLUE_OK) {
    Curl().url_cleanup(parsed);
    parsed = nullptr;
  }
  parsed_urls_.emplace(url, parsed);
  return parsed;
}

void CurlMulti::Recycle(Transfer* t) {
  t->Clear();
  free_.push_back(t);
}

}  // namespace noveltygrid::curl_http
