// Helpers shared by the Http1ResponseParser tests (http1_response_parser_test.cc and the table of
// scripted replies in http1_response_cases_test.cc): feed a parser an input whole or in pieces and
// collect what it found.
#ifndef NOVELTYGRID_TESTS_WORKER_HTTP_HTTP1_PARSER_TEST_UTIL_H_
#define NOVELTYGRID_TESTS_WORKER_HTTP_HTTP1_PARSER_TEST_UTIL_H_

#include <algorithm>
#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"
#include "worker/http/http1_response_parser.h"

namespace noveltygrid::http1::parser_testing {

using Result = Http1ResponseParser::Result;

// What a Feed that ended with kNeedMore or kDone wrote to *consumed must never still be this.
inline constexpr size_t kUnset = static_cast<size_t>(-1);

inline const char* Name(Result r) {
  switch (r) {
    case Result::kNeedMore:
      return "kNeedMore";
    case Result::kDone:
      return "kDone";
    case Result::kTooLarge:
      return "kTooLarge";
    case Result::kInvalid:
      return "kInvalid";
  }
  return "?";
}

// What parsing one input found.
struct Outcome {
  Result result = Result::kNeedMore;
  size_t consumed = 0;  // bytes of the input consumed (in all)
  bool consumed_unset = false;
  int status = 0;
  std::string body;
  std::string content_type;
  bool keep_alive = false;
  std::string error;
};

// Finishes `outcome` from the parser's state after its last call.
inline void Collect(Http1ResponseParser& parser, Outcome& outcome) {
  outcome.keep_alive = parser.keep_alive();
  outcome.error = parser.error();
  if (outcome.result == Result::kDone) {
    HttpResponse response = parser.TakeResponse();
    outcome.status = response.status;
    outcome.body = response.body;
    outcome.content_type = response.content_type;
  }
}

// Feeds `input` in pieces of `piece` bytes (0: whole) until the parser stops asking for more; then,
// when `eof` and it still asks, FeedEof.
inline Outcome Parse(absl::string_view input, size_t max_body, size_t piece, bool eof = false) {
  Http1ResponseParser parser(max_body);
  parser.Reset();
  Outcome outcome;
  size_t offset = 0;
  while (offset < input.size()) {
    const size_t n = piece == 0 ? input.size() - offset : std::min(piece, input.size() - offset);
    size_t consumed = kUnset;
    outcome.result = parser.Feed(input.substr(offset, n), &consumed);
    if (outcome.result == Result::kNeedMore || outcome.result == Result::kDone) {
      if (consumed == kUnset) {
        outcome.consumed_unset = true;
        consumed = 0;
      }
      outcome.consumed += consumed;
    }
    offset += n;
    if (outcome.result != Result::kNeedMore) break;
  }
  if (eof && outcome.result == Result::kNeedMore) outcome.result = parser.FeedEof();
  Collect(parser, outcome);
  return outcome;
}

}  // namespace noveltygrid::http1::parser_testing

#endif  // NOVELTYGRID_TESTS_WORKER_HTTP_HTTP1_PARSER_TEST_UTIL_H_
