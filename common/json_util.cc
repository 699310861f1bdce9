#include "common/json_util.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace noveltygrid {

std::string FormatTemperature(double t) {
  char buffer[64];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), t);
  std::string text(buffer, ec == std::errc() ? end : buffer);
  if (text.find_first_of(".eE") == std::string::npos) text += ".0";
  return text;
}

std::string DumpJson(const Json& value) { return value.dump(-1, ' ', false, Json::error_handler_t::replace); }

namespace {

// Word-at-a-time scanning (8 bytes per step) where SSE2 is not available.
constexpr uint64_t kOnes = 0x0101010101010101ULL;
constexpr uint64_t kHighBits = 0x8080808080808080ULL;

// Whether all 8 bytes at `p` are printable ASCII other than '"' and '\\' (each test is exact as a
// yes/no answer: "some byte below n" for n <= 128).
bool PlainWord(const unsigned char* p) {
  uint64_t w;
  std::memcpy(&w, p, sizeof w);
  const auto below = [](uint64_t x, uint64_t n) { return (x - kOnes * n) & ~x & kHighBits; };
  return ((w & kHighBits) | below(w, 0x20) | below(w ^ (kOnes * '"'), 1) | below(w ^ (kOnes * '\\'), 1)) == 0;
}

bool PlainByte(unsigned char c) { return c >= 0x20 && c < 0x80 && c != '"' && c != '\\'; }

// The length of the well-formed UTF-8 sequence (RFC 3629: no overlong forms, surrogates or values
// past U+10FFFF) that starts with the byte >= 0x80 at s[i]; 0 when there is none.
size_t Utf8Length(const unsigned char* s, size_t i, size_t n) {
  const unsigned c = s[i];
  const auto cont = [&](size_t k, unsigned lo = 0x80, unsigned hi = 0xBF) {
    return i + k < n && s[i + k] >= lo && s[i + k] <= hi;
  };
  if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c == 0xE0) return cont(1, 0xA0, 0xBF) && cont(2) ? 3 : 0;
  if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) return cont(1) && cont(2) ? 3 : 0;
  if (c == 0xED) return cont(1, 0x80, 0x9F) && cont(2) ? 3 : 0;
  if (c == 0xF0) return cont(1, 0x90, 0xBF) && cont(2) && cont(3) ? 4 : 0;
  if (c >= 0xF1 && c <= 0xF3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (c == 0xF4) return cont(1, 0x80, 0x8F) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}

}  // namespace

size_t SkipPlainJsonText(absl::string_view text, size_t from) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  size_t i = from;
#if defined(__SSE2__)
  const __m128i space = _mm_set1_epi8(0x20);
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  while (i + 16 <= n) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
    // A signed compare: bytes >= 0x80 are negative, so "below 0x20" takes them too.
    const __m128i special =
        _mm_or_si128(_mm_cmplt_epi8(v, space), _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)));
    const int mask = _mm_movemask_epi8(special);
    if (mask != 0) return i + static_cast<size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
    i += 16;
  }
#endif
  while (i + 8 <= n && PlainWord(s + i)) i += 8;
  while (i < n && PlainByte(s[i])) ++i;
  return i;
}

namespace {

// Whether the objects and arrays of `text` nest deeper than `limit`: brackets counted outside strings,
// which is exact for valid JSON (invalid text fails the parse either way).
bool NestsDeeperThan(std::string_view text, int limit) {
  const absl::string_view view(text.data(), text.size());
  int depth = 0;
  for (size_t i = 0; i < view.size(); ++i) {
    switch (view[i]) {
      case '"':  // to the closing quote, past escaped characters
        for (i = SkipPlainJsonText(view, i + 1); i < view.size() && view[i] != '"';
             i = SkipPlainJsonText(view, i + (view[i] == '\\' ? 2 : 1))) {
        }
        break;
      case '[':
      case '{':
        if (++depth > limit) return true;
        break;
      case ']':
      case '}':
        --depth;
        break;
      default:
        break;
    }
  }
  return false;
}

}  // namespace

absl::StatusOr<Json> ParseJson(std::string_view text) {
  if (NestsDeeperThan(text, kMaxJsonDepth)) {
    return absl::OutOfRangeError(
        absl::StrCat("JSON nested deeper than ", kMaxJsonDepth, " levels of objects and arrays is refused"));
  }
  // nlohmann takes a NUL byte for the end of the text ("{}\0garbage" would parse as {}); no JSON text
  // holds one, not even in a string (control characters are escaped there).
  if (const size_t nul = text.find('\0'); nul != std::string_view::npos) {
    return absl::InvalidArgumentError(absl::StrCat("not valid JSON: a NUL byte at offset ", nul));
  }
  try {
    return Json::parse(text);
  } catch (const Json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("not valid JSON: ", e.what()));
  }
}

void AppendJsonNumber(double value, std::string* out) {
  if (!std::isfinite(value)) {
    out->append("null");
    return;
  }
  // nlohmann's own formatter (what its serializer calls for a double), so both paths agree byte for byte.
  char buffer[64];
  const char* end = nlohmann::detail::to_chars(buffer, buffer + sizeof buffer, value);
  out->append(buffer, static_cast<size_t>(end - buffer));
}

void AppendJsonString(absl::string_view text, std::string* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  const size_t start = out->size();
  out->reserve(start + n + 2);
  out->push_back('"');
  size_t run = 0;  // start of the bytes not yet copied
  size_t i = 0;
  while ((i = SkipPlainJsonText(text, i)) < n) {
    const unsigned char c = s[i];
    if (c >= 0x80) {
      const size_t length = Utf8Length(s, i, n);
      if (length == 0) {  // rare: let nlohmann's replacement rules decide, so both paths agree
        out->resize(start);
        out->append(DumpJson(Json(std::string(text))));
        return;
      }
      i += length;  // valid UTF-8 is copied as is
      continue;
    }
    out->append(text.data() + run, i - run);
    run = ++i;
    // Appended with their lengths: append(const char*) would measure each escape with strlen.
    char letter = 0;  // of a two-byte escape
    switch (c) {
      case '"':
      case '\\':
        letter = static_cast<char>(c);
        break;
      case '\b':
        letter = 'b';
        break;
      case '\f':
        letter = 'f';
        break;
      case '\n':
        letter = 'n';
        break;
      case '\r':
        letter = 'r';
        break;
      case '\t':
        letter = 't';
        break;
      default:
        break;
    }
    if (letter != 0) {
      const char escape[] = {'\\', letter};
      out->append(escape, sizeof escape);
    } else {
      const char escape[] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xF]};
      out->append(escape, sizeof escape);
    }
  }
  out->append(text.data() + run, n - run);
  out->push_back('"');
}

std::string DumpJsonPretty(const Json& value) {
  return value.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  // An ifstream opens a folder without complaint and reads nothing; say what is wrong instead.
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return absl::InvalidArgumentError(absl::StrCat("cannot read ", path, ": it is a folder, not a file"));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(absl::StrCat("cannot read ", path, ": ", std::strerror(errno)));
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

absl::StatusOr<Json> ReadJsonFile(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFile(path);
  if (!text.ok()) return text.status();
  absl::StatusOr<Json> json = ParseJson(*text);
  if (!json.ok()) return absl::Status(json.status().code(), absl::StrCat(path, ": ", json.status().message()));
  return json;
}

absl::Status WriteFileAtomically(const std::string& path, const std::string& contents) {
  ASSIGN_OR_RETURN(std::unique_ptr<AtomicFileWriter> file, AtomicFileWriter::Create(path));
  RETURN_IF_ERROR(file->Append(contents));
  return file->Commit();
}

namespace {
constexpr size_t kWriteBuffer = 1 << 20;
}  // namespace

absl::StatusOr<std::unique_ptr<AtomicFileWriter>> AtomicFileWriter::Create(const std::string& path) {
  const std::string tmp = path + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return absl::InternalError(absl::StrCat("cannot create ", tmp, ": ", std::strerror(errno)));
  return std::unique_ptr<AtomicFileWriter>(new AtomicFileWriter(path, fd));
}

AtomicFileWriter::~AtomicFileWriter() {
  if (fd_ < 0) return;
  ::close(fd_);
  ::unlink(tmp_.c_str());
}

absl::Status AtomicFileWriter::Append(std::string_view piece) {
  if (fd_ < 0) return absl::FailedPreconditionError(absl::StrCat(path_, " is already committed"));
  buffer_.append(piece);
  return buffer_.size() >= kWriteBuffer ? Flush() : absl::OkStatus();
}

absl::Status AtomicFileWriter::Flush() {
  size_t written = 0;
  while (written < buffer_.size()) {
    ssize_t n = ::write(fd_, buffer_.data() + written, buffer_.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      return absl::InternalError(absl::StrCat("cannot write ", tmp_, ": ", std::strerror(errno)));
    }
    written += static_cast<size_t>(n);
  }
  buffer_.clear();
  return absl::OkStatus();
}

absl::Status AtomicFileWriter::Commit() {
  RETURN_IF_ERROR(Flush());
  const int fd = fd_;
  fd_ = -1;
  const bool synced = ::fsync(fd) == 0;
  if (::close(fd) != 0 || !synced) {
    ::unlink(tmp_.c_str());
    return absl::InternalError(absl::StrCat("cannot flush ", tmp_, ": ", std::strerror(errno)));
  }
  if (::rename(tmp_.c_str(), path_.c_str()) != 0) {
    return absl::InternalError(absl::StrCat("cannot rename ", tmp_, " to ", path_, ": ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

std::string StringAt(const Json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::optional<int> JsonToInt(const Json& value) {
  constexpr int64_t kMin = std::numeric_limits<int>::min();
  constexpr int64_t kMax = std::numeric_limits<int>::max();
  if (value.is_number_unsigned()) {
    const uint64_t n = value.get<uint64_t>();
    return n <= static_cast<uint64_t>(kMax) ? std::optional<int>(static_cast<int>(n)) : std::nullopt;
  }
  if (value.is_number_integer()) {
    const int64_t n = value.get<int64_t>();
    return n >= kMin && n <= kMax ? std::optional<int>(static_cast<int>(n)) : std::nullopt;
  }
  if (value.is_number_float()) {
    const double d = value.get<double>();
    if (!(d >= static_cast<double>(kMin) && d <= static_cast<double>(kMax)) || d != std::floor(d)) return std::nullopt;
    return static_cast<int>(d);
  }
  return std::nullopt;
}

absl::StatusOr<int> IntField(const Json& object, const char* key, int fallback) {
  auto it = object.find(key);
  if (it == object.end()) return fallback;
  std::optional<int> n = JsonToInt(*it);
  if (!n.has_value()) {
    return absl::InvalidArgumentError(absl::StrCat("\"", key, "\" is ", DumpJson(*it), ", not an integer"));
  }
  return *n;
}

}  // namespace noveltygrid
