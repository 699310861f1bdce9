#include "worker/http/retry_policy.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "worker/http/json_reader.h"

namespace noveltygrid {
namespace {

constexpr size_t kMaxProviderMessage = 300;
constexpr size_t kMaxBodyPrefix = 40;

// What a provider said went wrong, from an OpenAI-style error object (or a bare string / a top-level
// "message" / "detail" as vLLM and FastAPI servers send).
struct ProviderError {
  bool present = false;
  std::string message;
  std::string type;
  std::string code;  // as text ("insufficient_quota", "500")
  std::optional<int> numeric_code;
};

std::string Printable(absl::string_view text, size_t limit) {
  std::string out;
  const size_t n = std::min(text.size(), limit);
  out.reserve(n + 3);
  for (size_t i = 0; i < n; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    out.push_back(c == '\n' || c == '\r' || c == '\t' ? ' ' : (c < 0x20 || c == 0x7f ? '?' : static_cast<char>(c)));
  }
  if (text.size() > limit) out += "...";
  return out;
}

std::string JsonText(const Json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number_integer() || value.is_number_unsigned()) return std::to_string(value.get<int64_t>());
  return "";
}

ProviderError FromErrorValue(const Json& error) {
  ProviderError e;
  e.present = true;
  if (error.is_string()) {
    e.message = error.get<std::string>();
  } else if (error.is_object()) {
    if (auto it = error.find("message"); it != error.end()) e.message = JsonText(*it);
    if (auto it = error.find("type"); it != error.end()) e.type = JsonText(*it);
    if (auto it = error.find("code"); it != error.end()) {
      e.code = JsonText(*it);
      int numeric = 0;
      if (absl::SimpleAtoi(e.code, &numeric)) e.numeric_code = numeric;
    }
  } else {
    e.message = Printable(DumpJson(error), kMaxProviderMessage);
  }
  return e;
}

// The error object of a reply body, if it has one. `any_message`: also accept a top-level
// "message"/"detail" (non-2xx replies only: a 2xx body counts as an error only through "error").
ProviderError ExtractError(const Json& body, bool any_message) {
  if (!body.is_object()) return {};
  if (auto it = body.find("error"); it != body.end() && !it->is_null()) return FromErrorValue(*it);
  if (!any_message) return {};
  for (const char* key : {"message", "detail"}) {
    if (auto it = body.find(key); it != body.end() && it->is_string()) {
      ProviderError e = FromErrorValue(body);
      e.message = it->get<std::string>();
      return e;
    }
  }
  return {};
}

bool LooksTransient(const ProviderError& e) {
  if (e.numeric_code.has_value() && (*e.numeric_code >= 500 || *e.numeric_code == 429)) return true;
  for (const std::string* field : {&e.type, &e.code}) {
    const std::string lower = absl::AsciiStrToLower(*field);
    for (absl::string_view word : {"server_error", "rate_limit", "overloaded", "timeout", "unavailable"}) {
      if (absl::StrContains(lower, word)) return true;
    }
  }
  return false;
}

bool IsQuota(const ProviderError& e) { return e.code == "insufficient_quota" || e.type == "insufficient_quota"; }

absl::Status StatusFor(int http_status, bool retryable, std::string message) {
  if (retryable) {
    if (http_status == 408 || http_status == 504) return absl::DeadlineExceededError(std::move(message));
    return absl::UnavailableError(std::move(message));
  }
  switch (http_status) {
    case 400:
      return absl::InvalidArgumentError(std::move(message));
    case 401:
      return absl::UnauthenticatedError(std::move(message));
    case 402:
    case 429:
      return absl::ResourceExhaustedError(std::move(message));
    case 403:
      return absl::PermissionDeniedError(std::move(message));
    case 404:
      return absl::NotFoundError(std::move(message));
    default:
      return absl::FailedPreconditionError(std::move(message));
  }
}

int64_t UsageTokens(const Json& reply) {
  if (!reply.is_object()) return 0;
  auto usage = reply.find("usage");
  if (usage == reply.end() || !usage->is_object()) return 0;
  auto number = [&](const char* key) -> int64_t {
    auto it = usage->find(key);
    if (it == usage->end() || !it->is_number()) return 0;
    return it->is_number_float() ? UsageTokenCount(it->get<double>(), false, 0)
                                 : UsageTokenCount(0, true, it->get<int64_t>());
  };
  if (auto total = usage->find("total_tokens"); total != usage->end() && total->is_number()) {
    return number("total_tokens");
  }
  // OpenAI's names, else Anthropic's (input_tokens excludes the cached part, which is counted apart).
  const auto has = [&](const char* key) {
    auto it = usage->find(key);
    return it != usage->end() && it->is_number();
  };
  if (has("prompt_tokens") || has("completion_tokens")) {
    return number("prompt_tokens") + number("completion_tokens");
  }
  return number("input_tokens") + number("output_tokens") + number("cache_creation_input_tokens") +
         number("cache_read_input_tokens");
}

// ScanBody's reading of a "usage" value: total_tokens, else prompt + completion, else Anthropic's names
// (0 for anything but an object).
int64_t ReadUsageTokens(JsonReader& r) {
  if (r.Peek() != JsonReader::Type::kObject) {
    r.Skip();
    return 0;
  }
  std::optional<int64_t> total, prompt, completion, input, output, cache_write, cache_read;
  r.BeginObject();
  absl::string_view field;
  while (r.NextMember(&field)) {
    std::optional<int64_t>* slot = field == "total_tokens"                  ? &total
                                   : field == "prompt_tokens"               ? &prompt
                                   : field == "completion_tokens"           ? &completion
                                   : field == "input_tokens"                ? &input
                                   : field == "output_tokens"               ? &output
                                   : field == "cache_creation_input_tokens" ? &cache_write
                                   : field == "cache_read_input_tokens"     ? &cache_read
                                                                            : nullptr;
    if (slot != nullptr && r.Peek() == JsonReader::Type::kNumber) {
      double value;
      bool is_integer;
      int64_t integer;
      if (r.ReadNumber(&value, &is_integer, &integer)) *slot = UsageTokenCount(value, is_integer, integer);
    } else {
      if (slot != nullptr) slot->reset();
      r.Skip();
    }
  }
  if (total.has_value()) return *total;
  if (prompt.has_value() || completion.has_value()) return prompt.value_or(0) + completion.value_or(0);
  return input.value_or(0) + output.value_or(0) + cache_write.value_or(0) + cache_read.value_or(0);  // Anthropic's
}

Classification Make(CallOutcome outcome, absl::Status error, const HttpResponse& response) {
  Classification c;
  c.outcome = outcome;
  c.error = std::move(error);
  c.hint = response.retry_after;
  return c;
}

}  // namespace

void WalkBody(JsonReader& r, BodyScan* scan, absl::FunctionRef<void(absl::string_view key, JsonReader& r)> member) {
  const JsonReader::Type top = r.Peek();
  if (top == JsonReader::Type::kObject) {
    r.BeginObject();
    absl::string_view key;
    while (r.NextMember(&key)) {
      // "error" and "usage" are read on a copy of the reader: `member` reads the value itself. A
      // repeated key: the last one counts, as in a parsed tree.
      if (scan != nullptr && key == "error") {
        JsonReader probe = r;
        scan->has_error = probe.Peek() != JsonReader::Type::kNull;
      } else if (scan != nullptr && key == "usage") {
        JsonReader probe = r;
        scan->usage_tokens = ReadUsageTokens(probe);
      }
      member(key, r);
    }
  } else {
    r.Skip();
  }
  if (scan != nullptr) {
    scan->container = top == JsonReader::Type::kObject || top == JsonReader::Type::kArray;
    scan->valid = r.AtEnd();
    scan->too_deep = r.too_deep();
  }
}

BodyScan ScanBody(absl::string_view body) {
  BodyScan scan;
  JsonReader r(body);
  WalkBody(r, &scan, [](absl::string_view, JsonReader& value) { value.Skip(); });
  return scan;
}

Classification ClassifyAttempt(const absl::StatusOr<HttpResponse>& attempt, Json* parsed, const BodyScan* scanned) {
  if (!attempt.ok()) {
    Classification c;
    const absl::StatusCode code = attempt.status().code();
    c.outcome = code == absl::StatusCode::kDeadlineExceeded || code == absl::StatusCode::kUnavailable
                    ? CallOutcome::kRetry
                    : CallOutcome::kFail;
    c.error = attempt.status();
    c.transport = true;
    return c;
  }
  const HttpResponse& response = *attempt;
  const int status = response.status;
  const auto malformed = [&](bool too_deep) {
    std::string message =
        absl::StrCat("HTTP ", status, ": malformed JSON body (", response.body.size(), " bytes",
                     too_deep ? absl::StrCat(", nested deeper than ", kMaxJsonDepth, " levels") : "", ")");
    if (!response.body.empty()) absl::StrAppend(&message, ": ", Printable(response.body, kMaxBodyPrefix));
    return Make(CallOutcome::kRetry, absl::UnavailableError(std::move(message)), response);
  };
  const bool success = status >= 200 && status < 300;
  if (success && parsed == nullptr) {
    // The common case, without a tree; a body with an error object takes the path below for its message.
    const BodyScan scan = scanned != nullptr ? *scanned : ScanBody(response.body);
    if (!scan.valid || !scan.container) return malformed(scan.too_deep);
    if (!scan.has_error) {
      Classification c = Make(CallOutcome::kSuccess, absl::OkStatus(), response);
      c.usage_tokens = scan.usage_tokens;
      return c;
    }
  }
  absl::StatusOr<Json> parsed_body = ParseJson(response.body);
  const bool is_json = parsed_body.ok();
  Json body = is_json ? *std::move(parsed_body) : Json();

  if (success) {
    if (!is_json || !(body.is_object() || body.is_array())) {  // arrays: TEI /predict replies
      return malformed(absl::IsOutOfRange(parsed_body.status()));
    }
    const ProviderError e = ExtractError(body, /*any_message=*/false);
    if (e.present) {
      const bool transient = LooksTransient(e);
      std::string message = absl::StrCat(
          "HTTP ", status,
          " with an error object: ", Printable(e.message.empty() ? e.code + e.type : e.message, kMaxProviderMessage));
      return Make(
          transient ? CallOutcome::kRetry : CallOutcome::kFail,
          transient ? absl::UnavailableError(std::move(message)) : absl::InvalidArgumentError(std::move(message)),
          response);
    }
    Classification c = Make(CallOutcome::kSuccess, absl::OkStatus(), response);
    c.usage_tokens = UsageTokens(body);
    if (parsed != nullptr) *parsed = std::move(body);
    return c;
  }

  const ProviderError e = is_json ? ExtractError(body, /*any_message=*/true) : ProviderError{};
  std::string message = absl::StrCat("HTTP ", status);
  const bool quota = status == 429 && IsQuota(e);
  if (quota) absl::StrAppend(&message, " insufficient_quota");
  if (!e.message.empty()) {
    absl::StrAppend(&message, ": ", Printable(e.message, kMaxProviderMessage));
  } else if (!e.code.empty() || !e.type.empty()) {
    absl::StrAppend(&message, ": ", Printable(e.code.empty() ? e.type : e.code, kMaxProviderMessage));
  } else if (!response.body.empty() && !is_json) {
    absl::StrAppend(&message, ": ", Printable(response.body, kMaxBodyPrefix));
  }
  const bool retryable = !quota && (status == 408 || status == 409 || status == 429 || (status >= 500 && status < 600));
  return Make(retryable ? CallOutcome::kRetry : CallOutcome::kFail, StatusFor(status, retryable, std::move(message)),
              response);
}

int64_t UsageTokenCount(double value, bool is_integer, int64_t integer) {
  if (is_integer) return integer >= 0 && integer <= kMaxUsageTokens ? integer : 0;
  return value > 0 && value <= static_cast<double>(kMaxUsageTokens) ? static_cast<int64_t>(value) : 0;
}

bool IsCredentialError(const absl::Status& error) { return error.code() == absl::StatusCode::kUnauthenticated; }

namespace {
constexpr double kHintSpread = 0.2;
}  // namespace

absl::Duration RetryDelay(const RetryOptions& options, int retry, std::optional<absl::Duration> hint,
                          double unit_random) {
  const int exponent = std::clamp(retry - 1, 0, 62);
  absl::Duration backoff = std::min(options.initial_backoff * std::ldexp(1.0, exponent), options.max_backoff);
  const double u = std::clamp(unit_random, 0.0, 1.0);
  backoff = std::max(backoff * (0.5 + 0.5 * u), absl::ZeroDuration());
  if (!hint.has_value()) return backoff;
  // Never before the server's time, and spread over the next fifth of it: the many calls a 429 burst
  // refused together do not all come back in the same instant.
  const absl::Duration hinted = std::min(*hint, options.max_hint);
  return std::max(backoff, hinted + hinted * (kHintSpread * u));
}

}  // namespace noveltygrid
