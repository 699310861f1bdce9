// HttpClient: many HTTP requests in flight on one event-loop thread (libcurl's multi interface on a
// common/event EventLoop, and a built-in HTTP/1.1 transport for plain http:// to an address).
//
// Send() returns at once; the loop thread drives every transfer (keep-alive connection reuse, HTTP/2
// multiplexing where the server offers it over TLS, per-request timeouts) and the callback runs on
// the Executor, never on the loop thread or the caller's stack. No thread per request: one loop
// thread serves thousands of concurrent transfers.
//
// A reply with any HTTP status is a response (status + body); only transport failures are errors:
//   DeadlineExceeded   the request's timeout elapsed (connect or transfer)
//   Unavailable        could not connect / connection reset / DNS failure / TLS handshake cut short
//   Unauthenticated    a TLS setup that cannot work: a certificate this machine cannot verify (CA
//                      bundle, pinned key) or present, no cipher in common
//   OutOfRange         the reply's body (or its Content-Length) passed max_response_bytes: the
//                      transfer is cut off there, so no reply costs more memory than that
//   Internal           anything else libcurl reports
// A reply that trickles (bytes now and then, never the end) ends at the request's timeout, which is
// for the whole transfer, with DeadlineExceeded.
// Error messages name the method and URL (without userinfo or query string) and curl's error text;
// they never contain request headers (they carry API keys).
//
// Connections: one connection cache for the client, capped per host and in total (transfers beyond
// the cap queue inside curl until a connection is free), kept alive between requests.
//
// Thread-safe. The destructor fails transfers still in flight -- and requests sent while it runs --
// with Cancelled (callbacks still run on the executor, which must outlive the client), schedules the
// tasks of pending timers at once, and joins the loop thread.
#ifndef NOVELTYGRID_WORKER_HTTP_HTTP_CLIENT_H_
#define NOVELTYGRID_WORKER_HTTP_HTTP_CLIENT_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/executor.h"

namespace noveltygrid {

struct HttpRequest {
  std::string method = "POST";                  // "GET" or "POST"
  std::string url;                              // absolute, http:// or https://
  std::vector<std::string> headers;             // "Name: value"; may hold secrets, never logged
  std::string body;                             // sent as is (POST)
  absl::Duration timeout = absl::Seconds(120);  // whole transfer
  absl::Duration connect_timeout = absl::Seconds(10);
};

struct HttpResponse {
  int status = 0;  // 200, 429, ...
  std::string body;
  std::string content_type;
  // The server's wait hint: `retry-after-ms` (milliseconds) wins over `Retry-After` (seconds or an
  // HTTP date); nullopt when neither header is present or parseable.
  std::optional<absl::Duration> retry_after;
  // The provider's rate-limit headers (x-ratelimit-*, anthropic-ratelimit-*): name in lower case, value.
  std::vector<std::pair<std::string, std::string>> rate_limit_headers;
};

using HttpCallback = absl::AnyInvocable<void(absl::StatusOr<HttpResponse>) &&>;

// The default limit on a response body: model replies are kilobytes, an embedding batch a few
// megabytes; anything near this is a broken or hostile server.
inline constexpr size_t kDefaultMaxResponseBytes = size_t{32} << 20;  // 32 MiB

struct HttpClientOptions {
  Executor* executor = nullptr;  // required: where callbacks run
  // Connection caps (0 = unlimited). Over HTTP/1.1 every request in flight needs its own connection,
  // so these cap the requests in flight per host; they are large on purpose -- a worker with 2,048
  // loops has over 2,048 requests in flight to one host, and the provider's max_in_flight limit is the
  // knob for how much a server gets -- and only guard against runaway. Create lowers both to the
  // process's open-file limit less 256 descriptors (kept for everything else) when that is lower.
  int max_connections_per_host = 16384;  // CURLMOPT_MAX_HOST_CONNECTIONS (HTTP/1.1 keep-alive pool)
  int max_total_connections = 32768;     // CURLMOPT_MAX_TOTAL_CONNECTIONS
  bool http2 = true;                     // ask for HTTP/2 over TLS (h2c is not attempted)
  // Plain http:// to an IP address goes over the client's own HTTP/1.1 code
  // (http1_transport.h: a fraction of curl's CPU per request) unless a proxy variable is set or
  // compressed_responses is on; false (or NOVELTYGRID_HTTP1=curl in the environment): curl for every URL.
  bool builtin_http1 = true;
  std::string user_agent = "noveltygrid";
  // Ask for gzip/brotli replies (Accept-Encoding) and decode them. Off by default: model replies are
  // small and decoding costs the loop thread more than it saves on a fast network.
  bool compressed_responses = false;
  // The largest response body accepted (after decoding, with compressed_responses); a larger one fails
  // the request with OutOfRange. 0 = no limit.
  size_t max_response_bytes = kDefaultMaxResponseBytes;
  // Wake-up batching while busy: when the loop was woken again less than 2 x batch_window after its
  // previous wake-up, it pauses until batch_window after this one before looking for more work, so
  // one wake-up serves every reply, request and timer that came due meanwhile (and senders skip
  // the eventfd write). Costs each request and reply at most batch_window of latency under load,
  // nothing when idle; saves a thread switch and several system calls per request at thousands of
  // requests per second. Zero turns it off.
  absl::Duration batch_window = absl::Microseconds(250);
};

struct HttpClientStats {
  int64_t requests = 0;   // transfers started
  int64_t in_flight = 0;  // started and not yet finished
  int64_t transport_errors = 0;
  int64_t connections_opened = 0;  // from CURLINFO_NUM_CONNECTS: reuse keeps this small
};

class HttpClient {
 public:
  static absl::StatusOr<std::unique_ptr<HttpClient>> Create(const HttpClientOptions& options);
  virtual ~HttpClient() = default;

  // The request is shared, not copied: a caller that may retry keeps its pointer and sends it again.
  virtual void Send(std::shared_ptr<const HttpRequest> request, HttpCallback done) = 0;
  void Send(HttpRequest request, HttpCallback done) {
    Send(std::make_shared<const HttpRequest>(std::move(request)), std::move(done));
  }
  // Runs `task` on the executor after `delay` (a timer on the loop thread; no thread sleeps). Used for
  // retry backoff. Tasks still waiting at destruction run at once.
  virtual void RunAfter(absl::Duration delay, Task task) = 0;
  virtual HttpClientStats Stats() const = 0;
  // What the destructor does first, now: transfers in flight and every later Send fail with
  // Cancelled, timers' tasks run at once and later RunAfter tasks without delay. For a worker whose
  // units were handed back: their calls end now instead of at their timeouts. Cannot be undone.
  virtual void Abort() {}
  // Whether requests to `url` can be sent: an error when they need libcurl (not plain http:// to an
  // address) and it cannot be loaded, so that a worker refuses a provider at start instead of failing
  // its every call. Loads libcurl when they need it (curl_api.h).
  virtual absl::Status CheckUrl(const std::string& /*url*/) { return absl::OkStatus(); }
};

// Parses a Retry-After value: delay-seconds ("2", "0.5") or an HTTP date relative to `now`.
std::optional<absl::Duration> ParseRetryAfter(const std::string& value, absl::Time now);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_WORKER_HTTP_HTTP_CLIENT_H_
