// JSON and file helpers shared by the results writer, the importers and the config loader.
#ifndef NOVELTYGRID_COMMON_JSON_UTIL_H_
#define NOVELTYGRID_COMMON_JSON_UTIL_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"

namespace noveltygrid {

using Json = nlohmann::ordered_json;

// A temperature as results write it: shortest round-trip decimal with at least one digit after the
// point ("0.0", "0.7", "1.25").
std::string FormatTemperature(double t);

// Compact JSON with invalid UTF-8 replaced rather than thrown on.
std::string DumpJson(const Json& value);
// Appends `text` as a JSON string literal (quotes included), escaped as DumpJson escapes it: valid
// UTF-8 as is, '"', '\\' and control characters escaped, invalid UTF-8 replaced by U+FFFD. For
// request bodies written without a Json tree.
void AppendJsonString(absl::string_view text, std::string* out);
// Appends `value` as DumpJson writes a number: nlohmann's round-trip digits and layout ("80.0", "0.4",
// "1e-05"), "null" for NaN and infinities.
void AppendJsonNumber(double value, std::string* out);

// The index of the first byte at or after `from` that a JSON string cannot hold as is, or that needs
// a closer look: a control character, '"', '\\' or a byte >= 0x80; text.size() when there is none.
// Skips 16 bytes per step (SSE2; 8 elsewhere): the long plain runs of prompts, answers and base64.
size_t SkipPlainJsonText(absl::string_view text, size_t from);

// The deepest nesting of objects and arrays that readers of outside input accept (ParseJson,
// JsonReader). nlohmann's parser builds deeper trees without trouble, but copying, comparing or
// dumping one recurses once per level, and 100,000 levels overflow any stack; no file or reply this
// program reads nests beyond a handful.
inline constexpr int kMaxJsonDepth = 256;

// Json::parse for text from outside the process (files, provider replies, stored values):
// InvalidArgument when `text` is not one JSON value ("not valid JSON: <parser's message>", which may
// quote the text; also for a NUL byte anywhere, where nlohmann alone would stop reading and accept
// what came before), OutOfRange when it nests objects and arrays deeper than kMaxJsonDepth (checked
// first, in one pass over the text, before any tree is built). The message does not say where the
// text came from: callers add that.
absl::StatusOr<Json> ParseJson(std::string_view text);

// Two-space indented JSON, for summary files people read.
std::string DumpJsonPretty(const Json& value);

// The string at `key` of a JSON object; empty when absent or not a string.
std::string StringAt(const Json& object, const char* key);

// A JSON number as an int, for readers of outside input: nullopt unless `value` is a number with an
// integral value in int's range (5 and 5.0; not 5.5, 1e300 or "5"). nlohmann's get<int>() and
// value(key, 0) cast any number, which is undefined behaviour for a double beyond int's range.
std::optional<int> JsonToInt(const Json& value);
// The int at `key` of object `object` (JsonToInt): `fallback` when the key is absent,
// InvalidArgument ("\"repeat\" is 1.5, not an integer") when it is not an int.
absl::StatusOr<int> IntField(const Json& object, const char* key, int fallback);

absl::StatusOr<std::string> ReadFile(const std::string& path);
absl::StatusOr<Json> ReadJsonFile(const std::string& path);

// Writes to PATH.tmp, fsyncs and renames over PATH, so readers see the old or the new file, never half.
absl::Status WriteFileAtomically(const std::string& path, const std::string& contents);

// The same, a piece at a time (a file too large to build in memory): Append, then Commit. Dropped
// without Commit, PATH is untouched (PATH.tmp is removed). Not thread-safe.
class AtomicFileWriter {
 public:
  static absl::StatusOr<std::unique_ptr<AtomicFileWriter>> Create(const std::string& path);
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  absl::Status Append(std::string_view piece);
  // Flushes, fsyncs and renames over PATH.
  absl::Status Commit();

 private:
  AtomicFileWriter(std::string path, int fd) : path_(std::move(path)), tmp_(path_ + ".tmp"), fd_(fd) {}
  absl::Status Flush();

  const std::string path_;
  const std::string tmp_;
  int fd_;
  std::string buffer_;
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COMMON_JSON_UTIL_H_
