#include "worker/http/http1_response_parser.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace noveltygrid::http1 {
namespace {

constexpr size_t kMaxHeadBytes = 64 << 10;   // status line and headers of one reply
constexpr size_t kMaxChunkLineBytes = 1024;  // a chunk-size line with its extensions

// Whether the comma-separated header value lists `token` (case-insensitive).
bool ListsToken(absl::string_view value, absl::string_view token) {
  for (absl::string_view item : absl::StrSplit(value, ',')) {
    if (absl::EqualsIgnoreCase(absl::StripAsciiWhitespace(item), token)) return true;
  }
  return false;
}

}  // namespace

using Result = Http1ResponseParser::Result;

void Http1ResponseParser::Reset(bool head_request) {
  state_ = State::kStatusLine;
  head_request_ = head_request;
  started_ = false;
  keep_alive_ = true;
  http10_ = false;
  chunked_ = false;
  has_length_ = false;
  connection_close_ = false;
  connection_keep_alive_ = false;
  remaining_ = 0;
  head_bytes_ = 0;
  line_.clear();
  error_.clear();
  response_ = HttpResponse();
  headers_.Reset(response_);
}

Result Http1ResponseParser::Feed(absl::string_view data, size_t* consumed) {
  const size_t total = data.size();
  if (!data.empty()) started_ = true;
  while (!data.empty()) {
    switch (state_) {
      case State::kDone:
        *consumed = total - data.size();
        return Result::kDone;
      case State::kBody:
      case State::kChunkData: {
        const size_t n = static_cast<size_t>(std::min<uint64_t>(remaining_, data.size()));
        if (!AppendBody(data.substr(0, n))) return Result::kTooLarge;
        data.remove_prefix(n);
        remaining_ -= n;
        if (remaining_ == 0) state_ = state_ == State::kBody ? State::kDone : State::kChunkEnd;
        break;
      }
      case State::kUntilClose:
        if (!AppendBody(data)) return Result::kTooLarge;
        data = {};
        break;
      default: {  // a line-oriented state
        const size_t newline = data.find('\n');
        const size_t take = newline == absl::string_view::npos ? data.size() : newline + 1;
        const bool in_head = state_ == State::kStatusLine || state_ == State::kHeader || state_ == State::kTrailer;
        // head_bytes_ already counts a partial line kept in line_.
        if (in_head ? head_bytes_ + take > kMaxHeadBytes : line_.size() + take > kMaxChunkLineBytes) {
          return Invalid(in_head ? "the reply's headers exceed 64 KiB" : "a chunk-size line exceeds 1 KiB");
        }
        if (in_head) head_bytes_ += take;
        if (newline == absl::string_view::npos) {
          line_.append(data.data(), data.size());
          data = {};
          break;
        }
        absl::string_view line = data.substr(0, newline);
        if (!line_.empty()) {
          line_.append(line.data(), line.size());
          line = line_;
        }
        data.remove_prefix(take);
        if (absl::EndsWith(line, "\r")) line.remove_suffix(1);
        const Result r = Line(line);
        line_.clear();
        if (r == Result::kDone) *consumed = total - data.size();  // a reply without a body ends here
        if (r != Result::kNeedMore) return r;
        break;
      }
    }
  }
  *consumed = total;
  return state_ == State::kDone ? Result::kDone : Result::kNeedMore;
}

Result Http1ResponseParser::FeedEof() {
  if (state_ == State::kDone) return Result::kDone;
  if (state_ == State::kUntilClose) {
    state_ = State::kDone;
    keep_alive_ = false;
    return Result::kDone;
  }
  if (!started_) return Invalid("the server closed the connection without replying");
  return Invalid("the server closed the connection before the reply was complete");
}

HttpResponse Http1ResponseParser::TakeResponse() {
  headers_.SetRetryHint(response_);
  return std::move(response_);
}

Result Http1ResponseParser::Line(absl::string_view line) {
  switch (state_) {
    case State::kStatusLine:
      return StatusLine(line);
    case State::kHeader:
      return line.empty() ? EndOfHead() : HeaderLine(line);
    case State::kChunkSize:
      return ChunkSizeLine(line);
    case State::kChunkEnd:
      if (!line.empty()) return Invalid("a chunk's data is not followed by CR LF");
      state_ = State::kChunkSize;
      return Result::kNeedMore;
    case State::kTrailer:
      if (line.empty()) state_ = State::kDone;  // trailer fields themselves are ignored
      return Result::kNeedMore;
    default:
      return Invalid("internal: a line in a body state");
  }
}

Result Http1ResponseParser::StatusLine(absl::string_view line) {
  // HTTP/1.x SP 3DIGIT [SP reason]
  if (line.size() < 12 || !absl::StartsWith(line, "HTTP/1.") || line[8] != ' ') {
    return Invalid(absl::StrCat("not an HTTP/1.x status line: \"", absl::CEscape(line.substr(0, 40)), "\""));
  }
  int status = 0;
  if (!absl::SimpleAtoi(line.substr(9, 3), &status) || status < 100 || status > 999 ||
      (line.size() > 12 && line[12] != ' ')) {
    return Invalid(absl::StrCat("bad status code in \"", absl::CEscape(line.substr(0, 40)), "\""));
  }
  if (status == 101) return Invalid("the server switched protocols (101), which this client never asks for");
  http10_ = line[7] == '0';
  response_.status = status;
  headers_.Reset(response_);
  chunked_ = has_length_ = connection_close_ = connection_keep_alive_ = false;
  state_ = State::kHeader;
  return Result::kNeedMore;
}

Result Http1ResponseParser::HeaderLine(absl::string_view line) {
  const size_t colon = line.find(':');
  if (colon == absl::string_view::npos || colon == 0) {
    return Invalid(absl::StrCat("a header line without a name: \"", absl::CEscape(line.substr(0, 40)), "\""));
  }
  const absl::string_view name = absl::StripAsciiWhitespace(line.substr(0, colon));
  const absl::string_view value = absl::StripAsciiWhitespace(line.substr(colon + 1));
  if (absl::EqualsIgnoreCase(name, "transfer-encoding")) {
    chunked_ = chunked_ || ListsToken(value, "chunked");
  } else if (absl::EqualsIgnoreCase(name, "content-length")) {
    uint64_t length = 0;
    if (!absl::SimpleAtoi(value, &length) || (has_length_ && length != remaining_)) {
      return Invalid(absl::StrCat("bad Content-Length \"", absl::CEscape(value.substr(0, 40)), "\""));
    }
    has_length_ = true;
    remaining_ = length;
  } else if (absl::EqualsIgnoreCase(name, "connection")) {
    connection_close_ = connection_close_ || ListsToken(value, "close");
    connection_keep_alive_ = connection_keep_alive_ || ListsToken(value, "keep-alive");
  }
  if (!headers_.Absorb(name, value, max_body_, response_)) return Result::kTooLarge;
  return Result::kNeedMore;
}

Result Http1ResponseParser::EndOfHead() {
  const int status = response_.status;
  if (status < 200) {  // an interim reply (100 Continue, 103 Early Hints): the real one follows
    state_ = State::kStatusLine;
    return Result::kNeedMore;
  }
  keep_alive_ = http10_ ? connection_keep_alive_ && !connection_close_ : !connection_close_;
  if (head_request_ || status == 204 || status == 304) {
    state_ = State::kDone;
  } else if (chunked_) {
    state_ = State::kChunkSize;
  } else if (has_length_) {
    state_ = remaining_ == 0 ? State::kDone : State::kBody;
  } else {
    state_ = State::kUntilClose;
    keep_alive_ = false;
  }
  return state_ == State::kDone ? Result::kDone : Result::kNeedMore;
}

Result Http1ResponseParser::ChunkSizeLine(absl::string_view line) {
  const absl::string_view size = absl::StripAsciiWhitespace(line.substr(0, line.find(';')));
  uint64_t n = 0;
  if (size.empty() || size.size() > 15 || !absl::SimpleHexAtoi(size, &n)) {
    return Invalid(absl::StrCat("bad chunk size \"", absl::CEscape(line.substr(0, 40)), "\""));
  }
  if (n == 0) {
    state_ = State::kTrailer;
    return Result::kNeedMore;
  }
  remaining_ = n;
  state_ = State::kChunkData;
  return Result::kNeedMore;
}

Result Http1ResponseParser::Invalid(std::string message) {
  error_ = std::move(message);
  return Result::kInvalid;
}

bool Http1ResponseParser::AppendBody(absl::string_view bytes) {
  if (max_body_ > 0 && bytes.size() > max_body_ - std::min(max_body_, response_.body.size())) return false;
  response_.body.append(bytes.data(), bytes.size());
  return true;
}

}  // namespace noveltygrid::http1
