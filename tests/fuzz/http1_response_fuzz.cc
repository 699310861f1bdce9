// The built-in HTTP client's reply parser (worker/http/http1_response_parser.h) on any bytes a server
// may send. The input is parsed twice: fed whole, and fed in two pieces cut at a point the first
// byte chooses, each followed by the connection's end when the parser still wants more -- as the
// transport feeds it what its reads return. Both must give the same answer, a finished reply's body
// is never over the limit, and a reply that ended inside the bytes consumed no more than it was given.
//
// First byte: bits 0-1 the body limit (none, 16, 1000 bytes, or 32 MiB), bit 2 a reply to a HEAD
// request, bits 3-7 the cut point (0..31 of 31 parts of the rest). The rest is what the server sent.
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "tests/fuzz/fuzz_util.h"
#include "worker/http/http1_response_parser.h"

namespace noveltygrid {
namespace {

using http1::Http1ResponseParser;
using Result = Http1ResponseParser::Result;

// What parsing found, as text (to compare the two ways of feeding), after checking what must hold
// of it: a finished reply is a final one (not 1xx), its body within the limit (none for a HEAD), an
// invalid one says why.
std::string Describe(Result result, Http1ResponseParser& parser, size_t max_body, bool head_request) {
  std::string out = absl::StrCat(static_cast<int>(result), "|", parser.started());
  if (result == Result::kDone) {
    FUZZ_CHECK(parser.started());
    const bool keep_alive = parser.keep_alive();
    HttpResponse r = parser.TakeResponse();
    FUZZ_CHECK(max_body == 0 || r.body.size() <= max_body,
               absl::StrCat("a body of ", r.body.size(), " bytes over the limit of ", max_body));
    FUZZ_CHECK(r.status >= 200 && r.status <= 999, absl::StrCat("final status ", r.status));
    if (head_request) FUZZ_CHECK(r.body.empty());
    absl::StrAppend(&out, "|", keep_alive, "|", r.status, "|", r.content_type, "|", r.body, "|",
                    r.rate_limit_headers.size(), "|", r.retry_after.has_value());
  } else if (result == Result::kInvalid) {
    FUZZ_CHECK(!parser.error().empty(), "kInvalid without an error message");
  }
  return out;
}

// Feeds `first` then `second` (empty ones skipped) until the parser stops asking for more, then the
// end of the connection if it still does.
Result Feed(Http1ResponseParser& parser, absl::string_view first, absl::string_view second) {
  Result result = Result::kNeedMore;
  for (const absl::string_view piece : {first, second}) {
    if (piece.empty()) continue;
    constexpr size_t kUnset = static_cast<size_t>(-1);
    size_t consumed = kUnset;
    result = parser.Feed(piece, &consumed);
    if (result == Result::kNeedMore) FUZZ_CHECK(consumed == piece.size());
    // kDone: the reply ended inside the piece, and *consumed says where (also when it had no body).
    if (result == Result::kDone) FUZZ_CHECK(consumed <= piece.size());
    if (result != Result::kNeedMore) break;
  }
  if (result == Result::kNeedMore) result = parser.FeedEof();
  return result;
}

}  // namespace
}  // namespace noveltygrid

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace noveltygrid;
  const fuzz::Moded in = fuzz::TakeMode(data, size);
  static constexpr size_t kLimits[] = {0, 16, 1000, size_t{32} << 20};
  const size_t max_body = kLimits[in.mode & 3];
  const bool head_request = (in.mode & 4) != 0;
  const std::string input(in.rest);  // a copy: reads past the end are caught
  const absl::string_view bytes(input);
  const size_t cut = bytes.size() * (in.mode >> 3) / 31;

  std::string answers[2];
  for (int split = 0; split < 2; ++split) {
    http1::Http1ResponseParser parser(max_body);
    parser.Reset(head_request);
    const Result result = split == 0 ? Feed(parser, bytes, {}) : Feed(parser, bytes.substr(0, cut), bytes.substr(cut));
    answers[split] = Describe(result, parser, max_body, head_request);
  }
  FUZZ_CHECK(answers[0] == answers[1],
             "\nwhole: " + answers[0] + "\nsplit at " + std::to_string(cut) + ": " + answers[1]);
  return 0;
}
