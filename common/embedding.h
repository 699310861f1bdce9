// Embedding vectors and their cosine similarity: what an embedder returns, what the AidanBench loop
// measures novelty with, what leases and checkpoints carry, and what the embedding partitioner compares.
// Plain values and pure functions; thread-safe.
#ifndef NOVELTYGRID_COMMON_EMBEDDING_H_
#define NOVELTYGRID_COMMON_EMBEDDING_H_

#include <cstddef>
#include <vector>

namespace noveltygrid {

using Embedding = std::vector<float>;

// The three sums a cosine is made of, accumulated in double in index order: a.b, a.a and b.b. Both
// vectors must have the same size.
struct DotProducts {
  double ab = 0;
  double aa = 0;
  double bb = 0;
};
DotProducts ComputeDotProducts(const Embedding& a, const Embedding& b);

// Cosine similarity of two vectors (accumulated in double); 0 when their sizes differ or either is
// all zeros.
double CosineSimilarity(const Embedding& a, const Embedding& b);

// The sum of v[i]^2, accumulated in double in order: ComputeDotProducts' aa, to the bit.
double SquaredNorm(const Embedding& v);
// CosineSimilarity(a, b) with both vectors' SquaredNorm known: one product per element instead of
// three, and the same result to the bit.
double CosineSimilarity(const Embedding& a, double a_squared, const Embedding& b, double b_squared);

// The largest CosineSimilarity(candidate, candidate_squared, earlier[i], earlier_squared[i]) over i, -1
// when `earlier` is empty; the same value to the bit. It takes four earlier vectors at a time, each
// with its own sum in the same order, so that four additions are in flight instead of one chain (in
// one AVX register where the CPU has AVX).
double MaxCosineSimilarity(const Embedding& candidate, double candidate_squared, const std::vector<Embedding>& earlier,
                           const std::vector<double>& earlier_squared);

// What the AidanBench loop needs of a new embedding: its MaxCosineSimilarity to the earlier ones and its
// own SquaredNorm (kept for the next iterations), both to the bit. The squared norm rides in a spare lane
// of the last block of four (the candidate against itself), so the whole measure is ceil((earlier + 1) /
// 4) passes of the four-lane kernel.
struct CandidateCosines {
  double max_cosine = -1.0;  // -1 when `earlier` is empty
  double squared = 0;
};
CandidateCosines MaxCosineAndSquaredNorm(const Embedding& candidate, const std::vector<Embedding>& earlier,
                                         const std::vector<double>& earlier_squared);

// MaxCosineSimilarity's kernels, for tests: out[j] = the sum over k < n of double(c[k]) * e[j][k], in
// index order. DotFourAvx only where CpuHasAvx() (elsewhere it is the portable one); both give the
// same bits.
namespace embedding_internal {
void DotFourPortable(const float* c, const float* const e[4], size_t n, double out[4]);
void DotFourAvx(const float* c, const float* const e[4], size_t n, double out[4]);
bool CpuHasAvx();
}  // namespace embedding_internal

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COMMON_EMBEDDING_H_
