#include "sim_server/embedding_json.h"

#include <bit>
#include <cstdint>
#include <cstring>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "common/json_util.h"

namespace noveltygrid {

std::string Base64Floats(const Embedding& vector) {
  // The floats' little-endian bytes: on a little-endian machine, their bytes in memory.
  std::string bytes(vector.size() * 4, '\0');
  if constexpr (std::endian::native == std::endian::little) {
    if (!vector.empty()) std::memcpy(bytes.data(), vector.data(), bytes.size());
  } else {
    for (size_t i = 0; i < vector.size(); ++i) {
      const uint32_t bits = std::bit_cast<uint32_t>(vector[i]);
      for (int b = 0; b < 4; ++b) bytes[i * 4 + b] = static_cast<char>((bits >> (8 * b)) & 0xff);
    }
  }
  return absl::Base64Escape(bytes);
}

std::string RenderEmbeddingList(const std::vector<Embedding>& vectors, bool base64, absl::string_view model,
                                int64_t tokens) {
  std::string out;
  size_t size = 128 + model.size();
  for (const Embedding& vector : vectors) size += vector.size() * 16 / 3 + 64;
  out.reserve(size);
  out += R"({"object":"list","data":[)";
  for (size_t i = 0; i < vectors.size(); ++i) {
    absl::StrAppend(&out, i == 0 ? "" : ",", R"({"object":"embedding","index":)", i, R"(,"embedding":)");
    if (base64) {  // base64's alphabet (A-Z a-z 0-9 + / =) holds nothing JSON escapes
      absl::StrAppend(&out, "\"", Base64Floats(vectors[i]), "\"");
    } else {
      out += DumpJson(Json(vectors[i]));
    }
    out += "}";
  }
  out += R"(],"model":)";
  AppendJsonString(model, &out);
  absl::StrAppend(&out, R"(,"usage":{"prompt_tokens":)", tokens, R"(,"total_tokens":)", tokens, "}}");
  return out;
}

}  // namespace noveltygrid
