// Embedding vectors' cosines (common/embedding.h).
#include "common/embedding.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "common/hashing.h"
#include "gtest/gtest.h"

namespace noveltygrid {
namespace {

// MaxCosineSimilarity, four vectors at a time, gives the bits a loop over CosineSimilarity gives, for
// every count (whole blocks of four and the rest), with a zero vector and vectors of another size inside
// the first block or a later one (their cosine is 0, and the rest are still compared).
TEST(MaxCosineSimilarity, BlocksOfFourGiveTheBitsOfOneAtATime) {
  uint64_t state = 7;
  auto next = [&state] { return static_cast<float>(static_cast<int64_t>(Mix64(++state) % 2001) - 1000) / 991.0f; };
  auto random = [&](size_t size) {
    Embedding e(size);
    for (float& x : e) x = next();
    return e;
  };
  const Embedding candidate = random(257);
  const double candidate_squared = SquaredNorm(candidate);
  for (size_t count = 0; count <= 13; ++count) {
    for (int variant = 0; variant < 4; ++variant) {
      std::vector<Embedding> earlier;
      for (size_t i = 0; i < count; ++i) earlier.push_back(random(257));
      if (variant == 1 && count > 2) earlier[2].assign(257, 0.0f);
      if (variant == 2 && count > 1) earlier[1] = random(256);
      if (variant == 3 && count > 5) earlier[5] = random(258);  // in the second block
      std::vector<double> squared;
      for (const Embedding& e : earlier) squared.push_back(SquaredNorm(e));
      double expected = -1.0;
      for (size_t i = 0; i < count; ++i) {
        expected = std::max(expected, CosineSimilarity(candidate, candidate_squared, earlier[i], squared[i]));
      }
      EXPECT_EQ(MaxCosineSimilarity(candidate, candidate_squared, earlier, squared), expected)  // exact
          << count << " vectors, variant " << variant;
    }
  }
  // The most similar vector is found wherever it is (here in the second block).
  std::vector<Embedding> earlier(9, random(257));
  earlier[6] = candidate;
  std::vector<double> squared;
  for (const Embedding& e : earlier) squared.push_back(SquaredNorm(e));
  EXPECT_NEAR(MaxCosineSimilarity(candidate, candidate_squared, earlier, squared), 1.0, 1e-12);
}

}  // namespace
}  // namespace noveltygrid
