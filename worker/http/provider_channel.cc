// ProviderChannel: every call is a small state object (request, attempts, callback) passed from the
// limiter to the HTTP client to the retry timer and back; all of them share the channel's Core, so a
// callback that runs after the channel is gone still finds its state (the HttpClient, limiter and
// executor must outlive every call). With hedging an attempt may have several requests in flight, whose
// replies can race on executor threads: a call's counters and its end are under its own mutex.
#include "worker/http/provider_channel.h"

#include <algorithm>
#include <atomic>
#include <memory>
#include <set>
#include <utility>

#include "absl/random/random.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "common/buffer_pool.h"
#include "common/env_lookup.h"
#include "worker/http/hedge_policy.h"
#include "worker/http/retry_policy.h"
#include "worker/http/token_estimate.h"
#include "worker/limits/learned_limits.h"

namespace noveltygrid {
namespace {

// A request whose body's buffer goes back to its channel's pool when the last holder lets go: a retry
// or hedge sends the same request again, and the HTTP client may let go after the call has ended (and
// the channel is gone), so the request keeps the pool alive.
struct PooledRequest : HttpRequest {
  explicit PooledRequest(std::shared_ptr<BufferPool> pool) : pool(std::move(pool)) {}
  PooledRequest(const PooledRequest&) = delete;
  PooledRequest& operator=(const PooledRequest&) = delete;
  ~PooledRequest() { pool->Give(std::move(body)); }
  const std::shared_ptr<BufferPool> pool;
};

struct Core {
  ProviderConfig config;
  HttpClient* http = nullptr;
  ProviderLimiter* limiter = nullptr;  // null: no limits
  Executor* executor = nullptr;
  RetryOptions retry;
  std::vector<std::string> headers;    // holds the key: never logged
  std::string key;                     // to scrub from provider messages that echo it; never logged
  RequestObserver observer;            // may be empty
  std::unique_ptr<HedgePolicy> hedge;  // constant after Create: when requests get a duplicate
  // The buffers of request bodies this channel has finished with, for the next bodies (BodyBuffer).
  const std::shared_ptr<BufferPool> bodies = std::make_shared<BufferPool>();

  absl::Mutex mu;
  absl::BitGen random ABSL_GUARDED_BY(mu);
  std::optional<absl::Status> latched ABSL_GUARDED_BY(mu);  // a credential error: no more requests

  std::atomic<int64_t> calls{0}, attempts{0}, retries{0}, failures{0}, hedges{0}, hedge_wins{0};
  // What calls not ended wait for (CallWaits): limited and retrying are counted here, in_flight is
  // sent.size().
  std::atomic<int64_t> limited{0}, retrying{0};
  std::multiset<absl::Time> sent ABSL_GUARDED_BY(mu);  // when each request in flight was sent

  CallWaits Waits() {
    CallWaits waits;
    waits.limited = limited.load(std::memory_order_relaxed);
    waits.retrying = retrying.load(std::memory_order_relaxed);
    absl::MutexLock lock(&mu);
    waits.in_flight = static_cast<int64_t>(sent.size());
    if (!sent.empty()) waits.oldest = std::max(absl::ZeroDuration(), absl::Now() - *sent.begin());
    return waits;
  }

  // "provider 'NAME': MESSAGE", with the key removed should the provider have echoed it.
  absl::Status Prefixed(const absl::Status& error) const {
    return absl::Status(error.code(), Scrub(absl::StrCat("provider '", config.name, "': ", error.message())));
  }
  std::string Scrub(std::string text) const {
    if (key.size() >= 4) text = absl::StrReplaceAll(text, {{key, "[redacted]"}});
    return text;
  }
  std::optional<absl::Status> Latched() {
    absl::MutexLock lock(&mu);
    return latched;
  }
  double Uniform() {
    absl::MutexLock lock(&mu);
    return absl::Uniform<double>(random, 0.0, 1.0);
  }
};

struct Call {
  // Constant after Start.
  std::shared_ptr<Core> core;
  std::shared_ptr<const HttpRequest> request;  // shared with the HTTP client: a retry or hedge sends it again
  JsonCallback done;                           // PostJson
  ReplyReader read;                            // PostRead
  FailureCallback failed;                      // PostRead
  int64_t reserve = 0;                         // tokens each request reserves under tokens_per_minute

  // Replies of an attempt and its duplicates may run at once on several executor threads.
  absl::Mutex mu;
  int attempts ABSL_GUARDED_BY(mu) = 0;       // original requests sent
  int hedges ABSL_GUARDED_BY(mu) = 0;         // duplicates sent
  int pending ABSL_GUARDED_BY(mu) = 0;        // requests of this attempt not replied yet (a queued duplicate too)
  int round ABSL_GUARDED_BY(mu) = 0;          // which attempt: a hedge timer armed for an earlier one does nothing
  int duplicates ABSL_GUARDED_BY(mu) = 0;     // of this attempt, sent or queued (<= HedgePolicy::kMaxDuplicates)
  bool ended ABSL_GUARDED_BY(mu) = false;     // delivered: later replies are ignored
  bool retrying ABSL_GUARDED_BY(mu) = false;  // counted in Core::retrying
};

// One request of a call in flight (the original of an attempt or its duplicate).
struct Sent {
  std::multiset<absl::Time>::iterator at;  // in Core::sent until its reply
  TokenReservation reserved;               // what the limiter reserved for it
  bool hedge = false;
};

// Ends the call (it must not have ended): it waits for nothing any more. Returns what it took.
CallInfo EndLocked(Call& call) ABSL_EXCLUSIVE_LOCKS_REQUIRED(call.mu) {
  call.ended = true;
  if (call.retrying) call.core->retrying.fetch_sub(1, std::memory_order_relaxed);
  call.retrying = false;
  return CallInfo{call.attempts, call.hedges};
}

bool Ended(Call& call) {
  absl::MutexLock lock(&call.mu);
  return call.ended;
}

// Delivers the error of a call that EndLocked ended.
void Fail(const std::shared_ptr<Call>& call, CallInfo info, absl::Status error) {
  call->core->failures.fetch_add(1, std::memory_order_relaxed);
  if (call->read) {  // PostRead
    std::move(call->failed)(std::move(error), info);
  } else {
    std::move(call->done)(std::move(error), info);
  }
}

// Ends the call with `error`, unless it has ended already.
void Deliver(const std::shared_ptr<Call>& call, absl::Status error) {
  CallInfo info;
  {
    absl::MutexLock lock(&call->mu);
    if (call->ended) return;
    info = EndLocked(*call);
  }
  Fail(call, info, std::move(error));
}

void Attempt(std::shared_ptr<Call> call);
void Send(std::shared_ptr<Call> call, TokenReservation reserved, bool hedge);
void ThroughLimiter(std::shared_ptr<Call> call, bool hedge);

void OnReply(const std::shared_ptr<Call>& call, const Sent& sent, absl::StatusOr<HttpResponse> result) {
  Core& core = *call->core;
  absl::Time sent_at;
  {
    absl::MutexLock lock(&core.mu);
    sent_at = *sent.at;
    core.sent.erase(sent.at);
  }
  const bool text = static_cast<bool>(call->read);
  // PostRead: the caller's reader checks a 2xx body as it reads it, so the body is read once. Not for a
  // call already answered (a late duplicate): nothing would use what it read.
  std::optional<ReadReply> read;
  if (text && result.ok() && result->status >= 200 && result->status < 300 && !Ended(*call)) {
    read = call->read(result->body);
  }
  Json parsed;
  Classification c = ClassifyAttempt(result, text ? nullptr : &parsed, read.has_value() ? &read->scan : nullptr);
  const absl::Duration latency = absl::Now() - sent_at;
  if (core.observer) core.observer(core.config.name, latency, c.outcome == CallOutcome::kSuccess);
  if (c.outcome == CallOutcome::kSuccess) core.hedge->Observe(call->request->url, latency);
  if (core.limiter != nullptr && result.ok() && !result->rate_limit_headers.empty()) {
    core.limiter->Learn(LimitsFromHeaders(result->rate_limit_headers));
    core.limiter->HoldFor(PauseFromHeaders(result->rate_limit_headers, absl::Now()));
  }
  if (core.limiter != nullptr) {
    // A reply without usage is taken to have used its reservation; a failed attempt used nothing.
    const int64_t used = c.outcome != CallOutcome::kSuccess ? 0
                         : c.usage_tokens > 0               ? c.usage_tokens
                                                            : sent.reserved.tokens;
    core.limiter->Release(used, sent.reserved);
  }
  // What this reply decides, under the call's lock so that the attempt's other request sees it.
  CallInfo info;
  bool retry = false;
  {
    absl::MutexLock lock(&call->mu);
    --call->pending;
    if (call->ended) return;  // the other request of the attempt answered first
    // A transient failure while another request of the attempt may still answer: wait for that one.
    if (c.outcome == CallOutcome::kRetry && call->pending > 0) return;
    retry = c.outcome == CallOutcome::kRetry && call->attempts <= core.retry.max_retries;
    if (retry) {
      ++call->round;
      call->duplicates = 0;
      if (!call->retrying) core.retrying.fetch_add(1, std::memory_order_relaxed);
      call->retrying = true;
      info = CallInfo{call->attempts, call->hedges};
    } else {
      info = EndLocked(*call);
    }
  }
  switch (c.outcome) {
    case CallOutcome::kSuccess:
      if (sent.hedge) core.hedge_wins.fetch_add(1, std::memory_order_relaxed);
      if (text) {
        std::move(read->deliver)(info);
      } else {
        std::move(call->done)(std::move(parsed), info);
      }
      return;
    case CallOutcome::kFail: {
      absl::Status error = core.Prefixed(c.error);
      if (IsCredentialError(error)) {
        // Say where the key came from (the name of the variable or file, never the key); a TLS
        // failure's message says what is wrong by itself.
        const ProviderConfig& p = core.config;
        const std::string source =
            c.transport ? std::string("check this machine's TLS setup: CA certificates, client certificate, pinned key")
            : !p.api_key_env.empty()  ? absl::StrCat("the key from $", p.api_key_env)
            : !p.api_key_file.empty() ? absl::StrCat("the key from ", p.api_key_file)
                                      : std::string("no key configured");
        error = absl::Status(error.code(), absl::StrCat(error.message(), " (", source, ")"));
        absl::MutexLock lock(&core.mu);
        if (!core.latched.has_value()) core.latched = error;
      }
      Fail(call, info, std::move(error));
      return;
    }
    case CallOutcome::kRetry:
      break;
  }
  if (!retry) {
    const absl::StatusCode code = c.error.code() == absl::StatusCode::kDeadlineExceeded
                                      ? absl::StatusCode::kDeadlineExceeded
                                      : absl::StatusCode::kUnavailable;
    Fail(call, info,
         absl::Status(code, core.Scrub(absl::StrCat("provider '", core.config.name, "': gave up after ", info.attempts,
                                                    " attempts: ", c.error.message()))));
    return;
  }
  core.retries.fetch_add(1, std::memory_order_relaxed);
  const absl::Duration delay = RetryDelay(core.retry, info.attempts, c.hint, core.Uniform());
  HttpClient* http = core.http;
  http->RunAfter(delay, [call]() mutable { Attempt(std::move(call)); });
}

// Hedge timer `nth` of attempt `round` went off (0: armed when the original was sent; n: when its
// duplicate n was): if that attempt is still waiting for a reply and this timer is its latest, one
// more duplicate goes through the limiter to Send. A stale timer (the call ended, the attempt was
// retried, or a later duplicate went already) does nothing.
void Hedge(std::shared_ptr<Call> call, int round, int nth) {
  Core& core = *call->core;
  {
    absl::MutexLock lock(&call->mu);
    if (call->ended || call->round != round || call->duplicates != nth || call->pending == 0) return;
    if (nth >= HedgePolicy::kMaxDuplicates || core.Latched().has_value()) return;
    ++call->duplicates;
    ++call->pending;
  }
  ThroughLimiter(std::move(call), /*hedge=*/true);
}

// To Send once the limiter has room: at once when it has (or there is none), else from its queue. A
// request that waited there is not sent when the key was refused meanwhile (the call fails with that),
// nor, for a duplicate, when its call was answered meanwhile.
void ThroughLimiter(std::shared_ptr<Call> call, bool hedge) {
  Core& core = *call->core;
  ProviderLimiter* limiter = core.limiter;
  if (limiter == nullptr || limiter->AcquireNow()) {  // HttpClient::Send never runs the callback inline
    Send(std::move(call), TokenReservation{}, hedge);
    return;
  }
  const int64_t reserve = call->reserve;
  core.limited.fetch_add(1, std::memory_order_relaxed);
  limiter->Acquire(
      [call = std::move(call), hedge](TokenReservation reserved) mutable {
        Core& core = *call->core;
        core.limited.fetch_sub(1, std::memory_order_relaxed);
        if (hedge) {
          bool ended = false;
          {
            absl::MutexLock lock(&call->mu);
            ended = call->ended;
            if (ended) --call->pending;
          }
          if (ended) {  // answered while the duplicate waited: send nothing
            core.limiter->Release(0, reserved);
            return;
          }
        }
        if (std::optional<absl::Status> latched = core.Latched(); latched.has_value()) {
          core.limiter->Release(0, reserved);
          Deliver(call, *std::move(latched));
          return;
        }
        Send(std::move(call), reserved, hedge);
      },
      reserve);
}

void Send(std::shared_ptr<Call> call, TokenReservation reserved, bool hedge) {
  Core& core = *call->core;
  int round = 0, nth = 0;  // the hedge timer armed below is the attempt's nth
  {
    absl::MutexLock lock(&call->mu);
    if (hedge) {
      ++call->hedges;  // already counted in pending and duplicates when the timer decided on it
    } else {
      ++call->attempts;
      ++call->pending;
    }
    round = call->round;
    nth = call->duplicates;
  }
  (hedge ? core.hedges : core.attempts).fetch_add(1, std::memory_order_relaxed);
  Sent sent{{}, reserved, hedge};
  {
    absl::MutexLock lock(&core.mu);
    // Taken under mu, the time is the latest so far unless the clock stepped back (then the hint only
    // costs a search).
    sent.at = core.sent.insert(core.sent.end(), absl::Now());
  }
  // The next hedge: after the original, and again after each duplicate until the attempt has its last.
  if (nth < HedgePolicy::kMaxDuplicates && core.hedge->enabled()) {
    if (std::optional<absl::Duration> wait = core.hedge->Delay(call->request->url); wait.has_value()) {
      // A weak pointer: a call that ended is not kept alive by its timer.
      core.http->RunAfter(*wait, [weak = std::weak_ptr<Call>(call), round, nth] {
        if (std::shared_ptr<Call> alive = weak.lock()) Hedge(std::move(alive), round, nth);
      });
    }
  }
  std::shared_ptr<const HttpRequest> request = call->request;
  core.http->Send(std::move(request), [call = std::move(call), sent](absl::StatusOr<HttpResponse> result) {
    OnReply(call, sent, std::move(result));
  });
}

// One attempt: through the latch and the limiter to Send. A latched credential error fails the call
// without a request -- delivered through the executor, since this may run on the caller's stack
// (PostJson), which can hold locks its callback takes.
void Attempt(std::shared_ptr<Call> call) {
  Core& core = *call->core;
  if (std::optional<absl::Status> latched = core.Latched(); latched.has_value()) {
    core.executor->Schedule([call, error = *std::move(latched)]() mutable { Deliver(call, std::move(error)); });
    return;
  }
  ThroughLimiter(std::move(call), /*hedge=*/false);
}

class ProviderChannelImpl : public ProviderChannel {
 public:
  explicit ProviderChannelImpl(std::shared_ptr<Core> core) : core_(std::move(core)) {}

  const ProviderConfig& config() const override { return core_->config; }

  void PostJson(const std::string& path, Json body, JsonCallback done) override {
    auto call = std::make_shared<Call>();
    call->done = std::move(done);
    Start(std::move(call), path, DumpJson(body));
  }

  void PostRead(const std::string& path, std::string body, ReplyReader read, FailureCallback failed) override {
    auto call = std::make_shared<Call>();
    call->read = std::move(read);
    call->failed = std::move(failed);
    Start(std::move(call), path, std::move(body));
  }

  std::optional<absl::Status> CredentialError() const override { return core_->Latched(); }
  CallWaits Waits() const override { return core_->Waits(); }
  std::string BodyBuffer(size_t capacity) override { return core_->bodies->Take(capacity); }

  ProviderChannelStats Stats() const override {
    ProviderChannelStats s;
    s.calls = core_->calls.load(std::memory_order_relaxed);
    s.attempts = core_->attempts.load(std::memory_order_relaxed);
    s.retries = core_->retries.load(std::memory_order_relaxed);
    s.failures = core_->failures.load(std::memory_order_relaxed);
    s.hedges = core_->hedges.load(std::memory_order_relaxed);
    s.hedge_wins = core_->hedge_wins.load(std::memory_order_relaxed);
    return s;
  }

 private:
  void Start(std::shared_ptr<Call> call, const std::string& path, std::string body) {
    core_->calls.fetch_add(1, std::memory_order_relaxed);
    call->core = core_;
    if (std::optional<absl::Status> latched = core_->Latched(); latched.has_value()) {
      // Not on the caller's stack: callbacks always run on the executor.
      core_->executor->Schedule([call, error = *std::move(latched)]() mutable { Deliver(call, std::move(error)); });
      return;
    }
    auto request = std::make_shared<PooledRequest>(core_->bodies);
    request->method = "POST";
    request->url = core_->config.base_url + path;
    request->headers = core_->headers;
    request->body = std::move(body);
    request->timeout = core_->config.timeout;
    request->connect_timeout = std::min(core_->config.timeout, absl::Seconds(10));
    const int64_t tokens_per_minute = core_->config.limits.tokens_per_minute;
    if (core_->limiter != nullptr && (tokens_per_minute > 0 || core_->config.learn_limits)) {
      // Capped at a configured limit: a larger one would be admitted the same way (alone in a minute).
      // A limit learned later counts the estimate too, uncapped (an unlimited limiter ignores it); an
      // estimate is the body's bytes / 4 plus max_tokens x n, so sums stay far from overflowing.
      const int64_t estimate = EstimateRequestTokens(request->body);
      call->reserve = tokens_per_minute > 0 ? std::min(estimate, tokens_per_minute) : estimate;
    }
    call->request = std::move(request);
    Attempt(std::move(call));
  }

  const std::shared_ptr<Core> core_;
};

// The key named by the config: "" when none is configured.
absl::StatusOr<std::string> LoadKey(const ProviderConfig& config, const SecretLookup& env) {
  const std::string who = absl::StrCat("provider '", config.name, "': ");
  if (!config.api_key_env.empty()) {
    std::optional<std::string> value = env ? env(config.api_key_env) : ProcessEnv(config.api_key_env);
    std::string key = value.has_value() ? std::string(absl::StripAsciiWhitespace(*value)) : "";
    if (key.empty()) {
      return absl::FailedPreconditionError(absl::StrCat(who, "the API key variable ", config.api_key_env,
                                                        " is unset or empty; export it (or set api_key_file)"));
    }
    return key;
  }
  if (!config.api_key_file.empty()) {
    absl::StatusOr<std::string> contents = ReadFile(config.api_key_file);
    if (!contents.ok()) {
      return absl::FailedPreconditionError(
          absl::StrCat(who, "cannot read the API key file ", config.api_key_file, ": ", contents.status().message()));
    }
    absl::string_view first = *contents;
    first = first.substr(0, first.find('\n'));
    std::string key(absl::StripAsciiWhitespace(first));
    if (key.empty()) {
      return absl::FailedPreconditionError(
          absl::StrCat(who, "the API key file ", config.api_key_file, " is empty (the key goes on its first line)"));
    }
    return key;
  }
  return std::string();
}

}  // namespace

void ProviderChannel::PostRead(const std::string& path, std::string body, ReplyReader read, FailureCallback failed) {
  Json parsed = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) {
    std::move(failed)(
        absl::InvalidArgumentError(absl::StrCat("provider '", config().name, "': request body is not JSON")),
        CallInfo{});
    return;
  }
  PostJson(path, std::move(parsed),
           [read = std::move(read), failed = std::move(failed)](absl::StatusOr<Json> reply, CallInfo info) mutable {
             if (!reply.ok()) return std::move(failed)(reply.status(), info);
             std::move(read(DumpJson(*reply)).deliver)(info);
           });
}

absl::StatusOr<std::unique_ptr<ProviderChannel>> ProviderChannel::Create(const ProviderConfig& config, HttpClient* http,
                                                                         ProviderLimiter* limiter, Executor* executor,
                                                                         const SecretLookup& env,
                                                                         absl::Duration max_hint,
                                                                         RequestObserver observer) {
  if (http == nullptr || executor == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("provider '", config.name, "': HTTP client and executor are required"));
  }
  if (config.base_url.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("provider '", config.name, "': base_url is empty"));
  }
  absl::StatusOr<std::string> key = LoadKey(config, env);
  if (!key.ok()) return key.status();

  auto core = std::make_shared<Core>();
  core->config = config;
  while (!core->config.base_url.empty() && core->config.base_url.back() == '/') core->config.base_url.pop_back();
  core->http = http;
  core->limiter = limiter;
  core->executor = executor;
  core->retry.max_retries = std::max(config.max_retries, 0);
  core->retry.initial_backoff = config.initial_backoff;
  core->retry.max_backoff = config.max_backoff;
  core->retry.max_hint = max_hint;
  core->headers = {"Content-Type: application/json", "Accept: application/json"};
  if (config.api == kApiAnthropic) {
    core->headers.push_back(absl::StrCat("anthropic-version: ", kAnthropicVersion));
    if (!key->empty()) core->headers.push_back(absl::StrCat("x-api-key: ", *key));
  } else if (!key->empty()) {
    core->headers.push_back(absl::StrCat("Authorization: Bearer ", *key));
  }
  core->key = *key;
  core->observer = std::move(observer);
  core->hedge = std::make_unique<HedgePolicy>(core->config);
  return std::make_unique<ProviderChannelImpl>(std::move(core));
}

}  // namespace noveltygrid
