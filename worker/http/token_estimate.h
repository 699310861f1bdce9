// EstimateRequestTokens: what a model request may use, for reserving tokens_per_minute before it is
// sent (ProviderLimiter). Deliberately on the high side, since a provider counts the completion budget
// (not the completion) against its own limit when the request arrives: the request body's bytes / 4
// for the prompt (JSON punctuation and field names included), plus max_tokens (or
// max_completion_tokens) times n when the body asks for a completion. Any JSON object (its other values
// skipped unchecked: the bodies are the worker's own); bodies that are not objects count by their size.
#ifndef NOVELTYGRID_WORKER_HTTP_TOKEN_ESTIMATE_H_
#define NOVELTYGRID_WORKER_HTTP_TOKEN_ESTIMATE_H_

#include <cstdint>

#include "absl/strings/string_view.h"

namespace noveltygrid {

inline constexpr int64_t kBytesPerToken = 4;

int64_t EstimateRequestTokens(absl::string_view body);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_WORKER_HTTP_TOKEN_ESTIMATE_H_
