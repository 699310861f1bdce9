// Http1ResponseParser on a table of scripted replies -- every framing, the keep-alive decision, the
// limits and the errors -- each fed whole, byte by byte and in 7-byte pieces.
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/worker/http/http1_parser_test_util.h"
#include "worker/http/http1_response_parser.h"

namespace noveltygrid::http1 {
namespace {

using Result = Http1ResponseParser::Result;
using parser_testing::Name;
using parser_testing::Outcome;
using parser_testing::Parse;

// One scripted reply and what parsing it must give; by default a 200 with an empty body on a
// connection that stays open.
struct Case {
  Case(std::string name_, std::string input_) : name(std::move(name_)), input(std::move(input_)) {}
  Case& MaxBody(size_t n) {
    max_body = n;
    return *this;
  }
  Case& Eof() {
    eof = true;
    return *this;
  }
  Case& Fails(Result r) {
    result = r;
    return *this;
  }
  Case& Status(int s) {
    status = s;
    return *this;
  }
  Case& Body(std::string b) {
    body = std::move(b);
    return *this;
  }
  Case& KeepAlive(bool k) {
    keep_alive = k;
    return *this;
  }

  std::string name;
  std::string input;
  size_t max_body = 1 << 20;
  bool eof = false;  // the connection ends after the input
  Result result = Result::kDone;
  int status = 200;
  std::string body;
  bool keep_alive = true;
};

std::vector<Case> Cases() {
  return {
      Case("content-length",
           "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{\"ok\":true}")
          .Body("{\"ok\":true}"),
      Case("content-length-bare-lf", "HTTP/1.1 201 Created\nContent-Length: 3\n\nabc").Status(201).Body("abc"),
      Case("chunked-with-extensions-and-trailers",
           "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
           "5;name=value\r\nhello\r\n1 ; ext\r\n \r\n6\r\nworld!\r\n0;last\r\nX-Trailer: 1\r\nX-Other: 2\r\n\r\n")
          .Body("hello world!"),
      Case("chunked-uppercase-hex",
           "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, Chunked\r\n\r\nA\r\n0123456789\r\n0\r\n\r\n")
          .Body("0123456789"),
      Case("chunked-wins-over-content-length",
           "HTTP/1.1 200 OK\r\nContent-Length: 100\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n")
          .Body("ok"),
      Case("100-continue-then-200", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi")
          .Body("hi"),
      Case("103-early-hints-then-404",
           "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 404 Not Found\r\nContent-Length: 1\r\n\r\nx")
          .Status(404)
          .Body("x"),
      Case("204-no-body", "HTTP/1.1 204 No Content\r\n\r\n").Status(204),
      Case("304-ignores-content-length", "HTTP/1.1 304 Not Modified\r\nContent-Length: 9\r\n\r\n").Status(304),
      Case("content-length-zero", "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"),
      Case("status-without-reason", "HTTP/1.1 429\r\nContent-Length: 0\r\n\r\n").Status(429),
      Case("body-to-close", "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil the end")
          .Eof()
          .Body("until the end")
          .KeepAlive(false),
      Case("http10-default-close", "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok").Body("ok").KeepAlive(false),
      Case("http10-keep-alive", "HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 2\r\n\r\nok").Body("ok"),
      Case("http10-keep-alive-and-close",
           "HTTP/1.0 200 OK\r\nConnection: keep-alive, close\r\nContent-Length: 2\r\n\r\nok")
          .Body("ok")
          .KeepAlive(false),
      Case("http11-connection-close", "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok")
          .Body("ok")
          .KeepAlive(false),
      Case("http11-connection-list-with-close",
           "HTTP/1.1 200 OK\r\nconnection: upgrade , CLOSE\r\nContent-Length: 2\r\n\r\nok")
          .Body("ok")
          .KeepAlive(false),
      Case("same-content-length-twice", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nok")
          .Body("ok"),
      Case("body-exactly-max", "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nabcd").MaxBody(4).Body("abcd"),
      Case("chunked-exactly-max",
           "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n2\r\ncd\r\n0\r\n\r\n")
          .MaxBody(4)
          .Body("abcd"),
      Case("content-length-over-max", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nabcde")
          .MaxBody(4)
          .Fails(Result::kTooLarge),
      Case("chunked-over-max", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n3\r\ncde\r\n0\r\n\r\n")
          .MaxBody(4)
          .Fails(Result::kTooLarge),
      Case("to-close-over-max", "HTTP/1.1 200 OK\r\n\r\nabcde").MaxBody(4).Eof().Fails(Result::kTooLarge),
      Case("not-http", "SSH-2.0-OpenSSH_9.2\r\n\r\n").Fails(Result::kInvalid),
      Case("http2-status-line", "HTTP/2 200\r\n\r\n").Fails(Result::kInvalid),
      Case("status-not-a-number", "HTTP/1.1 2x0 OK\r\n\r\n").Fails(Result::kInvalid),
      Case("status-too-small", "HTTP/1.1 099 Hm\r\n\r\n").Fails(Result::kInvalid),
      Case("status-glued-to-reason", "HTTP/1.1 200OK\r\n\r\n").Fails(Result::kInvalid),
      Case("101-switching", "HTTP/1.1 101 Switching Protocols\r\n\r\n").Fails(Result::kInvalid),
      Case("header-without-colon", "HTTP/1.1 200 OK\r\nthis is no header\r\n\r\n").Fails(Result::kInvalid),
      Case("header-with-empty-name", "HTTP/1.1 200 OK\r\n: x\r\n\r\n").Fails(Result::kInvalid),
      Case("conflicting-content-length", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nok")
          .Fails(Result::kInvalid),
      Case("negative-content-length", "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n").Fails(Result::kInvalid),
      Case("content-length-list", "HTTP/1.1 200 OK\r\nContent-Length: 2, 2\r\n\r\nok").Fails(Result::kInvalid),
      Case("bad-chunk-size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n")
          .Fails(Result::kInvalid),
      Case("empty-chunk-size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\r\n").Fails(Result::kInvalid),
      Case("huge-chunk-size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10000000000000000\r\n")
          .Fails(Result::kInvalid),
      Case("chunk-data-not-followed-by-crlf",
           "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabXX\r\n0\r\n\r\n")
          .Fails(Result::kInvalid),
      Case("chunk-size-line-over-1k", absl::StrCat("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1;",
                                                   std::string(2000, 'e'), "\r\nx\r\n0\r\n\r\n"))
          .Fails(Result::kInvalid),
      Case("eof-mid-content-length", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc").Eof().Fails(Result::kInvalid),
      Case("eof-mid-chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab")
          .Eof()
          .Fails(Result::kInvalid),
      Case("eof-in-headers", "HTTP/1.1 200 OK\r\nContent-Le").Eof().Fails(Result::kInvalid),
      Case("eof-after-100-continue", "HTTP/1.1 100 Continue\r\n\r\n").Eof().Fails(Result::kInvalid),
  };
}

class Http1ResponseParserCaseTest : public ::testing::TestWithParam<Case> {};

// Each case gives the same answer whole, byte by byte and in 7-byte pieces.
TEST_P(Http1ResponseParserCaseTest, WholeAndPiecewiseAgree) {
  const Case& c = GetParam();
  for (const size_t piece : {size_t{0}, size_t{1}, size_t{7}}) {
    SCOPED_TRACE(absl::StrCat("piece ", piece));
    const Outcome o = Parse(c.input, c.max_body, piece, c.eof);
    ASSERT_EQ(o.result, c.result) << Name(o.result) << " error: " << o.error;
    if (c.result == Result::kDone) {
      EXPECT_EQ(o.status, c.status);
      EXPECT_EQ(o.body, c.body);
      EXPECT_EQ(o.keep_alive, c.keep_alive);
      EXPECT_TRUE(o.error.empty()) << o.error;
    } else if (c.result == Result::kInvalid) {
      EXPECT_FALSE(o.error.empty()) << "kInvalid without an error() message";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Replies, Http1ResponseParserCaseTest, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           std::string name = info.param.name;
                           for (char& ch : name) {
                             if (ch == '-') ch = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace noveltygrid::http1
