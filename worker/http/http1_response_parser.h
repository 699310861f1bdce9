// Http1ResponseParser: one HTTP/1.1 reply read incrementally from the bytes a connection delivers --
// status line, headers (interpreted by ReplyHeaders), then a body framed by Content-Length, chunked
// transfer coding, or the end of the connection; 1xx interim replies are skipped. No I/O: the built-in
// transport (http1_transport.cc) feeds it what it reads, and tests and the fuzzer feed it anything.
//
// Limits: the status line and headers together at most 64 KiB, a chunk-size line at most 1 KiB, the body
// at most `max_body` bytes (0: none) -- past any of them Feed fails, so no reply costs unbounded memory.
#ifndef NOVELTYGRID_WORKER_HTTP_HTTP1_RESPONSE_PARSER_H_
#define NOVELTYGRID_WORKER_HTTP_HTTP1_RESPONSE_PARSER_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "worker/http/http_client.h"
#include "worker/http/reply_headers.h"

namespace noveltygrid::http1 {

class Http1ResponseParser {
 public:
  enum class Result {
    kNeedMore,  // everything given was consumed; the reply is not complete yet
    kDone,      // the reply is complete (TakeResponse); bytes after it were not consumed
    kTooLarge,  // the body passed max_body (or its Content-Length announced so)
    kInvalid,   // not HTTP/1.x, or a framing error: error() says what
  };

  explicit Http1ResponseParser(size_t max_body) : max_body_(max_body) {}

  // Ready for the next reply on the connection. `head_request`: the reply has no body whatever it says.
  void Reset(bool head_request = false);
  // Consumes bytes from `data`; `*consumed` says how many (all of them unless the reply ended inside).
  Result Feed(absl::string_view data, size_t* consumed);
  // The connection ended (a read returned 0): completes a reply whose body runs to the end of the
  // connection, else kInvalid.
  Result FeedEof();

  // After kDone: the reply (status, body, headers' meaning).
  HttpResponse TakeResponse();
  // After kDone: whether the connection may carry another request (HTTP/1.1 without "Connection:
  // close", HTTP/1.0 with "Connection: keep-alive", a body not framed by the connection's end).
  bool keep_alive() const { return keep_alive_; }
  // Whether any byte of a reply arrived since Reset (a connection that dies before one may be retried).
  bool started() const { return started_; }
  const std::string& error() const { return error_; }

 private:
  enum class State { kStatusLine, kHeader, kBody, kChunkSize, kChunkData, kChunkEnd, kTrailer, kUntilClose, kDone };

  // One complete line (without its CR LF) in the current state.
  Result Line(absl::string_view line);
  Result StatusLine(absl::string_view line);
  Result HeaderLine(absl::string_view line);
  Result EndOfHead();
  Result ChunkSizeLine(absl::string_view line);
  Result Invalid(std::string message);
  // Appends body bytes, or fails with kTooLarge past the limit.
  bool AppendBody(absl::string_view bytes);

  const size_t max_body_;
  State state_ = State::kStatusLine;
  bool head_request_ = false;
  bool started_ = false;
  bool keep_alive_ = true;
  bool http10_ = false;
  bool chunked_ = false;
  bool has_length_ = false;
  bool connection_close_ = false;
  bool connection_keep_alive_ = false;
  uint64_t remaining_ = 0;  // body or chunk bytes still to come
  size_t head_bytes_ = 0;   // status line and headers so far
  std::string line_;        // a line split across reads
  std::string error_;
  HttpResponse response_;
  http_reply::ReplyHeaders headers_;
};

}  // namespace noveltygrid::http1

#endif  // NOVELTYGRID_WORKER_HTTP_HTTP1_RESPONSE_PARSER_H_
