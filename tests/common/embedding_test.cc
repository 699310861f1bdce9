// Embedding vectors' cosines (common/embedding.h).
#include "common/embedding.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "common/hashing.h"
#include "gtest/gtest.h"

namespace noveltygrid {
namespace {

// MaxCosineSimilarity, four vectors at a time, gives the bits a loop over CosineSimilarity gives, and
// MaxCosineAndSquaredNorm those and SquaredNorm's, for every count (whole blocks of four and the rest), with a zero
// vector and vectors of another size inside the first block or a later one (their cosine is 0, and the rest are still
// compared).
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
      // With the candidate's own squared norm in the last block's spare lane: the same bits, both.
      const CandidateCosines both = MaxCosineAndSquaredNorm(candidate, earlier, squared);
      EXPECT_EQ(both.max_cosine, expected) << count << " vectors, variant " << variant;
      EXPECT_EQ(both.squared, candidate_squared) << count << " vectors, variant " << variant;
    }
  }
  // The most similar vector is found wherever it is (here in the second block).
  std::vector<Embedding> earlier(9, random(257));
  earlier[6] = candidate;
  std::vector<double> squared;
  for (const Embedding& e : earlier) squared.push_back(SquaredNorm(e));
  EXPECT_NEAR(MaxCosineSimilarity(candidate, candidate_squared, earlier, squared), 1.0, 1e-12);
}

// Both kernels give the bits of one sum per vector in index order, for every length (whole groups of
// four elements and the rest), values of many magnitudes included.
TEST(MaxCosineSimilarity, KernelsGiveTheBitsOfOneSumAtATime) {
  uint64_t state = 11;
  auto next = [&state] {
    const uint64_t bits = Mix64(++state);
    const float x = static_cast<float>(static_cast<int64_t>(bits % 2001) - 1000) / 997.0f;
    return x * static_cast<float>(1 << ((bits >> 20) % 24)) / 4096.0f;
  };
  for (size_t n : {0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 255, 256, 257, 1536}) {
    std::vector<float> c(n);
    std::vector<std::vector<float>> e(4, std::vector<float>(n));
    for (float& x : c) x = next();
    for (auto& v : e)
      for (float& x : v) x = next();
    const float* const block[4] = {e[0].data(), e[1].data(), e[2].data(), e[3].data()};
    double expected[4];
    for (int j = 0; j < 4; ++j) {
      double sum = 0;
      for (size_t k = 0; k < n; ++k) sum += static_cast<double>(c[k]) * e[j][k];
      expected[j] = sum;
    }
    double portable[4], avx[4];
    embedding_internal::DotFourPortable(c.data(), block, n, portable);
    for (int j = 0; j < 4; ++j) {
      EXPECT_EQ(portable[j], expected[j]) << "portable, length " << n << ", vector " << j;  // exact
    }
    if (!embedding_internal::CpuHasAvx()) continue;  // its instructions would fault here
    embedding_internal::DotFourAvx(c.data(), block, n, avx);
    for (int j = 0; j < 4; ++j) EXPECT_EQ(avx[j], expected[j]) << "AVX, length " << n << ", vector " << j;
  }
}

}  // namespace
}  // namespace noveltygrid
