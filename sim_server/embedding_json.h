// The reply body of POST /v1/embeddings on serve-sim, written without an nlohmann tree.
//
// With "encoding_format": "base64" (the worker's default) each vector is its float32 values,
// little-endian, in base64; RenderBase64EmbeddingList writes the list object byte for byte as DumpJson
// would dump the tree {"object","data":[{"object","index","embedding"}...],"model","usage"} (tested
// against it), at a fraction of the cost: nlohmann's dump checks every base64 character for escapes.
//
// Stateless functions: thread-safe.
#ifndef NOVELTYGRID_SIM_SERVER_EMBEDDING_JSON_H_
#define NOVELTYGRID_SIM_SERVER_EMBEDDING_JSON_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "worker/models/model.h"

namespace noveltygrid {

// The float32 values of `vector`, little-endian, base64-encoded (OpenAI's "base64" encoding).
std::string Base64Floats(const Embedding& vector);

// {"object":"list","data":[{"object":"embedding","index":i,"embedding":"<base64>"},...],
//  "model":<model>,"usage":{"prompt_tokens":tokens,"total_tokens":tokens}}
std::string RenderBase64EmbeddingList(const std::vector<Embedding>& vectors, absl::string_view model, int64_t tokens);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_SIM_SERVER_EMBEDDING_JSON_H_
