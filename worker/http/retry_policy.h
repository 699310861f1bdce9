// RetryPolicy: which failures of a model API call are worth another try, and how long to wait.
//
// Retried (transient): HTTP 408, 409, 429 (except insufficient_quota), every 5xx, timeouts and
// connection errors, and a reply that is not the JSON it should be (malformed or truncated body),
// as well as an error object inside an HTTP 200 body whose type/code says it is transient.
// Failed at once (the unit fails with the provider's message): 400, 401, 403, 404, 402, 429 with
// code/type "insufficient_quota", and every other 4xx; and a reply larger than the HTTP client's body
// limit (OutOfRange, HttpClientOptions::max_response_bytes): a server that sent that once would send
// it again, and each try would cost the limit in memory and bandwidth.
//
// Waits: jittered exponential backoff, initial * 2^(retry-1) capped at max, times a random factor in
// [0.5, 1.0]; a server hint (Retry-After / retry-after-ms), capped at max_hint, replaces it when
// larger, plus up to a fifth of itself at random (never earlier than the server asked).
#ifndef NOVELTYGRID_WORKER_HTTP_RETRY_POLICY_H_
#define NOVELTYGRID_WORKER_HTTP_RETRY_POLICY_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/json_util.h"
#include "worker/http/http_client.h"
#include "worker/http/json_reader.h"

namespace noveltygrid {

struct RetryOptions {
  int max_retries = 6;  // tries = 1 + max_retries
  absl::Duration initial_backoff = absl::Milliseconds(500);
  absl::Duration max_backoff = absl::Seconds(30);
  absl::Duration max_hint = absl::Seconds(120);  // longest server hint honoured
};

enum class CallOutcome { kSuccess, kRetry, kFail };

struct Classification {
  CallOutcome outcome = CallOutcome::kSuccess;
  // For kRetry / kFail: what went wrong, worded for users, e.g.
  //   "HTTP 401: Incorrect API key provided" (code Unauthenticated)
  //   "HTTP 429 insufficient_quota: You exceeded your current quota" (ResourceExhausted)
  //   "HTTP 200 with an error object: ..." / "malformed JSON body: ..."
  // Codes: 400 InvalidArgument, 401 Unauthenticated, 402/quota ResourceExhausted, 403
  // PermissionDenied, 404 NotFound, other 4xx (and unfollowed 1xx/3xx) FailedPrecondition, retryable
  // ones Unavailable (or DeadlineExceeded for transport timeouts, 408 and 504). A transport error
  // other than Unavailable/DeadlineExceeded (Internal, Cancelled) fails at once with its own code.
  absl::Status error;
  std::optional<absl::Duration> hint;  // the server's Retry-After, when it sent one
  bool transport = false;              // no HTTP reply: the error is the client's
  // For kSuccess: the tokens the reply says it used (usage.total_tokens, else prompt_tokens +
  // completion_tokens; 0 without usage), for the limiter.
  int64_t usage_tokens = 0;
};

// What a check of a 2xx body finds without building a tree.
struct BodyScan {
  bool valid = false;      // one JSON value and nothing after it
  bool container = false;  // an object or an array
  bool has_error = false;  // an object whose "error" member is not null
  bool too_deep = false;   // invalid because nested deeper than kMaxJsonDepth
  int64_t usage_tokens = 0;
};

// The check of a 2xx body, in a pass of its own.
BodyScan ScanBody(absl::string_view body);
// The same check made by a reader that reads the body itself (ProviderChannel::PostRead), so that the
// body is read once: walks the top-level value, handing each member of an object to `member` (the
// reader at its value, which `member` must read or skip) and skipping anything else; `scan` (if not
// null) then holds ScanBody's answers, provided `member` reads every value strictly (JsonReader's reads
// and Skip; a raw string's escapes checked -- else the caller must mark the scan invalid).
void WalkBody(JsonReader& r, BodyScan* scan, absl::FunctionRef<void(absl::string_view key, JsonReader& r)> member);

// Classifies one attempt. A 2xx body must be a JSON object without an "error" member (or a JSON array,
// as text-embeddings-inference /predict replies); on kSuccess
// `*parsed` (if not null) receives that object, so the body is parsed once. With `parsed` null a
// successful body is only checked (JsonReader: no tree built), for callers that read the text
// themselves: by ScanBody, or, when `scanned` is given, by the caller's own pass.
Classification ClassifyAttempt(const absl::StatusOr<HttpResponse>& attempt, Json* parsed,
                               const BodyScan* scanned = nullptr);

// The most tokens a reply's usage may count: far beyond any call (2^40), and small enough that the
// sums of a sweep's counters cannot overflow.
inline constexpr int64_t kMaxUsageTokens = int64_t{1} << 40;

// A usage count from a reply (prompt_tokens, completion_tokens, total_tokens) as every reader takes it:
// a number, fractions dropped; 0 when negative or above kMaxUsageTokens (a provider's garbage must
// neither lower the cost and budget tallies nor overflow them). `integer` when `is_integer`, else `value`.
int64_t UsageTokenCount(double value, bool is_integer, int64_t integer);

// True for the errors after which no later request to the same provider can succeed with the same
// credentials (a 401, or a TLS certificate this machine cannot verify): callers stop sending to that
// provider. A 403 is often about one request or one
// model (no access to it, a moderation refusal), so it fails that call only.
bool IsCredentialError(const absl::Status& error);

// How long to wait before retry number `retry` (1-based). `unit_random` is uniform in [0, 1).
absl::Duration RetryDelay(const RetryOptions& options, int retry, std::optional<absl::Duration> hint,
                          double unit_random);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_WORKER_HTTP_RETRY_POLICY_H_
