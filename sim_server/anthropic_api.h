// AnthropicApi: serve-sim's Anthropic Messages API, POST /v1/messages, HTTP-free like SimApi (the
// server checks the headers: anthropic-version, x-api-key; see sim_server.h).
//
// Request: {model, max_tokens (required), messages: [{role: "user"|"assistant", content: string or
// [{"type": "text", "text", "cache_control"?}, ...]}], system (optional: string or text blocks, which
// may carry cache_control), temperature (optional, 0..1, default 1.0), metadata, stop_sequences (both
// accepted and ignored, as the OpenAI route ignores `stop`), seed (optional integer, default 0: a
// serve-sim extension, since Anthropic has none; SDKs send it as an extra body field)}; without `seed`,
// a metadata.user_id "noveltygrid-seed-N" gives seed N (how NoveltyGrid's client sends it, since the
// real API refuses unknown fields). `stream`: true is refused (400).
//
// It answers through SimApi::Chat with the request an OpenAI client would send for the same
// conversation: the system text as a first {"role": "system"} message, text blocks concatenated (one
// text to the model: a prompt split into a cached prefix and the rest reads as the prompt unsplit), the same
// temperature, seed (default 0 on both routes) and max_tokens. So a sweep through an Anthropic client gets the same
// texts, byte for byte, as through an OpenAI client. Reply:
//   {id: "msg_sim…" (from the request hash), type: "message", role: "assistant", model,
//    content: [{type: "text", text}], stop_reason: "max_tokens" when the text used all of max_tokens
//    else "end_turn", stop_sequence: null,
//    usage: {input_tokens, output_tokens, cache_creation_input_tokens, cache_read_input_tokens}}
//
// Prompt caching: a block with cache_control {"type": "ephemeral", "ttl"?: "5m" | "1h"} is a cache
// breakpoint (at most 4, as Anthropic allows); prefixes run system blocks first, then message blocks.
// The longest breakpoint prefix already cached (same model, same blocks; PromptCache) is read: its
// tokens are cache_read_input_tokens. The tokens from there to the last breakpoint are written:
// cache_creation_input_tokens (0 when the last breakpoint itself was cached). input_tokens counts the
// rest, after the last breakpoint (Anthropic's meaning: cached tokens are not in input_tokens); the
// three add up to the OpenAI route's prompt_tokens. Unlike Anthropic there is no minimum cacheable
// length. Tokens are words, as everywhere in the simulation.
//
// Errors in Anthropic's shape {"type": "error", "error": {"type", "message"}} (AnthropicErrorReply):
// 400 invalid_request_error, 404 not_found_error for an unknown model.
//
// Thread-safe: SimApi is, and the prompt cache has its own lock.
#ifndef NOVELTYGRID_SIM_SERVER_ANTHROPIC_API_H_
#define NOVELTYGRID_SIM_SERVER_ANTHROPIC_API_H_

#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "common/clock.h"
#include "sim_server/prompt_cache.h"
#include "sim_server/sim_api.h"

namespace noveltygrid {

// Anthropic's error body {"type": "error", "error": {"type": T, "message": M}} with `status`; T follows
// from the status: 400 invalid_request_error, 401 authentication_error, 403 permission_error,
// 404 not_found_error, 413 request_too_large, 429 rate_limit_error, 529 overloaded_error, other
// 5xx api_error, other 4xx invalid_request_error.
SimHttpReply AnthropicErrorReply(int status, absl::string_view message);

class AnthropicApi {
 public:
  static constexpr size_t kDefaultCacheEntries = 4096;

  // `api` and `clock` (the prompt cache's lifetimes) must outlive this object.
  AnthropicApi(SimApi* api, const Clock* clock, size_t cache_entries = kDefaultCacheEntries);

  SimHttpReply Messages(absl::string_view body);

  // SimApi::AdmissionTokens of the request (0 when the body does not parse).
  int64_t MessagesTokens(absl::string_view body) const;

  const PromptCache& cache() const { return cache_; }

 private:
  // Constant after construction.
  SimApi* const api_;

  PromptCache cache_;  // thread-safe
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_SIM_SERVER_ANTHROPIC_API_H_
