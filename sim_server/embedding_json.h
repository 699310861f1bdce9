// The reply body of POST /v1/embeddings on serve-sim, written without an nlohmann tree of the reply.
//
// RenderEmbeddingList writes the list object byte for byte as DumpJson would dump the tree
// {"object","data":[{"object","index","embedding"}...],"model","usage"} (tested against it). With
// "encoding_format": "base64" (the worker's default) each vector is its float32 values, little-endian,
// in base64, written as is: nlohmann's dump would check every base64 character for escapes.
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

// {"object":"list","data":[{"object":"embedding","index":i,"embedding":<vector>},...],
//  "model":<model>,"usage":{"prompt_tokens":tokens,"total_tokens":tokens}}, each <vector> a JSON string
// of Base64Floats (base64) or the array DumpJson writes (floats).
std::string RenderEmbeddingList(const std::vector<Embedding>& vectors, bool base64, absl::string_view model,
                                int64_t tokens);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_SIM_SERVER_EMBEDDING_JSON_H_
