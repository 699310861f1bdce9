#include "worker/sim/sim_common.h"

#include <utility>

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
  int64_t words = 0;
  bool in_word = false;
  for (char c : text) {
    const bool space = IsSpace(c);
    if (!space && !in_word) ++words;
    in_word = !space;
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
