// ReplyHeaders: what an HTTP reply's header lines mean to the client -- the content type, the body's
// announced length against the body limit, the server's wait hint (Retry-After, retry-after-ms) and
// the provider's rate-limit headers. One interpretation for both transports: curl's header callback
// (curl_transfer.cc) and the built-in HTTP/1.1 parser (http1_response_parser.cc).
#ifndef NOVELTYGRID_WORKER_HTTP_REPLY_HEADERS_H_
#define NOVELTYGRID_WORKER_HTTP_REPLY_HEADERS_H_

#include <cstddef>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "worker/http/http_client.h"

namespace noveltygrid::http_reply {

// scheme://host[:port]/path -- without userinfo and query string, which may carry credentials.
std::string RedactUrl(absl::string_view url);

class ReplyHeaders {
 public:
  // A new reply begins (the first, or the final one after a 1xx): forget the previous one's headers.
  void Reset(HttpResponse& response);
  // One header line's name and value (whitespace already stripped). False when it announces a body
  // longer than `max_body` (0: no limit): the caller cuts the transfer off with OutOfRange.
  bool Absorb(absl::string_view name, absl::string_view value, size_t max_body, HttpResponse& response);
  // Sets response.retry_after from the hints seen: retry-after-ms wins over Retry-After.
  void SetRetryHint(HttpResponse& response) const;

 private:
  std::string retry_after_;
  std::string retry_after_ms_;
};

// The OutOfRange message of a reply cut off at the body limit.
absl::Status TooLargeError(const HttpRequest& request, size_t max_body);

}  // namespace noveltygrid::http_reply

#endif  // NOVELTYGRID_WORKER_HTTP_REPLY_HEADERS_H_
