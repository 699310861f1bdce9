// SimServer: the simulated model family (SimApi) behind an OpenAI-compatible HTTP server, for
// `noveltygrid serve-sim`, integration tests and load tests of the HTTP providers.
//
//   POST /v1/chat/completions, /v1/embeddings, /v1/reward, /predict (also /v1/predict)   see sim_api.h
//   GET  /stats   {"chat": n, "embeddings": n, "classify": n, "reward": n, "faults_injected": n,
//                  "unauthorized": n, "in_flight_peak": n}
//   GET  /health  200 "ok"
//
// /stats counts every request that reached an endpoint past the API-key check, whatever its outcome
// (a 400, an injected fault); "classify" is /predict; "unauthorized" counts the requests the key
// check refused.
//
// Realism knobs, all deterministic for a given seed and request order:
//   - latency: every model endpoint answers after latency_ms plus a uniform jitter in [0, jitter_ms]
//     (rounded up to the next millisecond tick of the event loop). The wait is a timer on the event loop
//     (epoll_http_server.h), not a parked thread: thousands of requests can wait at once at no CPU
//     cost, and Stop cuts every wait short (503 "shutting down"). The reply is computed when the wait
//     is over.
//   - faults: with probability fault_rate per model request (decided from seed and the request's
//     sequence number) one fault from `faults` is injected instead of the normal answer:
//       429        status 429, "Retry-After: 1" and "retry-after-ms: 200", OpenAI rate-limit error body
//       500        status 500, OpenAI server error body
//       timeout    nothing is sent for `timeout_hold` (30 s) or until Stop, then headers promising a
//                  body that never comes, and the connection is dropped
//       malformed  status 200 with a body that is not JSON
//       truncated  status 200 with the first half of the real JSON body (Content-Length matches it)
//     /stats and /health never get faults or latency.
//   - auth: when api_key is non-empty, /v1/* and /predict require "Authorization: Bearer KEY"
//     (else 401 invalid_api_key). The key is compared in constant time and never echoed.
//
// HTTP: HTTP/1.1 and 1.0, keep-alive (the default of 1.1) and "Connection: close", pipelining (answered
// in order), "Expect: 100-continue"; request bodies need a Content-Length (chunked: 411) of at most
// 64 MiB (413), request line and headers at most 64 KiB (431). Unknown paths and methods: 404 with an
// OpenAI error body. Responses: Content-Type, Content-Length (plus the 429's Retry-After headers); never
// compressed.
//
// Responses never depend on the wall clock: the same request body gets the same response body
// (faults aside).
//
// Thread-safety: Start and Stop from one owning thread; stats() from any thread. Requests are handled
// on the event-loop threads (`threads` of them), which share only atomics and the thread-safe SimApi.
#ifndef NOVELTYGRID_SIM_SERVER_SIM_SERVER_H_
#define NOVELTYGRID_SIM_SERVER_SIM_SERVER_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/executor.h"
#include "sim_server/sim_api.h"

namespace noveltygrid {
namespace sim_http {
class EpollHttpServer;
struct HttpReply;
struct HttpRequest;
struct HttpResponse;
}  // namespace sim_http

enum class SimFault { kRateLimit, kServerError, kTimeout, kMalformed, kTruncated };

// Parses "429,500,timeout,malformed,truncated" (any non-empty subset, any order; "all" = every kind).
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
  // Event-loop threads, capped at the CPUs this process may run on (sched_getaffinity). Requests in
  // flight are not limited by it; one loop serves well over 10k requests/s.
  int threads = 1;
  absl::Duration timeout_hold = absl::Seconds(30);
};

struct SimServerStats {
  int64_t chat = 0;
  int64_t embeddings = 0;
  int64_t classify = 0;
  int64_t reward = 0;
  int64_t faults_injected = 0;
  int64_t unauthorized = 0;    // requests refused for a missing or wrong API key (not counted above)
  int64_t in_flight_peak = 0;  // most model requests handled at once (the timeout fault's hold included)
};

// The GET /stats body.
std::string SimStatsJson(const SimServerStats& stats);

class SimServer {
 public:
  SimServer();
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
  enum class Endpoint { kChat, kEmbeddings, kClassify, kReward };
  struct Counters {
    std::atomic<int64_t> chat{0}, embeddings{0}, classify{0}, reward{0}, faults{0}, unauthorized{0}, in_flight{0},
        in_flight_peak{0};
  };

  sim_http::HttpReply Route(sim_http::HttpRequest& request);
  sim_http::HttpReply Serve(Endpoint endpoint, sim_http::HttpRequest& request);
  // The reply to a model request once its latency is over (fault is the injected one, if any).
  sim_http::HttpResponse Answer(Endpoint endpoint, const std::optional<SimFault>& fault, absl::string_view body);
  bool Authorized(const sim_http::HttpRequest& request) const;

  // Constant after Start.
  SimServerOptions options_;
  std::unique_ptr<ThreadPool> executor_;  // for constructing the models only
  std::unique_ptr<SimApi> api_;
  std::unique_ptr<sim_http::EpollHttpServer> http_;

  Counters counters_;
  std::atomic<uint64_t> sequence_{0};  // model requests seen, for fault and jitter choices
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_SIM_SERVER_SIM_SERVER_H_
