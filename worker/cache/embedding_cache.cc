#include "worker/cache/embedding_cache.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "common/hashing.h"

namespace noveltygrid {

std::string EmbeddingCache::Key(const std::string& embedder, int dimensions, const std::string& text) {
  // Two independent 64-bit hashes: collisions are out of reach at any realistic cache size.
  const uint64_t a = StableHasher().Add(std::string_view("emb-a")).Add(text).Finish();
  const uint64_t b = StableHasher().Add(std::string_view("emb-b")).Add(text).Finish();
  return absl::StrCat("ng:emb:", embedder, ":", dimensions, ":", HexId(a), HexId(b));
}

std::optional<Embedding> EmbeddingCache::Get(const std::string& embedder, int dimensions, const std::string& text) {
  if (!guard_.Allow()) return std::nullopt;
  absl::StatusOr<std::optional<std::string>> value = store_->Get(Key(embedder, dimensions, text));
  guard_.Record(value.status());
  if (!value.ok() || !value->has_value()) return std::nullopt;
  const std::string& bytes = **value;
  // Not a vector of this embedder's size: treat as a miss (and overwrite it after embedding).
  // (dimensions 0: the provider's native size, whatever it is.)
  const bool fits = dimensions > 0 ? bytes.size() == static_cast<size_t>(dimensions) * sizeof(float)
                                   : !bytes.empty() && bytes.size() % sizeof(float) == 0;
  if (!fits) return std::nullopt;
  Embedding embedding(bytes.size() / sizeof(float));
  std::memcpy(embedding.data(), bytes.data(), bytes.size());
  // Bytes of the right size that are not a vector an embedder returns (NaN, infinities: a foreign
  // value under our key) are a miss too, rather than a novelty score of NaN.
  if (!std::all_of(embedding.begin(), embedding.end(), [](float x) { return std::isfinite(x); })) return std::nullopt;
  return embedding;
}

void EmbeddingCache::Put(const std::string& embedder, int dimensions, const std::string& text,
                         const Embedding& embedding) {
  if (!guard_.Allow()) return;
  std::string bytes(embedding.size() * sizeof(float), '\0');
  std::memcpy(bytes.data(), embedding.data(), bytes.size());
  guard_.Record(store_->Set(Key(embedder, dimensions, text), bytes));
}

}  // namespace noveltygrid
