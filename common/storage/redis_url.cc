#include "common/storage/redis_url.h"

#include <optional>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace noveltygrid {
namespace {

constexpr std::string_view kScheme = "redis://";
constexpr std::string_view kAcceptedForm = "redis://[[user]:password@]host[:port][/db]";

absl::string_view AbslView(std::string_view s) { return absl::string_view(s.data(), s.size()); }

// Where the user info starts and ends ('@' position) in `url`, or npos when it has none.
std::pair<size_t, size_t> UserInfoSpan(std::string_view url) {
  const size_t scheme_end = url.find("://");
  const size_t begin = scheme_end == std::string_view::npos ? 0 : scheme_end + 3;
  const size_t at = url.rfind('@');
  if (at == std::string_view::npos || at < begin) return {std::string_view::npos, std::string_view::npos};
  return {begin, at};
}

absl::Status UrlError(const std::string& url, std::string_view problem) {
  return absl::InvalidArgumentError(absl::StrCat("invalid Redis URL \"", MaskRedisUrl(url), "\": ", AbslView(problem),
                                                 "; expected ", AbslView(kAcceptedForm),
                                                 ", e.g. redis://127.0.0.1:6379/0"));
}

// Percent-decodes user info; nullopt on a malformed escape.
std::optional<std::string> PercentDecode(std::string_view in) {
  std::string out;
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] != '%') {
      out.push_back(in[i]);
      continue;
    }
    if (i + 2 >= in.size() || !absl::ascii_isxdigit(in[i + 1]) || !absl::ascii_isxdigit(in[i + 2])) {
      return std::nullopt;
    }
    auto hex = [](char c) { return absl::ascii_isdigit(c) ? c - '0' : absl::ascii_tolower(c) - 'a' + 10; };
    out.push_back(static_cast<char>(hex(in[i + 1]) * 16 + hex(in[i + 2])));
    i += 2;
  }
  return out;
}

bool ParseDecimal(std::string_view digits, int max, int* out) {
  if (digits.empty() || digits.size() > 9) return false;
  for (char c : digits) {
    if (!absl::ascii_isdigit(c)) return false;
  }
  return absl::SimpleAtoi(AbslView(digits), out) && *out <= max;
}

}  // namespace

std::string RedisEndpoint::Describe() const {
  const bool ipv6 = host.find(':') != std::string::npos;
  return absl::StrCat(AbslView(kScheme), ipv6 ? "[" : "", host, ipv6 ? "]" : "", ":", port, "/", db);
}

std::string MaskRedisUrl(const std::string& url) {
  const auto [begin, at] = UserInfoSpan(url);
  if (begin == std::string::npos) return url;
  const std::string_view user_info = std::string_view(url).substr(begin, at - begin);
  const size_t colon = user_info.find(':');
  // Without a ':' the whole user info may be a password, so all of it goes.
  const std::string masked =
      colon == std::string_view::npos ? "***" : absl::StrCat(AbslView(user_info.substr(0, colon)), ":***");
  return absl::StrCat(url.substr(0, begin), masked, url.substr(at));
}

absl::StatusOr<RedisEndpoint> ParseRedisUrl(const std::string& url) {
  if (!absl::StartsWithIgnoreCase(url, AbslView(kScheme))) {
    return UrlError(url, "it must start with redis:// (TLS, rediss://, is not supported)");
  }
  RedisEndpoint endpoint;
  std::string_view rest = std::string_view(url).substr(kScheme.size());

  const auto [begin, at] = UserInfoSpan(url);
  if (begin != std::string::npos) {
    const std::string_view user_info = std::string_view(url).substr(begin, at - begin);
    const size_t colon = user_info.find(':');
    if (colon == std::string_view::npos) {
      return UrlError(url, "the part before '@' must be ':password' or 'user:password'");
    }
    std::optional<std::string> user = PercentDecode(user_info.substr(0, colon));
    std::optional<std::string> password = PercentDecode(user_info.substr(colon + 1));
    if (!user || !password) return UrlError(url, "bad %-escape in the user or password");
    if (password->empty()) return UrlError(url, "the password after ':' is empty");
    endpoint.user = *std::move(user);
    endpoint.password = *std::move(password);
    rest = std::string_view(url).substr(at + 1);
  }
  if (rest.find_first_of("?#") != std::string_view::npos) {
    return UrlError(url, "query options ('?...') are not supported");
  }

  const size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  if (slash != std::string_view::npos) {
    const std::string_view db = rest.substr(slash + 1);
    if (!db.empty() && !ParseDecimal(db, 1'000'000, &endpoint.db)) {
      return UrlError(url, "the database after '/' must be a number such as 0");
    }
  }

  std::string_view port;
  if (absl::StartsWith(AbslView(authority), "[")) {  // [IPv6]:port
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) return UrlError(url, "missing ']' after an IPv6 host");
    endpoint.host = std::string(authority.substr(1, close - 1));
    const std::string_view after = authority.substr(close + 1);
    if (!after.empty() && after[0] != ':') return UrlError(url, "expected ':port' after ']'");
    if (!after.empty()) port = after.substr(1);
    if (!after.empty() && port.empty()) return UrlError(url, "the port after ':' is empty");
  } else {
    const size_t colon = authority.find(':');
    if (colon != std::string_view::npos && authority.find(':', colon + 1) != std::string_view::npos) {
      return UrlError(url, "an IPv6 host must be written in brackets, e.g. [::1]:6379");
    }
    endpoint.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) {
      port = authority.substr(colon + 1);
      if (port.empty()) return UrlError(url, "the port after ':' is empty");
    }
  }
  if (endpoint.host.empty()) return UrlError(url, "the host is empty");
  if (!port.empty() && (!ParseDecimal(port, 65535, &endpoint.port) || endpoint.port == 0)) {
    return UrlError(url, "the port must be a number from 1 to 65535");
  }
  return endpoint;
}

}  // namespace noveltygrid
