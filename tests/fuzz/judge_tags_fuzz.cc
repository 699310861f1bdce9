// What the worker reads out of a model's reply text (common/text.h and the judges built on it):
// ExtractLastTag, ParsePythonInt, the AidanBench answer and coherence score
// (worker/engines/aidanbench_engine.h), the LLM partitioner's similarity (LlmDecider::ParseSimilarity),
// SanitizeUtf8 and TruncateWords. Replies come from providers, so any bytes are possible.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/text.h"
#include "tests/fuzz/fuzz_util.h"
#include "worker/engines/aidanbench_engine.h"
#include "worker/partition/llm_decider.h"

namespace noveltygrid {
namespace {

bool IsValidUtf8(std::string_view text) { return SanitizeUtf8(text) == text; }

// Python's int() on the canonical decimal form of the text: the value ParsePythonInt must give, when
// the text is (after stripping) an optional sign and digits with single '_' between them. nullopt for
// text of any other form, and for numbers of 18 digits or more (ParsePythonInt may refuse those).
std::optional<long long> ReferenceInt(std::string_view text) {
  text = StripWhitespace(text);
  bool negative = false;
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) {
    negative = text[0] == '-';
    text.remove_prefix(1);
  }
  std::string digits;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '_' && i > 0 && i + 1 < text.size() && text[i - 1] != '_') continue;
    if (c < '0' || c > '9') return std::nullopt;
    digits.push_back(c);
  }
  const size_t first = digits.find_first_not_of('0');
  if (digits.empty() || (first != std::string::npos && digits.size() - first >= 18)) return std::nullopt;
  long long value = 0;
  for (char c : digits) value = value * 10 + (c - '0');
  return negative ? -value : value;
}

void CheckTag(std::string_view text, const char* tag) {
  const std::optional<std::string> body = ExtractLastTag(text, tag);
  if (!body.has_value()) return;
  FUZZ_CHECK(text.find(*body) != std::string_view::npos);
  FUZZ_CHECK(StripWhitespace(*body) == *body);
  FUZZ_CHECK(body->find(std::string("</") + tag + ">") == std::string::npos);
}

}  // namespace
}  // namespace noveltygrid

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace noveltygrid;
  const std::string text(fuzz::AsText(data, size));

  for (const char* tag : {"answer", "coherence_score", "similarity_score"}) CheckTag(text, tag);

  const std::optional<long long> parsed = ParsePythonInt(text);
  const std::optional<long long> reference = ReferenceInt(text);
  if (reference.has_value()) FUZZ_CHECK(parsed == reference, std::to_string(*reference));
  if (parsed.has_value() && !reference.has_value()) {
    // Only the long numbers the reference leaves out may parse without it.
    const std::string_view stripped = StripWhitespace(text);
    FUZZ_CHECK(stripped.size() >= 18, std::to_string(*parsed));
  }

  const std::string answer = ExtractAnswer(text);
  FUZZ_CHECK(IsValidUtf8(answer));
  const std::string clean = SanitizeUtf8(text);
  FUZZ_CHECK(IsValidUtf8(clean) && SanitizeUtf8(clean) == clean);
  if (IsValidUtf8(text)) FUZZ_CHECK(clean == text);

  for (const int scale : {10, 100}) {
    const std::optional<int> score = ParseCoherenceScore(text, scale);
    if (!score.has_value()) continue;
    FUZZ_CHECK(*score >= 0 && *score <= scale);
    const std::optional<std::string> body = ExtractLastTag(text, "coherence_score");
    FUZZ_CHECK(body.has_value() && ParsePythonInt(*body) == *score);
  }
  if (const std::optional<double> similarity = LlmDecider::ParseSimilarity(text); similarity.has_value()) {
    FUZZ_CHECK(*similarity >= 0.0 && *similarity <= 1.0);
  }

  const int words = size == 0 ? 0 : data[0] % 8;
  const std::string cut = TruncateWords(text, words);
  FUZZ_CHECK(text.compare(0, cut.size(), cut) == 0 && cut.size() <= text.size());
  return 0;
}
