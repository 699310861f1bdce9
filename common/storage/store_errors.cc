#include "common/storage/store_errors.h"

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace noveltygrid::storage_internal {

std::string QuoteKey(std::string_view key) {
  constexpr size_t kMaxShown = 80;
  const std::string_view shown = key.substr(0, kMaxShown);
  return absl::StrCat("\"", absl::CHexEscape(absl::string_view(shown.data(), shown.size())), "\"",
                      key.size() > kMaxShown ? "..." : "");
}

absl::Status WrongTypeError(std::string_view command, std::string_view key, std::string_view where,
                            std::string_view detail) {
  return absl::FailedPreconditionError(
      absl::StrCat(std::string(command), " on key ", QuoteKey(key), " in ", std::string(where),
                   " failed: the key holds another kind of value (", std::string(detail),
                   "); use a separate key per kind (string, hash, list)"));
}

}  // namespace noveltygrid::storage_internal
