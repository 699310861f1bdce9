// Http1Transport: the HTTP client's built-in HTTP/1.1 path for plain http:// to an IP address -- a
// simulated or self-hosted model server on loopback or in the cluster's network. It runs on the
// client's event loop beside curl (curl_multi.h; http_client.cc routes each request) and does per
// request only what such a server needs: one write of the request head and body, reads into one buffer shared
// by every connection, an incremental reply parser (http1_response_parser.h). Sockets are registered
// once, edge-triggered, for their whole life, so a request on a kept-alive connection costs no epoll_ctl
// and, on a fast server, one sendmsg and one or two reads -- where curl spends ~70 k instructions and
// several system calls (BENCHMARKS.md, issue 18 item 2). curl keeps TLS, HTTP/2, proxies, host names
// and compressed replies.
//
// Behaviour matches the curl path's contract (http_client.h): a reply of any status is a response;
// DeadlineExceeded for the request's timeout (connect_timeout while connecting); Unavailable for a
// refused, reset or closed connection; OutOfRange past max_response_bytes; a request on a kept-alive
// connection the server had closed is sent again once on a fresh connection when no byte of a reply
// came. Connections: capped per host and in total (HttpClientOptions), requests beyond the cap wait
// in their host's queue, idle connections are reused newest first.
//
// The class is defined in two files: http1_pool.cc decides which connection carries a request (routes,
// pools, caps, waiting queues), http1_transport.cc carries it over that connection (open, send,
// receive, timeouts, failures).
//
// Loop thread only (constructed and destroyed while no thread runs the loop, or on the loop thread).
#ifndef NOVELTYGRID_WORKER_HTTP_HTTP1_TRANSPORT_H_
#define NOVELTYGRID_WORKER_HTTP_HTTP1_TRANSPORT_H_

#include <sys/socket.h>

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/event/event_loop.h"
#include "worker/http/http1_response_parser.h"
#include "worker/http/http_client.h"

namespace noveltygrid::http1 {

// Where finished requests go: the client's reply batching. Loop thread.
class CallSink {
 public:
  virtual ~CallSink() = default;
  virtual void Finished(HttpCallback done, absl::StatusOr<HttpResponse> result) = 0;
};

class Http1Transport {
 public:
  // Event-loop tags of the transport's sockets carry this bit, the slot's generation in bits 32-61 and
  // the connection slot in the low 32 bits.
  static constexpr uint64_t kTagBit = uint64_t{1} << 62;

  // `user_agent_header` is the client's "User-Agent: ..." line.
  Http1Transport(event::EventLoop* loop, const HttpClientOptions& options, std::string user_agent_header,
                 CallSink* sink);
  ~Http1Transport();  // closes every connection; FailAll first if requests may be in flight
  Http1Transport(const Http1Transport&) = delete;
  Http1Transport& operator=(const Http1Transport&) = delete;

  // Takes the request when its URL is the transport's (http:// to an IP literal, no
  // userinfo) and its method GET or POST: moves from `request` and `done` and returns true. Otherwise
  // leaves both alone and returns false (curl takes it).
  bool TryStart(std::shared_ptr<const HttpRequest>& request, HttpCallback& done);
  // Whether requests to `url` are the transport's (the URL test of TryStart, without a transport).
  static bool Carries(absl::string_view url);
  // A socket registered with a kTagBit tag is ready.
  void OnReady(uint64_t tag, uint32_t events);
  // Fails every request in flight or queued with `status` and closes every connection.
  void FailAll(const absl::Status& status);

  int64_t connections_opened() const { return connections_opened_.load(std::memory_order_relaxed); }

 private:
  struct Call;
  struct Conn;

  // One host's connections: the address, the idle ones (newest last) and the requests waiting for one.
  struct Pool {
    sockaddr_storage address{};
    socklen_t address_size = 0;
    std::string name;  // "127.0.0.1:8000", for errors
    int open = 0;
    std::vector<Conn*> idle;
    std::deque<Call*> waiting;
  };

  // A URL taken apart once: its host's pool, the request target and the Host header line.
  struct Route {
    Pool* pool = nullptr;
    std::string target;       // path and query
    std::string host_header;  // "Host: ...\r\n"
  };

  struct Call {
    std::shared_ptr<const HttpRequest> request;
    HttpCallback done;
    Route* route = nullptr;
    absl::Time deadline;
    event::TimerId timer;
    Conn* conn = nullptr;
    bool resent = false;    // already sent again once after a closed kept-alive connection
    bool finished = false;  // timed out while queued: the queue drops it
  };

  struct Conn {
    explicit Conn(size_t max_body) : parser(max_body) {}
    int fd = -1;
    uint32_t slot = 0;
    uint32_t generation = 0;  // bumped at each Open of the slot; in the event-loop tag
    Pool* pool = nullptr;
    bool connected = false;
    bool reused = false;  // carried a reply before
    Call* call = nullptr;
    std::string head;  // the request's head
    size_t sent = 0;   // bytes of head and body written
    size_t idle_index = 0;
    Http1ResponseParser parser;
  };

  // A URL the transport carries, parsed: http:// to an IP literal with an optional port, no userinfo,
  // a request target without spaces or control characters.
  struct Target {
    sockaddr_storage address{};
    socklen_t address_size = 0;
    std::string pool_key;     // "host:port"
    std::string target;       // the request line's target, "/" when the URL has none
    std::string host_header;  // "Host: authority\r\n"
  };

  // http1_pool.cc: which connection carries a request.
  static std::optional<Target> ParseTarget(absl::string_view url);
  Route* FindRoute(const std::string& url);
  // Sends `call` on an idle connection of its host (unless `fresh`) or a new one, or queues it.
  void Dispatch(Call* call, bool fresh);
  // Dispatches the queued requests of the pools in wake_ while there is room (see Close).
  void Drain();
  bool HostRoom(const Pool& pool) const;
  bool TotalRoom() const;
  // An idle connection of the first host that has one (the front of its list, among its longest idle);
  // null when none is idle.
  Conn* OldestIdle();
  // The connection carried its reply and may carry another: the next queued request or the idle list.
  void Release(Conn* conn);
  void Close(Conn* conn);
  // The oldest request of `pool` still waiting for a connection, taken off its queue; null when none.
  Call* NextWaiting(Pool& pool);

  // http1_transport.cc: a request's exchange on its connection.
  static const std::string& Body(const Call& call);
  size_t RequestSize(const Call& call) const;  // head and body of the request on call.conn
  void Open(Pool& pool, Call* call);
  void Assign(Conn* conn, Call* call);
  void Send(Conn* conn);
  void Receive(Conn* conn, uint32_t events);
  void Connected(Conn* conn);
  // The connection failed under its request: sent again once on a fresh connection when the failure
  // is a kept-alive connection closed before any reply byte, else failed with `status`.
  void Broken(Conn* conn, absl::Status status);
  void Complete(Call* call, absl::StatusOr<HttpResponse> result);
  void OnTimeout(Call* call);
  void ArmTimer(Call* call, absl::Time due);
  absl::Status Error(absl::StatusCode code, const Call& call, absl::string_view what) const;

  event::EventLoop* const loop_;
  const HttpClientOptions options_;
  const std::string user_agent_header_;
  CallSink* const sink_;

  std::unordered_map<std::string, std::unique_ptr<Route>> routes_;  // by URL; null: not ours
  std::unordered_map<std::string, std::unique_ptr<Pool>> pools_;    // by "address:port"
  std::vector<std::unique_ptr<Conn>> conns_;                        // by slot
  std::vector<uint32_t> free_slots_;
  int open_ = 0;             // connections open, all hosts
  std::vector<Pool*> wake_;  // pools that may dispatch queued requests (Drain)
  bool draining_ = false;
  std::unique_ptr<char[]> read_buffer_;
  std::atomic<int64_t> connections_opened_{0};
};

}  // namespace noveltygrid::http1

#endif  // NOVELTYGRID_WORKER_HTTP_HTTP1_TRANSPORT_H_
