#include "sim_server/embedding_json.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "common/json_util.h"
#include "gtest/gtest.h"

namespace noveltygrid {
namespace {

// The tree serve-sim used to build and dump for the same reply.
std::string DumpedTree(const std::vector<Embedding>& vectors, bool base64, const std::string& model, int64_t tokens) {
  Json data = Json::array();
  for (size_t i = 0; i < vectors.size(); ++i) {
    Json embedding = base64 ? Json(Base64Floats(vectors[i])) : Json(vectors[i]);
    data.push_back({{"object", "embedding"}, {"index", i}, {"embedding", std::move(embedding)}});
  }
  return DumpJson(Json{{"object", "list"},
                       {"data", std::move(data)},
                       {"model", model},
                       {"usage", {{"prompt_tokens", tokens}, {"total_tokens", tokens}}}});
}

// OpenAI's base64 embeddings: the float32 values' little-endian bytes, in base64 -- spelled out byte by byte.
TEST(EmbeddingJsonTest, Base64FloatsAreTheLittleEndianBytesOfEachFloat) {
  for (int n : {0, 1, 2, 3, 4, 255, 256, 1536}) {
    Embedding v(n);
    for (int i = 0; i < n; ++i) v[i] = std::cos(0.91f * static_cast<float>(i)) * static_cast<float>(i % 7 - 3);
    if (n >= 4) {
      v[0] = -0.0f;
      v[1] = std::numeric_limits<float>::quiet_NaN();
      v[2] = std::numeric_limits<float>::denorm_min();
      v[3] = -std::numeric_limits<float>::infinity();
    }
    std::string bytes;
    for (float value : v) {
      const uint32_t bits = std::bit_cast<uint32_t>(value);
      for (int shift = 0; shift < 32; shift += 8) bytes.push_back(static_cast<char>((bits >> shift) & 0xff));
    }
    EXPECT_EQ(Base64Floats(v), absl::Base64Escape(bytes)) << n;
  }
}

TEST(EmbeddingJsonTest, ListIsWhatNlohmannDumps) {
  std::vector<Embedding> vectors;
  for (int n : {0, 1, 2, 3, 7, 256}) {
    Embedding v(n);
    for (int i = 0; i < n; ++i) v[i] = std::sin(0.37f * static_cast<float>(i + n)) * 1e3f;
    vectors.push_back(v);
  }
  vectors.push_back({-0.0f, std::numeric_limits<float>::denorm_min(), std::numeric_limits<float>::max()});
  for (const std::string model : {"lexical", "lexical-7", "odd \"model\"\n\\ \u00e9"}) {
    for (size_t count : {size_t{0}, size_t{1}, vectors.size()}) {
      const std::vector<Embedding> some(vectors.begin(), vectors.begin() + count);
      for (bool base64 : {true, false}) {
        EXPECT_EQ(RenderEmbeddingList(some, base64, model, 41), DumpedTree(some, base64, model, 41))
            << model << " " << count << " base64 " << base64;
      }
    }
  }
}

TEST(EmbeddingJsonTest, Base64IsLittleEndianFloat32) {
  // 1.0f = 0x3f800000 -> bytes 00 00 80 3f; 2.0f = 0x40000000 -> 00 00 00 40.
  EXPECT_EQ(Base64Floats({1.0f, 2.0f}), "AACAPwAAAEA=");
  EXPECT_EQ(Base64Floats({}), "");
}

}  // namespace
}  // namespace noveltygrid
