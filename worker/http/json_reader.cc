#include "worker/http/json_reader.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "common/json_util.h"

namespace noveltygrid {
namespace {

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The 4 hex digits at raw[i..i+4); -1 when malformed.
int Hex4(absl::string_view raw, size_t i) {
  if (i + 4 > raw.size()) return -1;
  int value = 0;
  for (size_t k = 0; k < 4; ++k) {
    const int d = HexDigit(raw[i + k]);
    if (d < 0) return -1;
    value = value * 16 + d;
  }
  return value;
}

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// Length of the well-formed UTF-8 sequence starting with lead byte s[i] (>= 0x80), 0 if malformed.
size_t Utf8Sequence(absl::string_view s, size_t i) {
  const auto at = [&](size_t k) { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0u; };
  const auto cont = [](unsigned c, unsigned lo = 0x80, unsigned hi = 0xBF) { return c >= lo && c <= hi; };
  const unsigned c = at(0);
  if (c >= 0xC2 && c <= 0xDF) return cont(at(1)) ? 2 : 0;
  if (c == 0xE0) return cont(at(1), 0xA0, 0xBF) && cont(at(2)) ? 3 : 0;
  if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) return cont(at(1)) && cont(at(2)) ? 3 : 0;
  if (c == 0xED) return cont(at(1), 0x80, 0x9F) && cont(at(2)) ? 3 : 0;
  if (c == 0xF0) return cont(at(1), 0x90, 0xBF) && cont(at(2)) && cont(at(3)) ? 4 : 0;
  if (c >= 0xF1 && c <= 0xF3) return cont(at(1)) && cont(at(2)) && cont(at(3)) ? 4 : 0;
  if (c == 0xF4) return cont(at(1), 0x80, 0x8F) && cont(at(2)) && cont(at(3)) ? 4 : 0;
  return 0;
}

}  // namespace

void JsonReader::SkipSpaceSlow() {
  while (pos_ < text_.size()) {
    const char c = text_[pos_];
    if (c != ' ' && c != '\n' && c != '\r' && c != '\t') return;
    ++pos_;
  }
}

JsonReader::Type JsonReader::Peek() {
  if (!ok_) return Type::kError;
  SkipSpace();
  if (pos_ >= text_.size()) return Type::kError;
  switch (text_[pos_]) {
    case '{':
      return Type::kObject;
    case '[':
      return Type::kArray;
    case '"':
      return Type::kString;
    case 't':
    case 'f':
      return Type::kBool;
    case 'n':
      return Type::kNull;
    default: {
      const char c = text_[pos_];
      return c == '-' || (c >= '0' && c <= '9') ? Type::kNumber : Type::kError;
    }
  }
}

bool JsonReader::BeginObject() {
  if (!ok_ || !Consume('{')) return Fail();
  started_.push_back('0');
  return true;
}

bool JsonReader::BeginArray() {
  if (!ok_ || !Consume('[')) return Fail();
  started_.push_back('0');
  return true;
}

bool JsonReader::NextEntry(char close) {
  if (!ok_ || started_.empty()) return Fail();
  if (Consume(close)) {
    started_.pop_back();
    return false;
  }
  if (started_.back() == '1' && !Consume(',')) return Fail();
  started_.back() = '1';
  return true;
}

bool JsonReader::NextMember(absl::string_view* key) {
  if (!NextEntry('}')) return false;
  SkipSpace();
  absl::string_view raw;
  bool escaped = false;
  if (!ScanString(&raw, &escaped)) return Fail();
  if (escaped) {
    if (!Unescape(raw, &key_buffer_)) return Fail();
    *key = key_buffer_;
  } else {
    *key = raw;
  }
  if (!Consume(':')) return Fail();
  return true;
}

bool JsonReader::NextElement() { return NextEntry(']'); }

bool JsonReader::ScanString(absl::string_view* raw, bool* escaped) {
  if (pos_ >= text_.size() || text_[pos_] != '"') return false;
  const size_t begin = ++pos_;
  *escaped = false;
  while (pos_ < text_.size()) {
    pos_ = SkipPlainJsonText(text_, pos_);  // long runs of text and base64, 16 bytes a step
    if (pos_ >= text_.size()) break;
    const unsigned char c = static_cast<unsigned char>(text_[pos_]);
    if (c == '"') {
      *raw = text_.substr(begin, pos_ - begin);
      ++pos_;
      return true;
    }
    if (c < 0x20) return false;
    if (c == '\\') {
      *escaped = true;
      pos_ += 2;  // the escape is checked by Unescape; a '\"' must not end the string here
      continue;
    }
    if (c >= 0x80) {
      const size_t n = Utf8Sequence(text_, pos_);
      if (n == 0) return false;
      pos_ += n;
      continue;
    }
    ++pos_;
  }
  return false;
}

bool JsonReader::Unescape(absl::string_view raw, std::string* out) {
  // `out` null: only check the escapes (skipping a string), writing nothing.
  static constexpr absl::string_view kFrom = "\"\\/bfnrt";
  static constexpr absl::string_view kTo = "\"\\/\b\f\n\r\t";
  if (out != nullptr) {
    out->clear();
    out->reserve(raw.size());
  }
  size_t i = 0;
  while (i < raw.size()) {
    const size_t backslash = raw.find('\\', i);
    const size_t plain_end = backslash == absl::string_view::npos ? raw.size() : backslash;
    if (out != nullptr) out->append(raw.data() + i, plain_end - i);
    if (backslash == absl::string_view::npos) break;
    i = backslash + 1;
    if (i >= raw.size()) return false;
    const char e = raw[i++];
    if (e == 'u') {
      const int hi = Hex4(raw, i);
      if (hi < 0) return false;
      i += 4;
      uint32_t cp = static_cast<uint32_t>(hi);
      if (cp >= 0xDC00 && cp <= 0xDFFF) return false;  // a low surrogate alone
      if (cp >= 0xD800 && cp <= 0xDBFF) {
        if (i + 6 > raw.size() || raw[i] != '\\' || raw[i + 1] != 'u') return false;
        const int lo = Hex4(raw, i + 2);
        if (lo < 0xDC00 || lo > 0xDFFF) return false;
        i += 6;
        cp = 0x10000 + ((cp - 0xD800) << 10) + (static_cast<uint32_t>(lo) - 0xDC00);
      }
      if (out != nullptr) AppendUtf8(cp, out);
      continue;
    }
    const size_t simple = kFrom.find(e);
    if (simple == absl::string_view::npos) return false;
    if (out != nullptr) out->push_back(kTo[simple]);
  }
  return true;
}

bool JsonReader::ReadRawString(absl::string_view* raw, bool* escaped) {
  if (!ok_) return false;
  SkipSpace();
  if (!ScanString(raw, escaped)) return Fail();
  return true;
}

bool JsonReader::ReadString(std::string* out) {
  absl::string_view raw;
  bool escaped = false;
  if (!ReadRawString(&raw, &escaped)) return false;
  if (!escaped) {
    out->assign(raw.data(), raw.size());
    return true;
  }
  return Unescape(raw, out) || Fail();
}

bool JsonReader::ScanNumber(absl::string_view* literal) {
  const size_t begin = pos_;
  const auto digit = [&] { return pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9'; };
  if (pos_ < text_.size() && text_[pos_] == '-') ++pos_;
  if (!digit()) return false;
  if (text_[pos_] == '0') {
    ++pos_;
  } else {
    while (digit()) ++pos_;
  }
  if (pos_ < text_.size() && text_[pos_] == '.') {
    ++pos_;
    if (!digit()) return false;
    while (digit()) ++pos_;
  }
  if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
    ++pos_;
    if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
    if (!digit()) return false;
    while (digit()) ++pos_;
  }
  *literal = text_.substr(begin, pos_ - begin);
  return true;
}

bool JsonReader::ReadNumber(double* value, bool* is_integer, int64_t* integer) {
  if (!ok_) return false;
  SkipSpace();
  absl::string_view literal;
  if (!ScanNumber(&literal)) return Fail();
  const char* first = literal.data();
  const char* last = literal.data() + literal.size();
  *is_integer = false;
  // A plain loop: find_first_of builds a lookup table of its 3 characters at every call.
  if (std::none_of(first, last, [](char c) { return c == '.' || c == 'e' || c == 'E'; })) {
    int64_t n = 0;
    if (std::from_chars(first, last, n).ec == std::errc()) {
      *is_integer = true;
      *integer = n;
      *value = static_cast<double>(n);
      return true;
    }
  }
  auto [end, ec] = std::from_chars(first, last, *value);
  if (ec == std::errc::result_out_of_range) {
    // Overflow is an error (as nlohmann has it); underflow is the nearest double (strtod's answer).
    const std::string copy(literal);
    *value = std::strtod(copy.c_str(), nullptr);
    return std::isfinite(*value) || Fail();
  }
  return (ec == std::errc() && end == last) || Fail();
}

bool JsonReader::SkipValue(int depth) {
  // `depth`: the objects and arrays around the value. Only containers count, as in ParseJson: a scalar
  // inside kMaxJsonDepth of them is fine, a container there is refused rather than recursed into.
  const Type type = Peek();
  if ((type == Type::kObject || type == Type::kArray) && depth >= kMaxJsonDepth) {
    too_deep_ = true;
    return Fail();
  }
  switch (type) {
    case Type::kObject: {
      if (!BeginObject()) return false;
      absl::string_view key;
      while (NextMember(&key)) {
        if (!SkipValue(depth + 1)) return false;
      }
      return ok_;
    }
    case Type::kArray: {
      if (!BeginArray()) return false;
      while (NextElement()) {
        if (!SkipValue(depth + 1)) return false;
      }
      return ok_;
    }
    case Type::kString: {
      absl::string_view raw;
      bool escaped = false;
      if (!ReadRawString(&raw, &escaped)) return false;
      if (escaped && !Unescape(raw, nullptr)) return Fail();  // checks the escapes
      return true;
    }
    case Type::kNumber: {
      double value;
      bool is_integer;
      int64_t integer;
      return ReadNumber(&value, &is_integer, &integer);
    }
    case Type::kBool:
    case Type::kNull: {
      for (absl::string_view word : {"true", "false", "null"}) {
        if (text_.substr(pos_, word.size()) == word) {
          pos_ += word.size();
          return true;
        }
      }
      return Fail();
    }
    case Type::kError:
      return Fail();
  }
  return Fail();
}

// Depth counts the containers the reader is inside too, as ParseJson counts from the top of the text.
bool JsonReader::Skip() { return SkipValue(static_cast<int>(started_.size())); }

bool JsonReader::SkipUnchecked() {
  if (!ok_) return false;
  SkipSpace();
  int depth = 0;
  while (pos_ < text_.size()) {
    const char c = text_[pos_];
    if (c == '"') {
      // To the first quote not escaped: one after an even run of backslashes.
      size_t from = pos_ + 1;
      while (true) {
        const void* quote = std::memchr(text_.data() + from, '"', text_.size() - from);
        if (quote == nullptr) return Fail();
        const size_t at = static_cast<size_t>(static_cast<const char*>(quote) - text_.data());
        size_t backslashes = 0;
        while (at - backslashes - 1 > pos_ && text_[at - backslashes - 1] == '\\') ++backslashes;
        from = at + 1;
        if (backslashes % 2 == 0) break;
      }
      pos_ = from;
      if (depth == 0) return true;
      continue;
    }
    if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (depth == 0) return true;  // the enclosing container's end: a scalar stopped before it
      if (--depth == 0) {
        ++pos_;
        return true;
      }
    } else if (depth == 0 && (c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r')) {
      return true;
    }
    ++pos_;
  }
  return depth == 0 || Fail();
}

bool JsonReader::AtEnd() {
  if (!ok_ || !started_.empty()) return false;
  SkipSpace();
  return pos_ == text_.size();
}

}  // namespace noveltygrid
