// Http1ResponseParser on scripted bytes: bodies fed whole and byte by byte, interim replies, what
// Feed consumes, HEAD replies, the retry and rate-limit headers, the limits, the errors and Reset.
// The table of scripted replies (every framing, fed in pieces) is http1_response_cases_test.cc.
#include "worker/http/http1_response_parser.h"

#include <cstddef>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/worker/http/http1_parser_test_util.h"

namespace noveltygrid::http1 {
namespace {

using Result = Http1ResponseParser::Result;
using parser_testing::kUnset;
using parser_testing::Name;
using parser_testing::Outcome;
using parser_testing::Parse;
using ::testing::HasSubstr;
using ::testing::Pair;

TEST(Http1ResponseParserTest, ContentLengthBodyWholeAndByteByByteAreTheSame) {
  const std::string body(3000, 'b');
  const std::string reply = absl::StrCat(
      "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ", body.size(), "\r\n\r\n", body);
  const Outcome whole = Parse(reply, 0, 0);
  const Outcome bytes = Parse(reply, 0, 1);
  for (const Outcome* o : {&whole, &bytes}) {
    ASSERT_EQ(o->result, Result::kDone) << o->error;
    EXPECT_EQ(o->status, 200);
    EXPECT_EQ(o->body, body);
    EXPECT_EQ(o->content_type, "application/json");
    EXPECT_TRUE(o->keep_alive);
    EXPECT_EQ(o->consumed, reply.size());
    EXPECT_FALSE(o->consumed_unset);
  }
}

TEST(Http1ResponseParserTest, ChunkedWithExtensionsAndTrailersByteByByte) {
  const std::string reply =
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: text/event-stream\r\n\r\n"
      "4;a=b;c=\"d\"\r\nwiki\r\n5\r\npedia\r\nE\r\n in\r\n\r\nchunks.\r\n0\r\nExpires: never\r\n\r\n";
  for (const size_t piece : {size_t{0}, size_t{1}, size_t{3}}) {
    SCOPED_TRACE(piece);
    const Outcome o = Parse(reply, 0, piece);
    ASSERT_EQ(o.result, Result::kDone) << o.error;
    EXPECT_EQ(o.body, "wikipedia in\r\n\r\nchunks.");
    EXPECT_EQ(o.content_type, "text/event-stream");
    EXPECT_EQ(o.consumed, reply.size());
    EXPECT_FALSE(o.consumed_unset);
    EXPECT_TRUE(o.keep_alive);
  }
}

// Headers of the interim reply do not leak into the final one.
TEST(Http1ResponseParserTest, InterimReplyIsSkippedWithItsHeaders) {
  const std::string reply =
      "HTTP/1.1 100 Continue\r\nContent-Type: interim/type\r\nx-ratelimit-interim: 1\r\n\r\n"
      "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi";
  Http1ResponseParser parser(0);
  parser.Reset();
  size_t consumed = kUnset;
  ASSERT_EQ(parser.Feed(reply, &consumed), Result::kDone) << parser.error();
  EXPECT_EQ(consumed, reply.size());
  HttpResponse response = parser.TakeResponse();
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(response.body, "hi");
  EXPECT_EQ(response.content_type, "");
  EXPECT_TRUE(response.rate_limit_headers.empty());
}

TEST(Http1ResponseParserTest, BodyToTheConnectionsEndIsCompletedByFeedEof) {
  Http1ResponseParser parser(0);
  parser.Reset();
  size_t consumed = kUnset;
  const std::string head = "HTTP/1.1 200 OK\r\nConnection: keep-alive\r\n\r\npart one, ";
  EXPECT_EQ(parser.Feed(head, &consumed), Result::kNeedMore);
  EXPECT_EQ(consumed, head.size());
  EXPECT_EQ(parser.Feed("part two", &consumed), Result::kNeedMore);
  EXPECT_EQ(consumed, 8u);
  EXPECT_EQ(parser.FeedEof(), Result::kDone);
  EXPECT_FALSE(parser.keep_alive());  // the connection ended: nothing more can go over it
  EXPECT_EQ(parser.TakeResponse().body, "part one, part two");
}

// The reply ends inside the input: what follows (the next reply, or garbage) is left to the caller.
TEST(Http1ResponseParserTest, BytesAfterTheEndOfAReplyAreNotConsumed) {
  const std::string next = "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nnext";
  struct Reply {
    std::string name;
    std::string bytes;
    std::string body;
  };
  const std::vector<Reply> replies = {
      {"content-length", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfirst", "first"},
      {"chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nfirst\r\n0\r\n\r\n", "first"},
      {"chunked-with-trailer", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nfirst\r\n0\r\nT: 1\r\n\r\n",
       "first"},
      {"content-length-zero", "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", ""},
      {"204", "HTTP/1.1 204 No Content\r\n\r\n", ""},
  };
  for (const Reply& r : replies) {
    SCOPED_TRACE(r.name);
    Http1ResponseParser parser(0);
    parser.Reset();
    const std::string input = r.bytes + next;
    size_t consumed = kUnset;
    ASSERT_EQ(parser.Feed(input, &consumed), Result::kDone) << parser.error();
    EXPECT_EQ(consumed, r.bytes.size()) << "(" << kUnset << ": *consumed was never written)";
    EXPECT_LT(consumed, input.size());
    EXPECT_EQ(parser.TakeResponse().body, r.body);
    // A further Feed before Reset consumes nothing.
    size_t again = kUnset;
    EXPECT_EQ(parser.Feed("more", &again), Result::kDone);
    EXPECT_EQ(again, 0u);
  }
}

// A reply with no body ends with its head; Feed says it consumed the whole head, so the transport
// can tell the connection carried nothing else and keep it.
TEST(Http1ResponseParserTest, AReplyWithoutABodyIsConsumedWhole) {
  for (const std::string reply : {"HTTP/1.1 204 No Content\r\n\r\n", "HTTP/1.1 304 Not Modified\r\n\r\n",
                                  "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"}) {
    SCOPED_TRACE(reply);
    Http1ResponseParser parser(0);
    parser.Reset();
    size_t consumed = kUnset;
    ASSERT_EQ(parser.Feed(reply, &consumed), Result::kDone) << parser.error();
    EXPECT_EQ(consumed, reply.size()) << "(" << kUnset << ": *consumed was never written)";
    EXPECT_TRUE(parser.keep_alive());
  }
}

TEST(Http1ResponseParserTest, HeadRequestReplyHasNoBodyWhateverItAnnounces) {
  Http1ResponseParser parser(0);
  parser.Reset(/*head_request=*/true);
  size_t consumed = kUnset;
  ASSERT_EQ(parser.Feed("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n", &consumed), Result::kDone);
  HttpResponse response = parser.TakeResponse();
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(response.body, "");
  EXPECT_TRUE(parser.keep_alive());
}

TEST(Http1ResponseParserTest, RetryAndRateLimitHeadersAreMapped) {
  const std::string reply =
      "HTTP/1.1 429 Too Many Requests\r\n"
      "Retry-After: 7\r\n"
      "retry-after-ms: 1500\r\n"
      "X-RateLimit-Remaining-Requests: 0\r\n"
      "x-ratelimit-reset-tokens: 6m0s\r\n"
      "anthropic-ratelimit-requests-limit: 50\r\n"
      "X-Unrelated: 1\r\n"
      "Content-Length: 0\r\n\r\n";
  for (const size_t piece : {size_t{0}, size_t{1}}) {
    SCOPED_TRACE(piece);
    Http1ResponseParser parser(0);
    parser.Reset();
    size_t offset = 0;
    Result result = Result::kNeedMore;
    while (offset < reply.size() && result == Result::kNeedMore) {
      const size_t n = piece == 0 ? reply.size() : 1;
      size_t consumed = 0;
      result = parser.Feed(absl::string_view(reply).substr(offset, n), &consumed);
      offset += n;
    }
    ASSERT_EQ(result, Result::kDone) << parser.error();
    HttpResponse response = parser.TakeResponse();
    EXPECT_EQ(response.status, 429);
    EXPECT_EQ(response.retry_after, absl::Milliseconds(1500));  // retry-after-ms wins over Retry-After
    EXPECT_THAT(response.rate_limit_headers, ::testing::ElementsAre(Pair("x-ratelimit-remaining-requests", "0"),
                                                                    Pair("x-ratelimit-reset-tokens", "6m0s"),
                                                                    Pair("anthropic-ratelimit-requests-limit", "50")));
  }
}

TEST(Http1ResponseParserTest, RetryAfterSecondsAloneIsUsed) {
  Http1ResponseParser parser(0);
  parser.Reset();
  size_t consumed = kUnset;
  ASSERT_EQ(parser.Feed("HTTP/1.1 503 Unavailable\r\nretry-after: 3\r\nContent-Length: 1\r\n\r\nx", &consumed),
            Result::kDone);
  EXPECT_EQ(parser.TakeResponse().retry_after, absl::Seconds(3));
}

TEST(Http1ResponseParserTest, ContentLengthOverTheLimitIsRefusedBeforeTheBody) {
  Http1ResponseParser parser(100);
  parser.Reset();
  size_t consumed = kUnset;
  // The head alone, not one body byte: the parser already knows.
  EXPECT_EQ(parser.Feed("HTTP/1.1 200 OK\r\nContent-Length: 101\r\n\r\n", &consumed), Result::kTooLarge);
}

TEST(Http1ResponseParserTest, ChunkedBodyGrowingPastTheLimitIsTooLarge) {
  Http1ResponseParser parser(100);
  parser.Reset();
  size_t consumed = kUnset;
  ASSERT_EQ(parser.Feed("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", &consumed), Result::kNeedMore);
  const std::string chunk = absl::StrCat("28\r\n", std::string(40, 'c'), "\r\n");  // 40 bytes
  EXPECT_EQ(parser.Feed(chunk, &consumed), Result::kNeedMore);
  EXPECT_EQ(parser.Feed(chunk, &consumed), Result::kNeedMore);  // 80
  EXPECT_EQ(parser.Feed(chunk, &consumed), Result::kTooLarge);  // 120 > 100
}

TEST(Http1ResponseParserTest, InvalidRepliesSayWhy) {
  struct Bad {
    std::string input;
    std::string error;  // part of error()
  };
  const std::vector<Bad> bad = {
      {"HTTP/1.1 OK\r\n\r\n", "status"},
      {"GARBAGE GARBAGE\r\n\r\n", "not an HTTP/1.x status line"},
      {"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nxyz\r\n", "bad chunk size"},
      {"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n", "Content-Length"},
      {"HTTP/1.1 200 OK\r\nContent-Length: five\r\n\r\n", "Content-Length"},
      {absl::StrCat("HTTP/1.1 200 OK\r\nX-Big: ", std::string(65 << 10, 'h'), "\r\n\r\n"), "64 KiB"},
  };
  for (const Bad& b : bad) {
    SCOPED_TRACE(b.input.substr(0, 60));
    Http1ResponseParser parser(0);
    parser.Reset();
    size_t consumed = kUnset;
    EXPECT_EQ(parser.Feed(b.input, &consumed), Result::kInvalid);
    EXPECT_THAT(parser.error(), HasSubstr(b.error));
  }
}

// Many header lines, none long, past 64 KiB together.
TEST(Http1ResponseParserTest, ManyHeadersOverSixtyFourKibAreInvalid) {
  std::string reply = "HTTP/1.1 200 OK\r\n";
  while (reply.size() <= (64 << 10)) reply += "X-Filler: 0123456789012345678901234567890123456789\r\n";
  reply += "Content-Length: 0\r\n\r\n";
  for (const size_t piece : {size_t{0}, size_t{1}, size_t{4096}}) {
    SCOPED_TRACE(piece);
    const Outcome o = Parse(reply, 0, piece);
    EXPECT_EQ(o.result, Result::kInvalid) << Name(o.result);
    EXPECT_THAT(o.error, HasSubstr("64 KiB"));
  }
}

// Just under the head limit -- with one long header line -- is accepted however the bytes arrive.
TEST(Http1ResponseParserTest, HeadersJustUnderSixtyFourKibAreAcceptedInAnyPieces) {
  const std::string prefix = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Long: ";
  const std::string suffix = "\r\n\r\n";
  const size_t filler = (64 << 10) - prefix.size() - suffix.size() - 16;
  const std::string reply = absl::StrCat(prefix, std::string(filler, 'v'), suffix, "ok");
  for (const size_t piece : {size_t{0}, size_t{1}, size_t{1000}, size_t{16 << 10}}) {
    SCOPED_TRACE(absl::StrCat("piece ", piece));
    const Outcome o = Parse(reply, 0, piece);
    EXPECT_EQ(o.result, Result::kDone) << Name(o.result) << " error: " << o.error;
    if (o.result == Result::kDone) {
      EXPECT_EQ(o.body, "ok");
    }
  }
}

TEST(Http1ResponseParserTest, EofBeforeAnyByteAndMidBody) {
  {
    Http1ResponseParser parser(0);
    parser.Reset();
    EXPECT_FALSE(parser.started());
    EXPECT_EQ(parser.FeedEof(), Result::kInvalid);
    EXPECT_FALSE(parser.started());  // a retry on a fresh connection is safe
    EXPECT_THAT(parser.error(), HasSubstr("without replying"));
  }
  {
    Http1ResponseParser parser(0);
    parser.Reset();
    size_t consumed = kUnset;
    EXPECT_EQ(parser.Feed("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", &consumed), Result::kNeedMore);
    EXPECT_TRUE(parser.started());
    EXPECT_EQ(parser.FeedEof(), Result::kInvalid);
    EXPECT_TRUE(parser.started());
    EXPECT_THAT(parser.error(), HasSubstr("before the reply was complete"));
  }
  {
    // One byte is enough to have started.
    Http1ResponseParser parser(0);
    parser.Reset();
    size_t consumed = kUnset;
    EXPECT_EQ(parser.Feed("H", &consumed), Result::kNeedMore);
    EXPECT_TRUE(parser.started());
  }
  {
    // An empty Feed is no byte.
    Http1ResponseParser parser(0);
    parser.Reset();
    size_t consumed = kUnset;
    EXPECT_EQ(parser.Feed("", &consumed), Result::kNeedMore);
    EXPECT_EQ(consumed, 0u);
    EXPECT_FALSE(parser.started());
  }
}

TEST(Http1ResponseParserTest, ResetMakesItReusable) {
  Http1ResponseParser parser(1000);
  parser.Reset();
  size_t consumed = kUnset;
  // A first reply that ends the parser in an odd state: HTTP/1.0, Connection: close, a rate-limit header.
  ASSERT_EQ(parser.Feed("HTTP/1.0 500 Oops\r\nConnection: close\r\nx-ratelimit-a: 1\r\nContent-Type: a/b\r\n"
                        "Retry-After: 9\r\nContent-Length: 3\r\n\r\nbad",
                        &consumed),
            Result::kDone);
  EXPECT_FALSE(parser.keep_alive());
  HttpResponse first = parser.TakeResponse();
  EXPECT_EQ(first.status, 500);
  EXPECT_EQ(first.body, "bad");

  parser.Reset();
  EXPECT_FALSE(parser.started());
  ASSERT_EQ(parser.Feed("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n", &consumed),
            Result::kDone)
      << parser.error();
  EXPECT_TRUE(parser.keep_alive());
  HttpResponse second = parser.TakeResponse();
  EXPECT_EQ(second.status, 200);
  EXPECT_EQ(second.body, "ok");
  EXPECT_EQ(second.content_type, "");
  EXPECT_EQ(second.retry_after, std::nullopt);
  EXPECT_TRUE(second.rate_limit_headers.empty());

  // And after an error too.
  parser.Reset();
  EXPECT_EQ(parser.Feed("nonsense\r\n", &consumed), Result::kInvalid);
  EXPECT_FALSE(parser.error().empty());
  parser.Reset();
  EXPECT_TRUE(parser.error().empty());
  ASSERT_EQ(parser.Feed("HTTP/1.1 201 Created\r\nContent-Length: 1\r\n\r\nx", &consumed), Result::kDone);
  EXPECT_EQ(parser.TakeResponse().status, 201);
}

}  // namespace
}  // namespace noveltygrid::http1
