#include "sim_server/embedding_json.h"

#include <bit>
#include <cstdint>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "common/json_util.h"

namespace noveltygrid {

std::string Base64Floats(const Embedding& vector) {
  std::string bytes;
  bytes.reserve(vector.size() * 4);
  for (float value : vector) {
    const uint32_t bits = std::bit_cast<uint32_t>(value);
    for (int shift = 0; shift < 32; shift += 8) bytes.push_back(static_cast<char>((bits >> shift) & 0xff));
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
