// Small pieces shared by the simulated chat and judge models: request checks, whitespace token
// counts and asynchronous delivery through the executor. Stateless;
// thread-safe.
#ifndef NOVELTYGRID_WORKER_SIM_SIM_COMMON_H_
#define NOVELTYGRID_WORKER_SIM_SIM_COMMON_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/executor.h"
#include "worker/models/model.h"

namespace noveltygrid::sim {

inline constexpr int kMaxChoices = 128;

// InvalidArgument naming `model_id` when the request has no user message, n is outside
// 1..kMaxChoices or the temperature is outside [0, 2].
absl::Status ValidateRequest(const ChatRequest& request, const std::string& model_id);

// The index of the last message with role "user" (ValidateRequest guarantees one).
int LastUserMessage(const ChatRequest& request);

// Hash of every message (role and content), the seed, the temperature and the model id.
uint64_t RequestHash(const ChatRequest& request, std::string_view model_id);

// Number of whitespace-separated words.
int64_t CountWords(std::string_view text);
int64_t CountPromptWords(const ChatRequest& request);

// Runs `done(result)` on `executor`, never inline.
void Deliver(Executor* executor, ChatCallback done, absl::StatusOr<ChatReply> result);

}  // namespace noveltygrid::sim

#endif  // NOVELTYGRID_WORKER_SIM_SIM_COMMON_H_
