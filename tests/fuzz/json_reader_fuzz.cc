// The strict pull reader for provider replies (worker/http/json_reader.h) against ParseJson
// (common/json_util.h, nlohmann underneath), which it promises to match: the same texts accepted --
// both refuse nesting deeper than kMaxJsonDepth -- and, for an accepted text, the same values
// (strings decoded alike, integers as integers, other numbers as the same doubles). Booleans are
// compared by type only: JsonReader has no call that reads one.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "common/json_util.h"
#include "tests/fuzz/fuzz_util.h"
#include "worker/http/json_reader.h"

namespace noveltygrid {
namespace {

// The value at the reader, as a tree in the form Canonical() gives; nullopt when the reader fails.
std::optional<Json> ReadTree(JsonReader& r, int depth) {
  FUZZ_CHECK(depth <= kMaxJsonDepth + 1);  // Skip accepted the text, so it nests no deeper
  switch (r.Peek()) {
    case JsonReader::Type::kObject: {
      Json object = Json::object();
      if (!r.BeginObject()) return std::nullopt;
      absl::string_view key;
      while (r.NextMember(&key)) {
        const std::string name(key);  // the view may not outlive the next call
        std::optional<Json> value = ReadTree(r, depth + 1);
        if (!value.has_value()) return std::nullopt;
        object[name] = *std::move(value);  // a repeated key: the last value, the first position
      }
      if (!r.ok()) return std::nullopt;
      return object;
    }
    case JsonReader::Type::kArray: {
      Json array = Json::array();
      if (!r.BeginArray()) return std::nullopt;
      while (r.NextElement()) {
        std::optional<Json> value = ReadTree(r, depth + 1);
        if (!value.has_value()) return std::nullopt;
        array.push_back(*std::move(value));
      }
      if (!r.ok()) return std::nullopt;
      return array;
    }
    case JsonReader::Type::kString: {
      std::string decoded;
      if (!r.ReadString(&decoded)) return std::nullopt;
      return Json(decoded);
    }
    case JsonReader::Type::kNumber: {
      double value = 0;
      bool is_integer = false;
      int64_t integer = 0;
      if (!r.ReadNumber(&value, &is_integer, &integer)) return std::nullopt;
      if (is_integer) {
        FUZZ_CHECK(value == static_cast<double>(integer));
        return Json(integer);
      }
      return Json(value);
    }
    case JsonReader::Type::kBool:
    case JsonReader::Type::kNull: {
      const bool is_null = r.Peek() == JsonReader::Type::kNull;
      if (!r.Skip()) return std::nullopt;
      return is_null ? Json() : Json(true);
    }
    case JsonReader::Type::kError:
      return std::nullopt;
  }
  return std::nullopt;
}

// nlohmann's tree in the reader's terms: every boolean true, and unsigned integers (beyond int64)
// as doubles.
Json Canonical(const Json& value) {
  if (value.is_boolean()) return Json(true);
  if (value.is_number_unsigned()) {
    const uint64_t n = value.get<uint64_t>();
    if (n > static_cast<uint64_t>(INT64_MAX)) return Json(static_cast<double>(n));
    return Json(static_cast<int64_t>(n));
  }
  if (value.is_object()) {
    Json out = Json::object();
    for (const auto& [key, member] : value.items()) out[key] = Canonical(member);
    return out;
  }
  if (value.is_array()) {
    Json out = Json::array();
    for (const Json& element : value) out.push_back(Canonical(element));
    return out;
  }
  return value;
}

}  // namespace
}  // namespace noveltygrid

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace noveltygrid;
  const std::string text(fuzz::AsText(data, size));
  const absl::StatusOr<Json> tree = ParseJson(text);

  JsonReader skipper(text);
  const bool accepted = skipper.Skip() && skipper.AtEnd();
  FUZZ_CHECK(accepted == tree.ok(),
             tree.ok() ? "JsonReader refuses what ParseJson accepts"
                       : "JsonReader accepts what ParseJson refuses: " + std::string(tree.status().message()));
  // Nested too deep for the reader means too deep for ParseJson (not the other way round: ParseJson
  // counts the brackets of invalid text too).
  if (skipper.too_deep()) FUZZ_CHECK(absl::IsOutOfRange(tree.status()), tree.status().ToString());
  if (!tree.ok()) return 0;

  JsonReader reader(text);
  const std::optional<Json> read = ReadTree(reader, 0);
  FUZZ_CHECK(read.has_value() && reader.AtEnd());
  // Compared as text: 1 and 1.0 are equal numbers but not the same reading.
  const std::string expected = DumpJson(Canonical(*tree));
  FUZZ_CHECK(DumpJson(*read) == expected, DumpJson(*read) + " vs " + expected);
  return 0;
}
