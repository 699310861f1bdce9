// Reading serve-sim's request bodies: the JSON helpers the OpenAI routes (sim_api.cc) and the
// Anthropic route (anthropic_api.cc) share, so that both read fields and message content the same way.
// Every error is InvalidArgument with a message the routes send back as a 400.
//
// Stateless functions: thread-safe.
#ifndef NOVELTYGRID_SIM_SERVER_SIM_REQUEST_JSON_H_
#define NOVELTYGRID_SIM_SERVER_SIM_REQUEST_JSON_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/json_util.h"

namespace noveltygrid::sim_json {

absl::Status Invalid(absl::string_view message);

// The field `key` of `object`, or nullptr when it is absent or null.
const Json* Find(const Json& object, const char* key);

// The body as one JSON object.
absl::StatusOr<Json> ParseObject(absl::string_view body);

absl::StatusOr<std::string> RequiredString(const Json& object, const char* key);
absl::StatusOr<std::optional<int64_t>> OptionalInt(const Json& object, const char* key);

// A requested max_tokens: InvalidArgument below 1, capped at 10^9.
absl::StatusOr<int> MaxTokens(int64_t requested);

// Text content: `content` null (""), a string, or an array of {"type": "text", "text": ...} parts
// (OpenAI's content parts, Anthropic's text blocks; other keys such as cache_control are ignored),
// joined by `separator`: "\n" for OpenAI's parts; "" for Anthropic's blocks, which the model reads as one
// text (so a prompt split into a cached prefix and the rest is the prompt unsplit). `what` names the
// field in errors ("message 'content'", "'system'").
absl::StatusOr<std::string> TextContent(const Json* content, absl::string_view what,
                                        absl::string_view separator = "\n");

// TextContent of a message object's "content".
absl::StatusOr<std::string> MessageContent(const Json& message, absl::string_view separator = "\n");

}  // namespace noveltygrid::sim_json

#endif  // NOVELTYGRID_SIM_SERVER_SIM_REQUEST_JSON_H_
