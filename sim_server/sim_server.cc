#include "sim_server/sim_server.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/cpu_budget.h"
#include "common/hashing.h"
#include "common/json_util.h"
#include "sim_server/epoll_http_server.h"
#include "worker/sim/sim_random.h"

namespace noveltygrid {
namespace {

using sim_http::EpollHttpServer;
using sim_http::EpollHttpServerOptions;
using sim_http::HttpReply;
using sim_http::HttpRequest;
using sim_http::HttpResponse;

constexpr size_t kMaxBodyBytes = 64u << 20;
constexpr size_t kMaxHeaderBytes = 64u << 10;
constexpr size_t kTimeoutPromisedBytes = 1024;  // the timeout fault's Content-Length, never sent

// "all" and the default: every kind but 529 (added later; leaving it out keeps the fault sequences of
// existing seeds).
const std::vector<SimFault>& AllFaults() {
  static const std::vector<SimFault> all = {SimFault::kRateLimit, SimFault::kServerError, SimFault::kTimeout,
                                            SimFault::kMalformed, SimFault::kTruncated};
  return all;
}

HttpResponse JsonResponse(SimHttpReply reply) {
  HttpResponse response;
  response.status = reply.status;
  response.body = std::move(reply.body);
  return response;
}

// An error in the shape of the endpoint's provider: Anthropic's on /v1/messages, else OpenAI's (with
// `type` and `code`).
HttpResponse ErrorResponse(bool anthropic, int status, absl::string_view message, absl::string_view type,
                           absl::string_view code) {
  return JsonResponse(anthropic ? AnthropicErrorReply(status, message) : SimErrorReply(status, message, type, code));
}

HttpReply Now(HttpResponse response) {
  return HttpReply{absl::ZeroDuration(),
                   [response = std::move(response)](bool) mutable { return std::move(response); }};
}

// One model request in flight (the in_flight gauge) from its arrival until its reply is made or its
// client leaves; moves into the reply callback.
class InFlight {
 public:
  InFlight(std::atomic<int64_t>* gauge, std::atomic<int64_t>* peak) : gauge_(gauge) {
    const int64_t now = ++*gauge_;
    for (int64_t seen = peak->load(); now > seen && !peak->compare_exchange_weak(seen, now);) {
    }
  }
  InFlight(InFlight&& other) noexcept : gauge_(std::exchange(other.gauge_, nullptr)) {}
  InFlight& operator=(InFlight&&) = delete;
  ~InFlight() {
    if (gauge_ != nullptr) --*gauge_;
  }

 private:
  std::atomic<int64_t>* gauge_;
};

// Constant-time for keys of the right length, so response timing does not reveal a key prefix.
bool SameSecret(absl::string_view actual, absl::string_view expected) {
  if (actual.size() != expected.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < actual.size(); ++i) diff |= static_cast<unsigned char>(actual[i] ^ expected[i]);
  return diff == 0;
}

}  // namespace

absl::StatusOr<std::vector<SimFault>> ParseSimFaults(absl::string_view list) {
  std::vector<SimFault> faults;
  auto add = [&faults](SimFault fault) {
    for (SimFault f : faults) {
      if (f == fault) return;
    }
    faults.push_back(fault);
  };
  for (absl::string_view item : absl::StrSplit(list, ',')) {
    item = absl::StripAsciiWhitespace(item);
    if (item == "429") {
      add(SimFault::kRateLimit);
    } else if (item == "500") {
      add(SimFault::kServerError);
    } else if (item == "529") {
      add(SimFault::kOverloaded);
    } else if (item == "timeout") {
      add(SimFault::kTimeout);
    } else if (item == "malformed") {
      add(SimFault::kMalformed);
    } else if (item == "truncated") {
      add(SimFault::kTruncated);
    } else if (item == "all") {
      for (SimFault f : AllFaults()) add(f);
    } else {
      return absl::InvalidArgumentError(absl::StrCat("unknown fault '", item, "' in '", list,
                                                     "'; known: 429, 500, 529, timeout, malformed, truncated, all"));
    }
  }
  return faults;
}

std::string SimApiKeyFromEnvironment() {
  const char* key = std::getenv("NOVELTYGRID_SIM_API_KEY");
  return key == nullptr ? "" : key;
}

std::string SimStatsJson(const SimServerStats& stats) {
  return DumpJson(Json{{"chat", stats.chat},
                       {"embeddings", stats.embeddings},
                       {"classify", stats.classify},
                       {"reward", stats.reward},
                       {"messages", stats.messages},
                       {"faults_injected", stats.faults_injected},
                       {"unauthorized", stats.unauthorized},
                       {"rate_limited", stats.rate_limited},
                       {"in_flight_peak", stats.in_flight_peak}});
}

SimServer::SimServer(const Clock* clock) : clock_(clock) {}

SimServer::~SimServer() { Stop(); }

int SimServer::EventLoops(int threads) { return std::clamp(threads, 1, UsableCpus()); }

absl::StatusOr<int> SimServer::Start(const SimServerOptions& options) {
  if (http_ != nullptr) return absl::FailedPreconditionError("SimServer::Start called twice");
  if (!(options.fault_rate >= 0.0 && options.fault_rate <= 1.0)) {
    return absl::InvalidArgumentError(absl::StrCat("fault rate ", options.fault_rate, " is outside [0, 1]"));
  }
  if (options.latency_ms < 0 || options.jitter_ms < 0 || options.threads < 1 || options.port < 0 ||
      options.port > 65535) {
    return absl::InvalidArgumentError("latency and jitter must be >= 0, threads >= 1, port in 0..65535");
  }
  if (options.rate_limits.requests_per_minute < 0 || options.rate_limits.tokens_per_minute < 0) {
    return absl::InvalidArgumentError("requests and tokens per minute must be >= 0 (0: unlimited)");
  }
  options_ = options;
  if (options_.faults.empty()) options_.faults = AllFaults();
  executor_ = std::make_unique<ThreadPool>(1);
  absl::StatusOr<std::unique_ptr<SimApi>> api = SimApi::Create(executor_.get());
  if (!api.ok()) return api.status();
  api_ = *std::move(api);
  anthropic_ = std::make_unique<AnthropicApi>(api_.get(), clock_);
  limiter_ = std::make_unique<RateLimiter>(options_.rate_limits, clock_);

  http_ = std::make_unique<EpollHttpServer>(
      [this](HttpRequest& request) { return Route(request); },
      [](int status, absl::string_view message) {
        return JsonResponse(SimErrorReply(status, message, "invalid_request_error", ""));
      });
  EpollHttpServerOptions http_options;
  http_options.host = options_.host;
  http_options.port = options_.port;
  http_options.loops = EventLoops(options_.threads);
  http_options.limits.max_body_bytes = kMaxBodyBytes;
  http_options.limits.max_header_bytes = kMaxHeaderBytes;
  absl::StatusOr<int> port = http_->Start(http_options);
  if (!port.ok()) http_.reset();
  return port;
}

void SimServer::Stop() {
  if (http_ != nullptr) http_->Stop();
}

SimServerStats SimServer::stats() const {
  SimServerStats stats;
  stats.chat = counters_.chat.load();
  stats.embeddings = counters_.embeddings.load();
  stats.classify = counters_.classify.load();
  stats.reward = counters_.reward.load();
  stats.messages = counters_.messages.load();
  stats.faults_injected = counters_.faults.load();
  stats.unauthorized = counters_.unauthorized.load();
  stats.rate_limited = counters_.rate_limited.load();
  stats.in_flight_peak = counters_.in_flight_peak.load();
  return stats;
}

bool SimServer::Authorized(Endpoint endpoint, const HttpRequest& request) const {
  if (options_.api_key.empty()) return true;
  // Anthropic clients send x-api-key (newer SDKs send the key as a bearer token, as OpenAI's do).
  if (endpoint == Endpoint::kMessages && SameSecret(request.Header("x-api-key"), options_.api_key)) return true;
  absl::string_view token = request.Header("Authorization");
  if (!absl::ConsumePrefix(&token, "Bearer ")) return false;
  return SameSecret(token, options_.api_key);
}

HttpReply SimServer::Route(HttpRequest& request) {
  if (request.method == "POST") {
    if (request.path == "/v1/chat/completions") return Serve(Endpoint::kChat, request);
    if (request.path == "/v1/embeddings") return Serve(Endpoint::kEmbeddings, request);
    // /v1/predict too: a provider whose base_url ends in /v1 reaches the classifier at BASE/predict.
    if (request.path == "/predict" || request.path == "/v1/predict") return Serve(Endpoint::kClassify, request);
    if (request.path == "/v1/reward") return Serve(Endpoint::kReward, request);
    if (request.path == "/v1/messages") return Serve(Endpoint::kMessages, request);
  } else if (request.method == "GET") {
    if (request.path == "/stats") return Now(JsonResponse(SimHttpReply{200, SimStatsJson(stats())}));
    if (request.path == "/health") {
      HttpResponse ok;
      ok.content_type = "text/plain";
      ok.body = "ok";
      return Now(std::move(ok));
    }
  }
  return Now(JsonResponse(SimErrorReply(404, absl::StrCat("no route for ", request.method, " ", request.path),
                                        "invalid_request_error", "")));
}

std::optional<HttpResponse> SimServer::Limit(Endpoint endpoint, absl::string_view body, Headers* headers) {
  if (!limiter_->enabled() || endpoint == Endpoint::kClassify || endpoint == Endpoint::kReward) return std::nullopt;
  int64_t tokens = 0;
  if (options_.rate_limits.tokens_per_minute > 0) {  // else the body need not be read here
    tokens = endpoint == Endpoint::kChat         ? api_->ChatCompletionTokens(body)
             : endpoint == Endpoint::kEmbeddings ? api_->EmbeddingTokens(body)
                                                 : anthropic_->MessagesTokens(body);
  }
  const RateDecision decision = limiter_->Admit(tokens);
  const bool anthropic = endpoint == Endpoint::kMessages;
  *headers = anthropic ? AnthropicRateLimitHeaders(decision) : OpenAiRateLimitHeaders(decision);
  if (decision.admitted) return std::nullopt;
  ++counters_.rate_limited;
  HttpResponse refused = ErrorResponse(anthropic, 429, decision.message, decision.limited_by, "rate_limit_exceeded");
  refused.headers = *headers;
  refused.headers.emplace_back("retry-after", SecondsToRetry(decision.retry_after));
  return refused;
}

HttpReply SimServer::Serve(Endpoint endpoint, HttpRequest& request) {
  const bool anthropic = endpoint == Endpoint::kMessages;
  if (!Authorized(endpoint, request)) {
    ++counters_.unauthorized;
    return Now(ErrorResponse(anthropic, 401, anthropic ? "invalid x-api-key" : "Incorrect API key provided",
                             "invalid_request_error", "invalid_api_key"));
  }
  Headers limits;
  if (std::optional<HttpResponse> refused = Limit(endpoint, request.body, &limits)) return Now(*std::move(refused));
  // Requests being handled at once (latency included), and the most seen: how tests check that
  // clients respect a provider's in-flight limit.
  InFlight in_flight(&counters_.in_flight, &counters_.in_flight_peak);
  std::atomic<int64_t>* const requests[] = {&counters_.chat, &counters_.embeddings, &counters_.classify,
                                            &counters_.reward, &counters_.messages};  // by Endpoint
  ++*requests[static_cast<int>(endpoint)];
  if (anthropic && request.Header("anthropic-version").empty()) {
    HttpResponse missing = ErrorResponse(true, 400, "anthropic-version: header is required", "", "");
    missing.headers = std::move(limits);
    return Now(std::move(missing));
  }
  // Fault and jitter draws follow (seed, sequence number) only.
  sim::SimRng rng(StableHasher().Add("serve-sim").Add(options_.seed).Add(sequence_.fetch_add(1)).Finish());
  const bool inject = rng.Uniform() < options_.fault_rate;
  const SimFault kind = options_.faults[rng.Below(options_.faults.size())];
  const double jitter = rng.Uniform() * options_.jitter_ms;
  std::optional<SimFault> fault;
  if (inject) {
    fault = kind;
    ++counters_.faults;
  }

  if (fault == SimFault::kTimeout) {
    // Headers promise a body that never comes: the client sees the connection drop.
    return HttpReply{options_.timeout_hold, [in_flight = std::move(in_flight)](bool) {
                       HttpResponse cut;
                       cut.promised_length = kTimeoutPromisedBytes;
                       return cut;
                     }};
  }
  // Answered now and sent once the latency is over: the latency is the wait, however long answering a
  // burst of requests takes (a provider's own machines do that work, not the client's).
  HttpResponse answer = Answer(endpoint, fault, request.body);
  return HttpReply{absl::Milliseconds(options_.latency_ms) + absl::Milliseconds(jitter),
                   [endpoint, answer = std::move(answer), limits = std::move(limits),
                    in_flight = std::move(in_flight)](bool stopping) mutable {
                     HttpResponse response =
                         stopping ? ErrorResponse(endpoint == Endpoint::kMessages, 503,
                                                  "the simulated server is shutting down", "server_error", "")
                                  : std::move(answer);
                     response.headers.insert(response.headers.end(), std::make_move_iterator(limits.begin()),
                                             std::make_move_iterator(limits.end()));
                     return response;
                   }};
}

HttpResponse SimServer::Answer(Endpoint endpoint, const std::optional<SimFault>& fault, absl::string_view body) {
  const bool anthropic = endpoint == Endpoint::kMessages;
  if (fault == SimFault::kRateLimit) {
    HttpResponse response = ErrorResponse(anthropic, 429, "Rate limit reached (simulated fault); retry after 1 s",
                                          "requests", "rate_limit_exceeded");
    response.headers = {{"Retry-After", "1"}, {"retry-after-ms", "200"}};
    return response;
  }
  if (fault == SimFault::kServerError) {
    return ErrorResponse(anthropic, 500, "The server had an error while processing your request (simulated fault)",
                         "server_error", "");
  }
  if (fault == SimFault::kOverloaded) {
    return ErrorResponse(anthropic, 529, "The server is overloaded (simulated fault)", "server_error", "overloaded");
  }
  SimHttpReply reply;
  if (anthropic) {
    reply = anthropic_->Messages(body);
  } else {
    using Handler = SimHttpReply (SimApi::*)(absl::string_view);
    static constexpr Handler kHandlers[] = {&SimApi::ChatCompletions, &SimApi::Embeddings, &SimApi::Predict,
                                            &SimApi::Reward};  // by Endpoint
    reply = (api_.get()->*kHandlers[static_cast<int>(endpoint)])(body);
  }
  if (fault == SimFault::kMalformed) {
    reply = SimHttpReply{200, "<html><body>upstream proxy error (simulated malformed response)</body></html>"};
  } else if (fault == SimFault::kTruncated) {
    reply = SimHttpReply{200, reply.body.substr(0, reply.body.size() / 2)};
  }
  return JsonResponse(std::move(reply));
}

}  // namespace noveltygrid
