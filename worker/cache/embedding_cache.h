// EmbeddingCache: embeddings shared by every worker through the Store, so that the same text is
// embedded once per sweep (and across sweeps) whoever needs it.
//
// Key: (embedder id, dimensions, exact text) -- the text enters as a 128-bit hash, see
// common/storage/keys.h; value: the float32 vector. A store failure never fails the caller: lookups
// then miss, writes are dropped, and StoreGuard prints one warning. A value that is not such a vector
// (another size, a non-finite number, a key of another type) is a miss, overwritten after embedding.
// Thread-safe.
#ifndef NOVELTYGRID_WORKER_CACHE_EMBEDDING_CACHE_H_
#define NOVELTYGRID_WORKER_CACHE_EMBEDDING_CACHE_H_

#include <optional>
#include <string>

#include "common/storage/store.h"
#include "common/storage/store_guard.h"
#include "worker/models/model.h"

namespace noveltygrid {

class EmbeddingCache {
 public:
  explicit EmbeddingCache(Store* store) : store_(store), guard_("embedding cache") {}

  std::optional<Embedding> Get(const std::string& embedder, int dimensions, const std::string& text);
  void Put(const std::string& embedder, int dimensions, const std::string& text, const Embedding& embedding);

  static std::string Key(const std::string& embedder, int dimensions, const std::string& text);

 private:
  Store* const store_;  // not owned
  StoreGuard guard_;
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_WORKER_CACHE_EMBEDDING_CACHE_H_
