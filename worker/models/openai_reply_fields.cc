#include "worker/models/openai_reply_fields.h"

#include "absl/strings/str_cat.h"
#include "worker/http/retry_policy.h"

namespace noveltygrid::openai_reply {

absl::Status BadReply(const std::string& endpoint, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat(endpoint, " reply is not usable: ", what));
}

std::optional<int64_t> ReadInteger(JsonReader& r) {
  if (r.Peek() != JsonReader::Type::kNumber) {
    r.Skip();
    return std::nullopt;
  }
  double value;
  bool is_integer = false;
  int64_t integer = 0;
  if (!r.ReadNumber(&value, &is_integer, &integer) || !is_integer) return std::nullopt;
  return integer;
}

bool ReadStringMember(JsonReader& r, std::optional<std::string>* out) {
  if (r.Peek() != JsonReader::Type::kString) {
    out->reset();
    return r.Skip();
  }
  if (!out->has_value()) out->emplace();
  return r.ReadString(&**out);
}

int64_t ReadTokenCount(JsonReader& r) {
  const std::optional<int64_t> count = ReadInteger(r);
  return count.has_value() ? UsageTokenCount(0, true, *count) : 0;
}

int64_t ReadUsage(JsonReader& r, absl::string_view wanted) {
  int64_t tokens = 0;
  if (r.Peek() != JsonReader::Type::kObject) {
    r.Skip();
    return 0;
  }
  r.BeginObject();
  absl::string_view key;
  while (r.NextMember(&key)) {
    if (key == wanted) {
      tokens = ReadTokenCount(r);
    } else {
      r.Skip();
    }
  }
  return tokens;
}

}  // namespace noveltygrid::openai_reply
