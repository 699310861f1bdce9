#include "worker/http/token_estimate.h"

#include <algorithm>
#include <optional>

#include "worker/http/json_reader.h"

namespace noveltygrid {
namespace {

// A non-negative integer member value, if it is one (fractions dropped).
std::optional<int64_t> Count(JsonReader& r) {
  if (r.Peek() != JsonReader::Type::kNumber) {
    r.SkipUnchecked();
    return std::nullopt;
  }
  double value = 0;
  bool is_integer = false;
  int64_t integer = 0;
  if (!r.ReadNumber(&value, &is_integer, &integer)) return std::nullopt;
  if (is_integer) return std::max<int64_t>(0, integer);
  if (!(value > 0) || value >= 9.2e18) return std::nullopt;
  return static_cast<int64_t>(value);
}

}  // namespace

int64_t EstimateRequestTokens(absl::string_view body) {
  const int64_t prompt = (static_cast<int64_t>(body.size()) + kBytesPerToken - 1) / kBytesPerToken;
  JsonReader r(body);
  if (r.Peek() != JsonReader::Type::kObject || !r.BeginObject()) return prompt;
  std::optional<int64_t> budget, n;
  absl::string_view key;
  while (r.NextMember(&key)) {
    if (key == "max_tokens" || key == "max_completion_tokens") {
      if (std::optional<int64_t> v = Count(r); v.has_value()) budget = std::max(budget.value_or(0), *v);
    } else if (key == "n") {
      n = Count(r);
    } else {
      r.SkipUnchecked();  // the body is the worker's own (the prompt's text, mostly): nothing to check
    }
  }
  if (!budget.has_value()) return prompt;
  // Saturating: a body can say anything.
  const int64_t choices = std::clamp<int64_t>(n.value_or(1), 1, 1 << 20);
  const int64_t completion = std::min<int64_t>(*budget, int64_t{1} << 40) * choices;
  return prompt + completion;
}

}  // namespace noveltygrid
