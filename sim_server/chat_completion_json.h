// The JSON of POST /v1/chat/completions on serve-sim: reading a request body into a ChatRequest and
// writing the reply body.
//
// ParseChatCompletion reads the common shape (one object; "model" a string; "messages" a non-empty
// array of {"role": string, "content": string}; the numbers as numbers; any other field skipped unread)
// in one pass with the strict pull reader (worker/http/json_reader.h), without building a tree. Any other
// body -- content parts, nulls, a field given twice, wrong types, malformed JSON -- goes through
// ParseChatCompletionTree, the nlohmann reading that also words the errors. Both give the same result
// for every body (tests/sim_server/chat_completion_json_test.cc, tests/fuzz/chat_request_fuzz.cc).
//
// RenderChatCompletion writes the reply byte for byte as nlohmann would dump it (DumpJson).
//
// Stateless functions: thread-safe.
#ifndef NOVELTYGRID_SIM_SERVER_CHAT_COMPLETION_JSON_H_
#define NOVELTYGRID_SIM_SERVER_CHAT_COMPLETION_JSON_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "worker/models/model.h"

namespace noveltygrid {

// A chat completion request: the model as named in the body, and what it is asked.
struct ModelChatRequest {
  std::string model;
  ChatRequest request;
};

// The request in `body`: InvalidArgument (a message for a 400) when it is malformed. Defaults:
// temperature 1.0 (OpenAI's), max_tokens 4000 (max_completion_tokens first, then max_tokens; below 1
// refused, capped at 10^9), seed 0, n 1 (kept within [-1, kMaxChoices + 1] for the model to refuse).
absl::StatusOr<ModelChatRequest> ParseChatCompletion(absl::string_view body);

// The same through an nlohmann tree of the whole body; ParseChatCompletion falls back to it.
absl::StatusOr<ModelChatRequest> ParseChatCompletionTree(absl::string_view body);

// The chat.completion object: id "chatcmpl-sim-" + HexId(id), `created`, `model`, one choice per
// reply choice, and usage from the reply's tokens.
std::string RenderChatCompletion(uint64_t id, int64_t created, absl::string_view model, const ChatReply& reply);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_SIM_SERVER_CHAT_COMPLETION_JSON_H_
