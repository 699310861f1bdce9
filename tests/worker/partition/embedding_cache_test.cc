// The embedding cache on the in-memory Store: vectors round-trip, and whatever else a key under
// ng:emb: holds -- bytes of another size, NaN or infinities, a list -- is a miss, never a vector.
#include "worker/cache/embedding_cache.h"

#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "common/storage/memory_store.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace noveltygrid {
namespace {

using ::testing::ElementsAre;

std::string Bytes(const std::vector<float>& values) {
  std::string bytes(values.size() * sizeof(float), '\0');
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

TEST(EmbeddingCacheTest, AVectorRoundTrips) {
  InMemoryStore store;
  EmbeddingCache cache(&store);
  EXPECT_EQ(cache.Get("sim:embed", 3, "text"), std::nullopt);
  cache.Put("sim:embed", 3, "text", {0.25f, -1.0f, 3.5f});
  std::optional<Embedding> got = cache.Get("sim:embed", 3, "text");
  ASSERT_TRUE(got.has_value());
  EXPECT_THAT(*got, ElementsAre(0.25f, -1.0f, 3.5f));
}

TEST(EmbeddingCacheTest, GarbageUnderTheKeyIsAMiss) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const std::string key3 = EmbeddingCache::Key("sim:embed", 3, "text");
  const std::string key0 = EmbeddingCache::Key("sim:embed", 0, "text");  // the provider's native size
  for (const std::string& garbage :
       {std::string("garbage"), std::string(), std::string(13, '\xff'), Bytes({1.0f, nan, 2.0f}), Bytes({inf, 0, 0})}) {
    SCOPED_TRACE(garbage.size());
    InMemoryStore store;
    ASSERT_TRUE(store.Set(key3, garbage).ok());
    ASSERT_TRUE(store.Set(key0, garbage).ok());
    EmbeddingCache cache(&store);
    EXPECT_EQ(cache.Get("sim:embed", 3, "text"), std::nullopt);
    EXPECT_EQ(cache.Get("sim:embed", 0, "text"), std::nullopt);
  }
  InMemoryStore store;
  ASSERT_TRUE(store.ListAppend(key3, Bytes({1, 2, 3})).ok());  // a key of another type
  EmbeddingCache cache(&store);
  EXPECT_EQ(cache.Get("sim:embed", 3, "text"), std::nullopt);
}

}  // namespace
}  // namespace noveltygrid
