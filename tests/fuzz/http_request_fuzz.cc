// serve-sim's incremental HTTP/1.x request parser (sim_server/http_request_parser.h) on any bytes a
// client may send, pipelined requests included. The input is parsed twice: whole, and fed as the event
// loop feeds it -- growing prefixes of what is unconsumed, cut at points chosen by the first byte --
// and both must find the same requests, the same error, or both wait for more.
//
// First byte: bits 0-1 the limits (default, or small enough that short inputs hit 431 and 413), bits
// 2-7 seed the cut points. The rest is what arrives on the connection.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "sim_server/http_request_parser.h"
#include "tests/fuzz/fuzz_util.h"

namespace noveltygrid {
namespace {

using sim_http::HttpParseLimits;
using sim_http::HttpRequest;
using sim_http::HttpRequestParser;

// What parsing a connection's bytes found, as text: each request, then how it stopped.
std::string Describe(const HttpRequest& r, size_t consumed) {
  std::string out = absl::StrCat(r.method, "|", r.target, "|", r.path, "|", r.minor_version, "|", r.keep_alive, "|",
                                 r.expect_continue, "|", consumed, "|", r.body.size(), "\n");
  for (const auto& [name, value] : r.headers) absl::StrAppend(&out, "  ", name, ": ", value, "\n");
  return out;
}

void CheckRequest(const HttpRequestParser& parser, const HttpRequest& r, absl::string_view input) {
  FUZZ_CHECK(parser.consumed() > 0 && parser.consumed() <= input.size());
  FUZZ_CHECK(!r.method.empty() && !r.target.empty());
  FUZZ_CHECK(r.minor_version == 0 || r.minor_version == 1);
  FUZZ_CHECK(r.target.compare(0, r.path.size(), r.path) == 0);
  FUZZ_CHECK(input.substr(parser.consumed() - r.body.size(), r.body.size()) == r.body);
}

// Parses `input` whole, request after request.
std::string ParseWhole(absl::string_view input, const HttpParseLimits& limits) {
  std::string log;
  HttpRequestParser parser(limits);
  while (true) {
    const HttpRequestParser::State state = parser.Parse(input);
    if (state == HttpRequestParser::State::kIncomplete) return log + "incomplete\n";
    if (state == HttpRequestParser::State::kError) {
      FUZZ_CHECK(parser.error_status() >= 400 && parser.error_status() < 600);
      return absl::StrCat(log, "error ", parser.error_status(), " ", parser.error_message(), "\n");
    }
    CheckRequest(parser, parser.request(), input);
    log += Describe(parser.request(), parser.consumed());
    input.remove_prefix(parser.consumed());
    parser.Reset();
  }
}

// The same, the bytes arriving a few at a time: after each arrival the parser sees everything not
// consumed yet, as serve-sim's connection buffer holds it.
std::string ParseArriving(absl::string_view input, const HttpParseLimits& limits, uint32_t seed) {
  std::string log;
  HttpRequestParser parser(limits);
  size_t arrived = 0;  // of `input`
  while (true) {
    seed = seed * 1103515245u + 12345u;
    const size_t step = 1 + (seed >> 16) % 23;
    arrived = std::min(input.size(), arrived + step);
    HttpRequestParser::State state = parser.Parse(input.substr(0, arrived));
    while (state == HttpRequestParser::State::kComplete) {
      CheckRequest(parser, parser.request(), input.substr(0, arrived));
      log += Describe(parser.request(), parser.consumed());
      input.remove_prefix(parser.consumed());
      arrived -= parser.consumed();
      parser.Reset();
      state = parser.Parse(input.substr(0, arrived));
    }
    if (state == HttpRequestParser::State::kError) {
      return absl::StrCat(log, "error ", parser.error_status(), " ", parser.error_message(), "\n");
    }
    if (arrived == input.size()) return log + "incomplete\n";
  }
}

}  // namespace
}  // namespace noveltygrid

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace noveltygrid;
  const fuzz::Moded in = fuzz::TakeMode(data, size);
  sim_http::HttpParseLimits limits;
  if (in.mode & 1) limits.max_header_bytes = 96;
  if (in.mode & 2) limits.max_body_bytes = 16;
  const std::string input(in.rest);  // a copy: reads past the end are caught
  const std::string whole = ParseWhole(input, limits);
  const std::string arriving = ParseArriving(input, limits, in.mode >> 2);
  FUZZ_CHECK(whole == arriving, "\nwhole:\n" + whole + "arriving:\n" + arriving);
  return 0;
}
