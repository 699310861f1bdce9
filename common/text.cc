#include "common/text.h"

#include <cstdint>

namespace noveltygrid {

namespace {
bool IsPyAsciiSpace(unsigned char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' || (c >= 0x1c && c <= 0x1f);
}
// C's isspace in the "C" locale.
bool IsCSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }
}  // namespace

std::string_view StripWhitespace(std::string_view text) {
  size_t begin = 0, end = text.size();
  while (begin < end && IsPyAsciiSpace(static_cast<unsigned char>(text[begin]))) ++begin;
  while (end > begin && IsPyAsciiSpace(static_cast<unsigned char>(text[end - 1]))) --end;
  return text.substr(begin, end - begin);
}

std::optional<std::string> ExtractLastTag(std::string_view text, std::string_view tag) {
  const std::string open = "<" + std::string(tag) + ">";
  const std::string close = "</" + std::string(tag) + ">";
  std::optional<std::string> last;
  size_t pos = 0;
  while (true) {
    size_t start = text.find(open, pos);
    if (start == std::string_view::npos) break;
    size_t body = start + open.size();
    size_t stop = text.find(close, body);
    if (stop == std::string_view::npos) break;
    last = std::string(StripWhitespace(text.substr(body, stop - body)));
    pos = stop + close.size();
  }
  return last;
}

std::optional<long long> ParsePythonInt(std::string_view text) {
  text = StripWhitespace(text);
  if (text.empty()) return std::nullopt;
  bool negative = false;
  if (text[0] == '+' || text[0] == '-') {
    negative = text[0] == '-';
    text.remove_prefix(1);
  }
  if (text.empty()) return std::nullopt;
  long long value = 0;
  bool previous_was_digit = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '_') {
      if (!previous_was_digit || i + 1 == text.size()) return std::nullopt;
      previous_was_digit = false;
      continue;
    }
    if (c < '0' || c > '9') return std::nullopt;
    if (value > (INT64_MAX - 9) / 10) return std::nullopt;  // far outside any score range
    value = value * 10 + (c - '0');
    previous_was_digit = true;
  }
  if (!previous_was_digit) return std::nullopt;
  return negative ? -value : value;
}

std::string SanitizeUtf8(std::string_view text) {
  static constexpr char kReplacement[] = "\xEF\xBF\xBD";
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  const size_t n = text.size();
  auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  while (i < n) {
    unsigned char c = byte(i);
    if (c < 0x80) {
      out.push_back(static_cast<char>(c));
      ++i;
      continue;
    }
    int length = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
    if (c >= 0xC2 && c <= 0xDF) {
      length = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      length = 3;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;  // no UTF-16 surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
      length = 4;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    }
    bool ok = length > 0 && i + length <= n;
    for (int k = 1; ok && k < length; ++k) {
      unsigned char b = byte(i + k);
      if (k == 1 ? (b < lo || b > hi) : (b < 0x80 || b > 0xBF)) ok = false;
    }
    if (ok) {
      out.append(text.substr(i, length));
      i += length;
    } else {
      out.append(kReplacement);
      ++i;
    }
  }
  return out;
}

std::string TruncateWords(std::string_view text, int max_words) {
  if (max_words <= 0) return std::string(text);
  int words = 0;
  bool in_word = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const bool space = IsCSpace(text[i]);
    if (space && in_word && words == max_words) return std::string(text.substr(0, i));
    if (!space && !in_word) ++words;
    in_word = !space;
  }
  return std::string(text);
}

}  // namespace noveltygrid
