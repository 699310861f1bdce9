#include "worker/http/curl_transfer.h"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace noveltygrid {
namespace curl_http {
namespace {

// A body beyond the transfer's limit stops it: returning fewer bytes than given makes curl end the
// transfer with CURLE_WRITE_ERROR, which Transfer::Failure words as the limit. Nothing past the limit
// is kept, so a reply of any size (or one that never ends) costs at most max_body bytes.
size_t OnBody(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t n = size * count;
  if (t->max_body > 0 && n > t->max_body - std::min(t->max_body, t->response.body.size())) {
    t->too_large = true;
    return 0;
  }
  t->response.body.append(data, n);
  return n;
}

size_t OnHeader(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t n = size * count;
  absl::string_view line(data, n);
  if (absl::StartsWith(line, "HTTP/")) {  // a new response (after 100 Continue or a redirect): start over
    t->reply_headers.Reset(t->response);
    return n;
  }
  const size_t colon = line.find(':');
  if (colon == absl::string_view::npos) return n;
  if (!t->reply_headers.Absorb(absl::StripAsciiWhitespace(line.substr(0, colon)),
                               absl::StripAsciiWhitespace(line.substr(colon + 1)), t->max_body, t->response)) {
    t->too_large = true;
    return 0;
  }
  return n;
}

}  // namespace

// The one place curl errors become Status. `detail` is curl's error buffer (no request headers).
absl::Status CurlError(CURLcode code, const char* detail, const HttpRequest& request) {
  std::string message = absl::StrCat(request.method, " ", RedactUrl(request.url), ": ", Curl().easy_strerror(code));
  if (detail != nullptr && detail[0] != '\0') absl::StrAppend(&message, " (", detail, ")");
  switch (code) {
    case CURLE_OPERATION_TIMEDOUT:
      return absl::DeadlineExceededError(message);
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_SSL_CONNECT_ERROR:  // a handshake cut short: may be the network
    case CURLE_SSL_SHUTDOWN_FAILED:
    case CURLE_SSL_INVALIDCERTSTATUS:  // an OCSP answer that did not come
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
    case CURLE_HTTP3:
    case CURLE_QUIC_CONNECT_ERROR:
      return absl::UnavailableError(message);
    // Certificates this machine cannot verify or present: its CA bundle, pinning or client
    // certificate is wrong, and no retry will change that.
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_CRL_BADFILE:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_CLIENTCERT:
    case CURLE_SSL_CIPHER:
      return absl::UnauthenticatedError(message);
    default:
      return absl::InternalError(message);
  }
}

long ToMillis(absl::Duration d) {
  const int64_t ms = absl::ToInt64Milliseconds(absl::Ceil(d, absl::Milliseconds(1)));
  return static_cast<long>(std::clamp<int64_t>(ms, 1, 0x7fffffff));
}

void Transfer::Prepare(std::shared_ptr<const HttpRequest> next, HttpCallback callback, const std::string& user_agent,
                       CURLU* parsed_url) {
  request = std::move(next);
  done = std::move(callback);
  const HttpRequest& r = *request;
  CURL* e = easy;
  SetHeaders(r.headers, user_agent);
  Curl().easy_setopt(e, CURLOPT_URL, r.url.c_str());
  Curl().easy_setopt(e, CURLOPT_CURLU, parsed_url);  // null: curl parses CURLOPT_URL itself
  Curl().easy_setopt(e, CURLOPT_TIMEOUT_MS, ToMillis(r.timeout));
  Curl().easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, ToMillis(r.connect_timeout));
  Curl().easy_setopt(e, CURLOPT_HTTPHEADER, headers);
  if (r.method == "GET") {
    Curl().easy_setopt(e, CURLOPT_HTTPGET, 1L);
    Curl().easy_setopt(e, CURLOPT_CUSTOMREQUEST, nullptr);
  } else {
    Curl().easy_setopt(e, CURLOPT_POST, 1L);
    Curl().easy_setopt(e, CURLOPT_POSTFIELDS, r.body.data());
    Curl().easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(r.body.size()));
    Curl().easy_setopt(e, CURLOPT_CUSTOMREQUEST, r.method == "POST" ? nullptr : r.method.c_str());
  }
}

void Transfer::SetHeaders(const std::vector<std::string>& wanted, const std::string& user_agent) {
  if (headers != nullptr && wanted == headers_source) return;
  Curl().slist_free_all(headers);
  headers = nullptr;
  bool has_agent = false;
  for (const std::string& header : wanted) {
    headers = Curl().slist_append(headers, header.c_str());
    has_agent = has_agent || absl::StartsWithIgnoreCase(header, "user-agent:");
  }
  if (!has_agent) headers = Curl().slist_append(headers, user_agent.c_str());
  headers = Curl().slist_append(headers, "Expect:");  // no 100-continue round trip for big bodies
  headers_source = wanted;
}

void Transfer::InstallCallbacks() {
  Curl().easy_setopt(easy, CURLOPT_ERRORBUFFER, error);
  Curl().easy_setopt(easy, CURLOPT_WRITEFUNCTION, &OnBody);
  Curl().easy_setopt(easy, CURLOPT_WRITEDATA, this);
  Curl().easy_setopt(easy, CURLOPT_HEADERFUNCTION, &OnHeader);
  Curl().easy_setopt(easy, CURLOPT_HEADERDATA, this);
}

HttpResponse Transfer::TakeResponse() {
  long status = 0;
  Curl().easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
  HttpResponse taken = std::move(response);
  taken.status = static_cast<int>(status);
  reply_headers.SetRetryHint(taken);
  return taken;
}

absl::Status Transfer::Failure(CURLcode code) const {
  if (!too_large) return CurlError(code, error, *request);
  return http_reply::TooLargeError(*request, max_body);
}

void Transfer::Clear() {
  too_large = false;
  request.reset();
  done = nullptr;
  response = HttpResponse();
  reply_headers.Reset(response);
  error[0] = '\0';
}

}  // namespace curl_http

}  // namespace noveltygrid
