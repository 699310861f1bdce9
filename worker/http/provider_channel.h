// ProviderChannel: one provider's HTTP endpoint as the models see it -- JSON in, JSON out, with the
// API key, the provider's limits, retries and error classification applied.
//
// PostJson(path, body) sends `body` to base_url + path (path like "/chat/completions") through the
// limiter, retries what RetryPolicy calls transient, and delivers either the parsed JSON object (or array) of a
// successful reply or the final error, worded "provider 'NAME': <what went wrong>" (after retries:
// "... after N attempts: <last error>"). The provider's `usage.total_tokens` (when present) is charged
// to the limiter.
//
// Hedging (opt-in: the config's hedge_after_ms / hedge_after, worker/http/hedge_policy.h): an attempt
// with no reply after the hedge wait gets a duplicate -- the same request, through the limiter like
// any -- and, should none have answered after one more wait, another (HedgePolicy::kMaxDuplicates per
// attempt). The first successful reply is delivered, once; the others' replies are ignored when they
// come (they are not cut off: HttpClient has no per-request cancel). Callers cannot tell which one
// answered (the same body gets the same answer), only CallInfo::hedges says duplicates were sent. An
// attempt fails when all of its requests have failed (then it is retried as usual, and the retry may be
// hedged again); an error that is not retried (a 400, a 401...) ends the call at once. A hedge is not a
// retry: attempts and max_retries count the original requests only.
//
// Credentials: the key is read once at Create from the environment variable or file the config names
// and sent as "Authorization: Bearer KEY" (api: anthropic: "x-api-key: KEY", with "anthropic-version"); it never
// appears in a Status, a log line or a result. A 401 or 403 latches: every later call fails at once with the same
// error, without a request, so a wrong key costs one request per call in flight rather than a retry storm.
//
// Thread-safe; callbacks run on the executor.
#ifndef NOVELTYGRID_WORKER_HTTP_PROVIDER_CHANNEL_H_
#define NOVELTYGRID_WORKER_HTTP_PROVIDER_CHANNEL_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "absl/functional/any_invocable.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/call_cost.h"
#include "common/executor.h"
#include "common/json_util.h"
#include "common/provider_config.h"
#include "worker/http/http_client.h"
#include "worker/http/retry_policy.h"
#include "worker/limits/provider_limiter.h"

namespace noveltygrid {

struct CallInfo {
  int attempts = 0;  // requests sent (0 when the channel failed the call without sending), hedges aside
  int hedges = 0;  // duplicates sent by hedging (ProviderConfig::hedge_after), all attempts; not attempts, not retries
  int retries() const { return attempts > 0 ? attempts - 1 : 0; }
};

using JsonCallback = absl::AnyInvocable<void(absl::StatusOr<Json> reply, CallInfo info) &&>;

// PostRead: what a reader of a 2xx body found there -- the channel's checks of it (ScanBody's answers,
// worker/http/retry_policy.h) and `deliver`, which hands what was read to the caller.
struct ReadReply {
  BodyScan scan;
  absl::AnyInvocable<void(CallInfo info) &&> deliver;
};
// Called for each 2xx body -- more than once for a retried or hedged call, on several threads at once
// for hedged duplicates, and possibly for a reply the channel then drops -- so it must have no side
// effects and hold only what it owns.
using ReplyReader = absl::AnyInvocable<ReadReply(absl::string_view body) const>;
using FailureCallback = absl::AnyInvocable<void(absl::Status error, CallInfo info) &&>;

struct ProviderChannelStats {
  int64_t calls = 0;
  int64_t attempts = 0;
  int64_t retries = 0;
  int64_t failures = 0;
  int64_t hedges = 0;      // duplicates sent
  int64_t hedge_wins = 0;  // calls a duplicate's reply answered
};

// Told of every request a channel sent, when it ended: the provider, how long its reply took and whether
// the attempt succeeded (a retried or failed one did not). For metrics; called on the HTTP thread, so it
// must be quick and must not block.
using RequestObserver = std::function<void(const std::string& provider, absl::Duration latency, bool ok)>;

// The longest Retry-After a channel waits for by default.
inline constexpr absl::Duration kDefaultMaxRetryHint = absl::Seconds(120);

// Environment lookup for the key (tests inject one); returns nullopt when unset.
using SecretLookup = std::function<std::optional<std::string>(const std::string& name)>;

class ProviderChannel {
 public:
  // `http`, `limiter` and `executor` are not owned and must outlive every call in flight (the
  // channel object itself may go first: calls keep its state alive). `limiter` may be null (no
  // limits). `env` defaults to the process environment. `max_hint` caps a server's Retry-After
  // (RetryOptions::max_hint); the other retry settings come from `config`. Fails
  // (FailedPrecondition) when the configured key variable is unset or empty, or the key file is
  // unreadable or empty -- naming the variable or file, never the value.
  static absl::StatusOr<std::unique_ptr<ProviderChannel>> Create(const ProviderConfig& config, HttpClient* http,
                                                                 ProviderLimiter* limiter, Executor* executor,
                                                                 const SecretLookup& env = nullptr,
                                                                 absl::Duration max_hint = kDefaultMaxRetryHint,
                                                                 RequestObserver observer = nullptr);
  virtual ~ProviderChannel() = default;

  virtual const ProviderConfig& config() const = 0;
  virtual void PostJson(const std::string& path, Json body, JsonCallback done) = 0;
  // PostJson for callers that write the body text themselves and read the reply with their own parser
  // (no JSON tree either way), in the same pass as the channel's checks: `body` is sent as is and must
  // be JSON; `read` reads each 2xx body (ReplyReader), and the channel runs the `deliver` of the reply
  // it accepts -- or `failed` with the call's error: one of the two, once. The default goes through
  // PostJson (for fakes).
  virtual void PostRead(const std::string& path, std::string body, ReplyReader read, FailureCallback failed);
  virtual ProviderChannelStats Stats() const = 0;
  // The credential error that latched this channel, if one did (a 401, or a TLS setup that cannot
  // work; IsCredentialError): no call through it can succeed until that is fixed.
  virtual std::optional<absl::Status> CredentialError() const { return std::nullopt; }
  // The calls through this channel that have not ended, by what they wait for (a reply, a retry, the
  // provider's limits). Cheap: for status and progress lines.
  virtual CallWaits Waits() const { return {}; }
  // An empty string with room for `capacity` bytes, for a request body to be posted through this
  // channel: a buffer of a request it has finished with when one fits (common/buffer_pool.h), so that
  // large bodies do not take fresh pages at every call. The default (fakes) reserves a new one.
  virtual std::string BodyBuffer(size_t capacity) {
    std::string s;
    s.reserve(capacity);
    return s;
  }
};

// PostRead for a parser: `parse(body, &scan)` reads a 2xx body once, making the channel's checks as it
// goes (WalkBody, retry_policy.h), and returns what it read (a ReplyReader: no side effects); `done`
// receives that, or the call's error.
template <typename T, typename Parse>
void PostParsed(ProviderChannel& channel, const std::string& path, std::string body, Parse parse,
                absl::AnyInvocable<void(absl::StatusOr<T> reply, CallInfo info) &&> done) {
  using Done = absl::AnyInvocable<void(absl::StatusOr<T>, CallInfo) &&>;
  auto sink = std::make_shared<Done>(std::move(done));  // run once: by the accepted reply or the failure
  channel.PostRead(
      path, std::move(body),
      [parse = std::move(parse), sink](absl::string_view text) {
        ReadReply read;
        absl::StatusOr<T> value = parse(text, &read.scan);
        read.deliver = [sink, value = std::move(value)](CallInfo info) mutable {
          std::move (*sink)(std::move(value), info);
        };
        return read;
      },
      [sink](absl::Status error, CallInfo info) { std::move (*sink)(std::move(error), info); });
}

}  // namespace noveltygrid

#endif  // NOVELTYGRID_WORKER_HTTP_PROVIDER_CHANNEL_H_
