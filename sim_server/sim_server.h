// SimServer: the simulated model family (SimApi) behind an OpenAI-compatible HTTP server, for
// `noveltygrid serve-sim`, integration tests and load tests of the HTTP providers; also the Anthropic
// Messages API on the same models.
//
//   POST /v1/chat/completions, /v1/embeddings, /v1/reward, /predict (also /v1/predict)   see sim_api.h
//   POST /v1/messages   Anthropic's Messages API (anthropic_api.h): needs an "anthropic-version"
//                       header (any value; missing: 400), errors in Anthropic's shape
//   GET  /stats   {"chat": n, "embeddings": n, "classify": n, "reward": n, "messages": n,
//                  "faults_injected": n, "unauthorized": n, "rate_limited": n, "in_flight_peak": n}
//   GET  /health  200 "ok"
//
// /stats counts every request that reached an endpoint past the API-key check and the rate limits,
// whatever its outcome (a 400, an injected fault); "classify" is /predict, "messages" /v1/messages;
// "unauthorized" counts the requests the key check refused, "rate_limited" those the rate limits
// refused (neither is in the endpoint counts).
//
// Realism knobs, all deterministic for a given seed and request order:
//   - latency: every model endpoint answers after latency_ms plus a uniform jitter in [0, jitter_ms]
//     (the event loop's timer, to the microsecond where the kernel has epoll_pwait2). The wait is a timer on the event
//     loop (epoll_http_server.h), not a parked thread: thousands of requests can wait at once at no CPU cost, and Stop
//     cuts every wait short (503 "shutting down"). The reply is computed when the request arrives and sent when the
//     wait is over, so a burst of requests is answered after the latency, not after the latency plus the time serve-sim
//     takes to answer the burst.
//   - faults: with probability fault_rate per model request (decided from seed and the request's
//     sequence number) one fault from `faults` is injected instead of the normal answer:
//       429        status 429, "Retry-After: 1" and "retry-after-ms: 200", OpenAI rate-limit error body
//       500        status 500, OpenAI server error body (Anthropic route: api_error)
//       529        status 529, overloaded (Anthropic route: overloaded_error; OpenAI routes: an OpenAI
//                  server_error body, code "overloaded"). Only when listed: not in "all" or the
//                  default, so the fault sequences of existing seeds are unchanged
//       timeout    nothing is sent for `timeout_hold` (30 s) or until Stop, then headers promising a
//                  body that never comes, and the connection is dropped
//       malformed  status 200 with a body that is not JSON
//       truncated  status 200 with the first half of the real JSON body (Content-Length matches it)
//     /stats and /health never get faults or latency. On /v1/messages the fault bodies are in
//     Anthropic's shape.
//   - rate limits: with requests_per_minute / tokens_per_minute set (rate_limiter.h: token buckets
//     refilled continuously, a request charged its prompt tokens plus max_tokens at arrival), chat,
//     embeddings and messages share one account's limits. Over a limit: 429 at once (no latency, no
//     fault draw) with "retry-after" (whole seconds, rounded up) and the provider's error body (OpenAI:
//     type "requests" or "tokens", code rate_limit_exceeded; Anthropic: rate_limit_error). Every reply
//     on those routes, 429s included, carries the limits' state: x-ratelimit-{limit,remaining,reset}-
//     {requests,tokens} (reset as "1s", "6m0s", "120ms") on the OpenAI routes,
//     anthropic-ratelimit-{requests,tokens}-{limit,remaining,reset} (reset an RFC 3339 time) on
//     /v1/messages. Time comes from the clock given to the constructor.
//   - auth: when api_key is non-empty, /v1/* and /predict require "Authorization: Bearer KEY"
//     (/v1/messages also takes "x-api-key: KEY"; else 401 invalid_api_key, on /v1/messages
//     authentication_error). The key is compared in constant time and never echoed.
//
// HTTP: HTTP/1.1 and 1.0, keep-alive (the default of 1.1) and "Connection: close", pipelining (answered
// in order), "Expect: 100-continue"; request bodies need a Content-Length (chunked: 411) of at most
// 64 MiB (413), request line and headers at most 64 KiB (431). Unknown paths and methods: 404 with an
// OpenAI error body. Responses: Content-Type, Content-Length (plus the 429's Retry-After headers and the
// rate-limit headers); never compressed.
//
// The text of a response never depends on the wall clock: the same request body gets the same answer.
// Faults aside, only these depend on time or history: with rate limits, the rate-limit headers and the
// 429s (token buckets on the server's clock); on /v1/messages, the usage's cache fields (what was asked
// before, within the cache's lifetime).
//
// Thread-safety: Start and Stop from one owning thread; stats() from any thread. Requests are handled
// on the event-loop threads (`threads` of them), which share only atomics and thread-safe objects
// (SimApi, AnthropicApi, RateLimiter).
#ifndef NOVELTYGRID_SIM_SERVER_SIM_SERVER_H_
#define NOVELTYGRID_SIM_SERVER_SIM_SERVER_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "common/executor.h"
#include "sim_server/anthropic_api.h"
#include "sim_server/rate_limiter.h"
#include "sim_server/sim_api.h"

namespace noveltygrid {
namespace sim_http {
class EpollHttpServer;
struct HttpReply;
struct HttpRequest;
struct HttpResponse;
}  // namespace sim_http

enum class SimFault { kRateLimit, kServerError, kTimeout, kMalformed, kTruncated, kOverloaded };

// Parses "429,500,529,timeout,malformed,truncated" (any non-empty subset, any order; "all" = every kind
// but 529).
absl::StatusOr<std::vector<SimFault>> ParseSimFaults(absl::string_view list);

// The API key serve-sim requires: $NOVELTYGRID_SIM_API_KEY, or "" (no auth) when unset.
std::string SimApiKeyFromEnvironment();

// Every member has a default, so tests may name only the ones they set ({.latency_ms = 5}).
struct SimServerOptions {
  std::string host = "127.0.0.1";
  int port = 0;  // 0 picks a free port; Start returns it
  int latency_ms = 0;
  int jitter_ms = 0;
  double fault_rate = 0.0;         // in [0, 1]
  std::vector<SimFault> faults{};  // empty: every kind
  uint64_t seed = 0;               // drives fault and jitter choices (not model outputs: those follow each request)
  std::string api_key{};           // empty: no auth
  // Event-loop threads, capped at the CPUs this process may use (UsableCpus). Requests in
  // flight are not limited by it; one loop serves well over 10k requests/s.
  int threads = 1;
  absl::Duration timeout_hold = absl::Seconds(30);
  RateLimits rate_limits{};  // 0: unlimited (the default)
};

struct SimServerStats {
  int64_t chat = 0;
  int64_t embeddings = 0;
  int64_t classify = 0;
  int64_t reward = 0;
  int64_t messages = 0;  // /v1/messages
  int64_t faults_injected = 0;
  int64_t unauthorized = 0;    // requests refused for a missing or wrong API key (not counted above)
  int64_t rate_limited = 0;    // requests refused by the rate limits (not counted above)
  int64_t in_flight_peak = 0;  // most model requests handled at once (the timeout fault's hold included)
};

// The GET /stats body.
std::string SimStatsJson(const SimServerStats& stats);

class SimServer {
 public:
  // `clock` (rate limits, prompt-cache lifetimes) must outlive the server.
  explicit SimServer(const Clock* clock = SystemClockInstance());
  ~SimServer();  // Stops
  SimServer(const SimServer&) = delete;
  SimServer& operator=(const SimServer&) = delete;

  // Binds host:port and serves on background threads. Returns the bound port. Call once.
  absl::StatusOr<int> Start(const SimServerOptions& options);
  // Stops accepting, cuts the waits short (latency: 503; timeout fault: the dropped response), closes
  // every connection and joins the event loops. Idempotent.
  void Stop();

  // The event-loop threads Start runs for `threads`: at least 1, at most the CPUs available.
  static int EventLoops(int threads);

  SimServerStats stats() const;

 private:
  enum class Endpoint { kChat, kEmbeddings, kClassify, kReward, kMessages };
  struct Counters {
    std::atomic<int64_t> chat{0}, embeddings{0}, classify{0}, reward{0}, messages{0}, faults{0}, unauthorized{0},
        rate_limited{0}, in_flight{0}, in_flight_peak{0};
  };
  using Headers = std::vector<std::pair<std::string, std::string>>;

  sim_http::HttpReply Route(sim_http::HttpRequest& request);
  sim_http::HttpReply Serve(Endpoint endpoint, sim_http::HttpRequest& request);
  // The reply to a model request, sent once its latency is over (fault is the injected one, if any).
  sim_http::HttpResponse Answer(Endpoint endpoint, const std::optional<SimFault>& fault, absl::string_view body);
  bool Authorized(Endpoint endpoint, const sim_http::HttpRequest& request) const;
  // Charges the request to the rate limits: nullopt when admitted (`headers` then hold the limits'
  // state for the reply), else the 429 to send.
  std::optional<sim_http::HttpResponse> Limit(Endpoint endpoint, absl::string_view body, Headers* headers);

  // Constant after construction.
  const Clock* const clock_;

  // Constant after Start.
  SimServerOptions options_;
  std::unique_ptr<ThreadPool> executor_;  // for constructing the models only
  std::unique_ptr<SimApi> api_;
  std::unique_ptr<AnthropicApi> anthropic_;  // thread-safe
  std::unique_ptr<RateLimiter> limiter_;     // thread-safe
  std::unique_ptr<sim_http::EpollHttpServer> http_;

  Counters counters_;
  std::atomic<uint64_t> sequence_{0};  // model requests seen, for fault and jitter choices
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_SIM_SERVER_SIM_SERVER_H_
