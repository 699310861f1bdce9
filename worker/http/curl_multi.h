// CurlMulti: the HTTP client's libcurl transport -- curl's multi interface driven by the client's
// event::EventLoop (http_client.cc owns the loop and routes each request here or to the built-in
// http1_transport.h). It owns the multi handle, the pooled easy handles (curl_transfer.h, one a
// request) and the URLs parsed for them, and reports every finished request to the same
// http1::CallSink as the built-in transport.
//
// curl is driven with curl_multi_socket_action over the loop's epoll set (CURLMOPT_SOCKETFUNCTION
// registers sockets, CURLMOPT_TIMERFUNCTION arms a loop timer) rather than curl_multi_perform +
// multi_poll, whose cost grows with the transfers in flight (every transfer visited, the pollfd array
// rebuilt, at each wakeup); socket_action only touches the sockets that are ready.
//
// libcurl is loaded (curl_api.h) by Init, not by the constructor: a client whose requests all go
// over the built-in transport never loads it. Loop thread only (constructed and destroyed while no
// thread runs the loop).
#ifndef NOVELTYGRID_WORKER_HTTP_CURL_MULTI_H_
#define NOVELTYGRID_WORKER_HTTP_CURL_MULTI_H_

#include <curl/curl.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/status/status.h"
#include "common/event/event_loop.h"
#include "worker/http/curl_transfer.h"
#include "worker/http/http1_transport.h"
#include "worker/http/http_client.h"

namespace noveltygrid::curl_http {

class CurlMulti {
 public:
  // `user_agent_header` is the client's "User-Agent: ..." line; `no_proxy_variables` says that no
  // proxy variable is set in the environment (see http_client.cc).
  CurlMulti(event::EventLoop* loop, const HttpClientOptions& options, std::string user_agent_header,
            bool no_proxy_variables, http1::CallSink* sink);
  ~CurlMulti();  // frees the handles; FailAll first if requests may be in flight
  CurlMulti(const CurlMulti&) = delete;
  CurlMulti& operator=(const CurlMulti&) = delete;

  // Loads libcurl and makes the multi handle, once: the client calls it in its Start when curl
  // carries every request, else Send does before the first request (curl_api.h).
  absl::Status Init();
  // Starts the request on a pooled easy handle; a request that cannot start (libcurl missing, say)
  // goes to the sink at once.
  void Send(std::shared_ptr<const HttpRequest> request, HttpCallback done);
  // A socket curl registered is ready; the event-loop tag is the descriptor.
  void OnReady(int fd, uint32_t events);
  // Hands the transfers curl finished to the sink.
  void Reap();
  // Fails every transfer in flight with `status` and stops curl's timer.
  void FailAll(const absl::Status& status);

  int64_t connections_opened() const { return connections_opened_.load(std::memory_order_relaxed); }

 private:
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

  FdState& Fd(int fd);
  // Puts `fd` into the loop's epoll set with `events` (0: out of it); its tag is the descriptor.
  void Register(int fd, FdState& state, uint32_t events);
  // False for an event on a tracked socket curl is not watching (an idle keep-alive connection the
  // server closed, say): it leaves the epoll set and curl learns of it when it reuses the connection.
  bool Wanted(int fd);
  // curl tells which sockets to watch for what; they go into the epoll set.
  static int OnSocket(CURL*, curl_socket_t fd, int what, void* self, void*);
  static curl_socket_t OnOpenSocket(void* self, curlsocktype, curl_sockaddr* address);
  static int OnCloseSocket(void* self, curl_socket_t fd);
  // curl wants CURL_SOCKET_TIMEOUT after `timeout_ms` (-1: never): one loop timer, re-armed.
  static int OnTimer(CURLM*, long timeout_ms, void* self);
  // A transfer with a fresh easy handle and the options every request shares; null when
  // curl_easy_init fails.
  Transfer* NewTransfer();
  // `url` parsed once for CURLOPT_CURLU (with the flags curl parses CURLOPT_URL with), so that curl
  // copies the parts instead of parsing the text and printing it back for every request. Null when
  // the URL does not parse (curl then reports it) or too many distinct URLs were seen.
  CURLU* ParsedUrl(const std::string& url);
  void Recycle(Transfer* t);

  event::EventLoop* const loop_;
  const HttpClientOptions options_;
  const std::string user_agent_header_;
  const bool no_proxy_variables_;
  http1::CallSink* const sink_;  // counts a failure as a transport error unless it is a cancellation

  CURLM* multi_ = nullptr;     // made by Init
  event::TimerId curl_timer_;  // when curl wants CURL_SOCKET_TIMEOUT
  std::vector<FdState> fds_;   // by descriptor number
  std::vector<Transfer*> active_;
  std::vector<Transfer*> free_;
  std::unordered_map<std::string, CURLU*> parsed_urls_;  // see ParsedUrl; null values too
  std::atomic<int64_t> connections_opened_{0};           // from CURLINFO_NUM_CONNECTS
};

}  // namespace noveltygrid::curl_http

#endif  // NOVELTYGRID_WORKER_HTTP_CURL_MULTI_H_
