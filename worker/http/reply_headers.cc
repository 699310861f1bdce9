#include "worker/http/reply_headers.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <ctime>
#include <optional>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace noveltygrid::http_reply {
namespace {

constexpr uint64_t kMaxBodyReserve = 64 << 20;  // a Content-Length beyond this is not trusted for reserve()
constexpr size_t kMaxRateLimitHeaders = 32;     // a handful in practice; a hostile server gets no more

}  // namespace

std::string RedactUrl(absl::string_view url) {
  url = url.substr(0, url.find_first_of("?#"));
  const size_t scheme_end = url.find("://");
  const size_t authority = scheme_end == absl::string_view::npos ? 0 : scheme_end + 3;
  const size_t path = url.find('/', authority);
  const size_t at = url.substr(0, path).find('@', authority);
  if (at == absl::string_view::npos) return std::string(url);
  return absl::StrCat(url.substr(0, authority), url.substr(at + 1));
}

void ReplyHeaders::Reset(HttpResponse& response) {
  response.content_type.clear();
  response.rate_limit_headers.clear();
  retry_after_.clear();
  retry_after_ms_.clear();
}

bool ReplyHeaders::Absorb(absl::string_view name, absl::string_view value, size_t max_body, HttpResponse& response) {
  if (absl::EqualsIgnoreCase(name, "content-type")) {
    response.content_type = std::string(value);
  } else if (absl::EqualsIgnoreCase(name, "content-length")) {
    // Room for the whole body at once rather than a string grown (and copied) piece by piece; a
    // length over the limit stops the transfer before its body.
    uint64_t length = 0;
    if (absl::SimpleAtoi(value, &length)) {
      if (max_body > 0 && length > max_body) return false;
      if (length <= kMaxBodyReserve) response.body.reserve(length);
    }
  } else if (absl::EqualsIgnoreCase(name, "retry-after")) {
    retry_after_ = std::string(value);
  } else if (absl::EqualsIgnoreCase(name, "retry-after-ms")) {
    retry_after_ms_ = std::string(value);
  } else if (absl::StartsWithIgnoreCase(name, "x-ratelimit-") ||
             absl::StartsWithIgnoreCase(name, "anthropic-ratelimit-")) {
    if (response.rate_limit_headers.size() < kMaxRateLimitHeaders) {
      response.rate_limit_headers.emplace_back(absl::AsciiStrToLower(name), std::string(value.substr(0, 64)));
    }
  }
  return true;
}

void ReplyHeaders::SetRetryHint(HttpResponse& response) const {
  std::optional<absl::Duration> hint;
  if (!retry_after_ms_.empty()) {
    double ms = 0;
    if (absl::SimpleAtod(retry_after_ms_, &ms) && std::isfinite(ms) && ms >= 0) hint = absl::Milliseconds(ms);
  }
  if (!hint.has_value() && !retry_after_.empty()) hint = ParseRetryAfter(retry_after_, absl::Now());
  response.retry_after = hint;
}

absl::Status TooLargeError(const HttpRequest& request, size_t max_body) {
  return absl::OutOfRangeError(absl::StrCat(
      request.method, " ", RedactUrl(request.url), ": the reply is larger than the limit of ", max_body,
      " bytes on a response body (HttpClientOptions::max_response_bytes); the transfer was cut off there"));
}

}  // namespace noveltygrid::http_reply

namespace noveltygrid {

std::optional<absl::Duration> ParseRetryAfter(const std::string& value, absl::Time now) {
  const absl::string_view v = absl::StripAsciiWhitespace(value);
  if (v.empty()) return std::nullopt;
  if (absl::ascii_isdigit(static_cast<unsigned char>(v[0])) || v[0] == '.') {
    double seconds = 0;
    if (!absl::SimpleAtod(v, &seconds) || !std::isfinite(seconds) || seconds < 0) return std::nullopt;
    return absl::Seconds(seconds);
  }
  // An HTTP-date in one of the three forms HTTP/1.1 says a recipient must read (RFC 9110, 5.6.7): the
  // preferred IMF-fixdate, the obsolete RFC 850 form and asctime's. The C locale's names (the process
  // never sets another).
  const std::string date(v);
  for (const char* format : {"%a, %d %b %Y %H:%M:%S GMT", "%A, %d-%b-%y %H:%M:%S GMT", "%a %b %d %H:%M:%S %Y"}) {
    std::tm parts{};
    const char* end = ::strptime(date.c_str(), format, &parts);
    if (end == nullptr || *end != '\0') continue;
    const time_t when = ::timegm(&parts);
    if (when == -1) return std::nullopt;
    return std::max(absl::FromTimeT(when) - now, absl::ZeroDuration());
  }
  return std::nullopt;
}

}  // namespace noveltygrid
