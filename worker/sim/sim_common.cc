#include "worker/sim/sim_common.h"

#include <bit>
#include <cstdint>
#include <utility>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "absl/strings/str_cat.h"
#include "common/hashing.h"

namespace noveltygrid::sim {

namespace {
bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }
}  // namespace

absl::Status ValidateRequest(const ChatRequest& request, const std::string& model_id) {
  if (LastUserMessage(request) < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("model '", model_id, "': the request has no message with role \"user\""));
  }
  if (request.n < 1 || request.n > kMaxChoices) {
    return absl::InvalidArgumentError(
        absl::StrCat("model '", model_id, "': n = ", request.n, " is outside 1..", kMaxChoices));
  }
  if (!(request.temperature >= 0.0 && request.temperature <= 2.0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("model '", model_id, "': temperature ", request.temperature, " is outside [0, 2]"));
  }
  return absl::OkStatus();
}

int LastUserMessage(const ChatRequest& request) {
  for (int i = static_cast<int>(request.messages.size()) - 1; i >= 0; --i) {
    if (request.messages[i].role == "user") return i;
  }
  return -1;
}

uint64_t RequestHash(const ChatRequest& request, std::string_view model_id) {
  StableHasher hasher;
  hasher.Add(model_id).Add(request.seed).Add(request.temperature);
  hasher.Add(static_cast<uint64_t>(request.messages.size()));
  for (const ChatMessage& message : request.messages) hasher.Add(message.role).Add(message.content);
  return hasher.Finish();
}

int64_t CountWords(std::string_view text) {
  // A word starts at each byte that is not a space and follows a space (or the start).
  int64_t words = 0;
  bool previous_space = true;
  size_t i = 0;
#if defined(__SSE2__)
  // 16 bytes a step: a bit mask of the spaces, shifted by one for "the byte before is a space".
  const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
  const __m128i blank = _mm_set1_epi8(' ');
  const __m128i tab = _mm_set1_epi8('\t');  // \t \n \v \f \r are 9..13
  const __m128i four = _mm_set1_epi8(4);
  for (; i + 16 <= text.size(); i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes + i));
    const __m128i control = _mm_sub_epi8(v, tab);  // 0..4 for the five control spaces
    const __m128i in_range = _mm_cmpeq_epi8(_mm_min_epu8(control, four), control);
    const auto spaces = static_cast<uint32_t>(_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, blank), in_range)));
    const uint32_t after_space = ((spaces << 1) | (previous_space ? 1u : 0u)) & 0xffffu;
    words += std::popcount(after_space & ~spaces & 0xffffu);
    previous_space = (spaces >> 15) != 0;
  }
#endif
  for (; i < text.size(); ++i) {
    const bool space = IsSpace(text[i]);
    words += previous_space && !space ? 1 : 0;
    previous_space = space;
  }
  return words;
}

int64_t CountPromptWords(const ChatRequest& request) {
  int64_t words = 0;
  for (const ChatMessage& message : request.messages) words += CountWords(message.content);
  return words;
}

void Deliver(Executor* executor, ChatCallback done, absl::StatusOr<ChatReply> result) {
  executor->Schedule(
      [done = std::move(done), result = std::move(result)]() mutable { std::move(done)(std::move(result)); });
}

}  // namespace noveltygrid::sim
