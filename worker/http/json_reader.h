// JsonReader: a strict pull reader over one JSON text, for replies the worker reads a few fields of
// (chat completions, embeddings) without building a tree of the whole body.
//
// SkipUnchecked is the one exception to what follows: it checks nothing (for the worker's own texts).
// Apart from values nested deeper than kMaxJsonDepth (common/json_util.h) from the top of the text, which
// Skip refuses (then too_deep() says so), it accepts exactly what nlohmann::json::parse accepts (RFC 8259: UTF-8
// checked, control characters in strings and lone surrogates rejected, no trailing commas or comments), reads strings
// the same way (escapes decoded, \u surrogate pairs joined) and numbers the same way (an integer literal is an integer,
// anything with a fraction or an exponent a double). Any error latches: every later call returns false (or kError) and
// ok() stays false.
//
//   JsonReader r(text);
//   if (!r.BeginObject()) ...;
//   absl::string_view key;
//   while (r.NextMember(&key)) {
//     if (key == "usage") ... else r.Skip();
//   }
//   if (!r.AtEnd()) ...;   // the text was malformed or had trailing data
//
// Keys are views into the text when they have no escapes, else into a buffer valid until the next
// call. Not thread-safe; cheap to construct.
#ifndef NOVELTYGRID_WORKER_HTTP_JSON_READER_H_
#define NOVELTYGRID_WORKER_HTTP_JSON_READER_H_

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"

namespace noveltygrid {

class JsonReader {
 public:
  enum class Type { kObject, kArray, kString, kNumber, kBool, kNull, kError };

  // A leading UTF-8 byte order mark is skipped, as nlohmann does.
  explicit JsonReader(absl::string_view text) : text_(text) {
    if (text_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;
  }

  // The type of the next value, without consuming it (kError at the end of the text or on bad input).
  Type Peek();

  // Objects: BeginObject consumes '{'; each NextMember consumes the next key and its ':' and returns
  // true, or consumes the closing '}' and returns false (also on error: check ok()).
  bool BeginObject();
  bool NextMember(absl::string_view* key);
  // Arrays: BeginArray consumes '['; NextElement returns true when a value follows, false after ']'.
  bool BeginArray();
  bool NextElement();

  // Scalars; false (and an error) when the next value is not of that type.
  bool ReadString(std::string* out);  // replaces *out
  // The string's raw text between the quotes (escapes not decoded), and whether it has any.
  bool ReadRawString(absl::string_view* raw, bool* escaped);
  // A number: *is_integer for a literal without fraction or exponent that fits in int64 (then
  // *integer holds it); *value always holds it as a double.
  bool ReadNumber(double* value, bool* is_integer, int64_t* integer);
  bool Skip();  // any value, checked; its depth counts the containers already entered, as ParseJson does
  // Any value, NOT checked: strings to their closing quote, containers to the bracket that closes
  // them, scalars to the next ',', bracket or space. The same extent as Skip on valid JSON, several
  // times faster; for texts the process wrote itself (token estimates of request bodies).
  bool SkipUnchecked();

  // True when only whitespace remains and nothing went wrong.
  bool AtEnd();
  bool ok() const { return ok_; }
  // True when the reader failed on a value nested deeper than kMaxJsonDepth.
  bool too_deep() const { return too_deep_; }

  // Decodes the raw text of a string (as ReadRawString gives it) into UTF-8; false when malformed.
  // With `out` null, only checks it.
  static bool Unescape(absl::string_view raw, std::string* out);

 private:
  bool Fail() {
    ok_ = false;
    return false;
  }
  // Steps into the next entry of the innermost container (past its ',' when not the first): true; or
  // past `close`, leaving the container: false (also on malformed input, which fails the reader).
  bool NextEntry(char close);
  // Inline: called around every token, and compact JSON (what providers send) has no space to skip.
  void SkipSpace() {
    if (pos_ < text_.size() && static_cast<unsigned char>(text_[pos_]) > ' ') return;
    SkipSpaceSlow();
  }
  void SkipSpaceSlow();
  bool Consume(char c) {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool ScanString(absl::string_view* raw, bool* escaped);  // at '"'
  bool ScanNumber(absl::string_view* literal);

  absl::string_view text_;
  size_t pos_ = 0;
  bool ok_ = true;
  bool too_deep_ = false;
  bool SkipValue(int depth);

  // Per open container, innermost last: '1' once its first member/element was read (a ',' is due
  // before the next), else '0'.
  std::string started_;
  std::string key_buffer_;
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_WORKER_HTTP_JSON_READER_H_
