// Reading the fields of an OpenAI-compatible reply with JsonReader: shared by the chat model
// (openai_chat_model.cc) and the embedder (openai_embedder.cc). Internal to worker/models.
#ifndef NOVELTYGRID_WORKER_MODELS_OPENAI_REPLY_FIELDS_H_
#define NOVELTYGRID_WORKER_MODELS_OPENAI_REPLY_FIELDS_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "worker/http/json_reader.h"

namespace noveltygrid::openai_reply {

// InvalidArgument: the reply of `endpoint` is not usable, because of `what`.
absl::Status BadReply(const std::string& endpoint, const std::string& what);

// An integer member as a parsed tree's is_number_integer() sees it; nullopt for anything else (the
// value is skipped).
std::optional<int64_t> ReadInteger(JsonReader& r);

// A string member; nullopt (the value skipped) when it is not a string.
bool ReadStringMember(JsonReader& r, std::optional<std::string>* out);

// A token count of a usage object (the reader at its value), as UsageTokenCount takes it
// (worker/http/retry_policy.h): 0 unless an integer from 0 to kMaxUsageTokens.
int64_t ReadTokenCount(JsonReader& r);

// usage.<key> of a usage object (the reader at its value); ReadTokenCount's, 0 when absent.
int64_t ReadUsage(JsonReader& r, absl::string_view wanted);

}  // namespace noveltygrid::openai_reply

#endif  // NOVELTYGRID_WORKER_MODELS_OPENAI_REPLY_FIELDS_H_
