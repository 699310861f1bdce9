// HttpRequestParser: an incremental HTTP/1.x request parser for serve-sim's event loop. Feed it the bytes
// received on a connection and not yet consumed; it answers "need more", "here is one request (n bytes)"
// or "protocol error (status, message)". Supported: a request line, headers, a body framed by
// Content-Length (none: no body). Refused: Transfer-Encoding (chunked) request bodies (411), oversized
// headers (431) and bodies (413), malformed request lines and headers (400), versions other than HTTP/1.0
// and HTTP/1.1 (505). Bare LF line ends are accepted.
//
// Not thread-safe: one parser per connection, used by the thread that owns the connection.
#ifndef NOVELTYGRID_SIM_SERVER_HTTP_REQUEST_PARSER_H_
#define NOVELTYGRID_SIM_SERVER_HTTP_REQUEST_PARSER_H_

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"

namespace noveltygrid::sim_http {

struct HttpRequest {
  std::string method;
  std::string target;                                        // as sent: "/v1/chat/completions?x=1"
  std::string path;                                          // the target without its query
  int minor_version = 1;                                     // HTTP/1.<minor_version>
  std::vector<std::pair<std::string, std::string>> headers;  // names as sent, values trimmed
  std::string body;
  bool keep_alive = true;        // HTTP/1.1 unless "Connection: close"; HTTP/1.0 only with "Connection: keep-alive"
  bool expect_continue = false;  // "Expect: 100-continue"

  // The value of the first header called `name` (case-insensitive), or "".
  absl::string_view Header(absl::string_view name) const;
};

struct HttpParseLimits {
  size_t max_header_bytes = 64u << 10;  // request line and headers together
  size_t max_body_bytes = 64u << 20;
};

class HttpRequestParser {
 public:
  enum class State { kIncomplete, kComplete, kError };

  explicit HttpRequestParser(HttpParseLimits limits = {}) : limits_(limits) {}

  // `input`: the connection's unconsumed bytes, the same prefix as on the previous call plus whatever
  // arrived since (until Reset). kComplete: request() is the request and its first consumed() bytes of
  // `input` are used up. kError: error_status()/error_message(); the connection cannot be resynchronised.
  State Parse(absl::string_view input);

  // True once the headers of the current request are parsed (its body may still be incomplete).
  bool headers_done() const { return headers_done_; }
  HttpRequest& request() { return request_; }
  size_t consumed() const { return header_bytes_ + content_length_; }
  int error_status() const { return error_status_; }
  const std::string& error_message() const { return error_message_; }

  // Forgets the current request, ready for the next one on the connection.
  void Reset();

 private:
  State Fail(int status, std::string message);
  State ParseHead(absl::string_view head);

  HttpParseLimits limits_;
  size_t scan_from_ = 0;  // where to resume looking for the end of the headers
  bool headers_done_ = false;
  size_t header_bytes_ = 0;  // request line + headers + blank line
  size_t content_length_ = 0;
  HttpRequest request_;
  int error_status_ = 0;
  std::string error_message_;
};

}  // namespace noveltygrid::sim_http

#endif  // NOVELTYGRID_SIM_SERVER_HTTP_REQUEST_PARSER_H_
