#include "common/embedding.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

namespace noveltygrid {

DotProducts ComputeDotProducts(const Embedding& a, const Embedding& b) {
  DotProducts d;
  for (size_t i = 0; i < a.size(); ++i) {
    d.ab += static_cast<double>(a[i]) * b[i];
    d.aa += static_cast<double>(a[i]) * a[i];
    d.bb += static_cast<double>(b[i]) * b[i];
  }
  return d;
}

double CosineSimilarity(const Embedding& a, const Embedding& b) {
  if (a.size() != b.size()) return 0.0;
  const DotProducts d = ComputeDotProducts(a, b);
  if (d.aa == 0 || d.bb == 0) return 0.0;
  return d.ab / (std::sqrt(d.aa) * std::sqrt(d.bb));
}

double SquaredNorm(const Embedding& v) {
  double sum = 0;
  for (float x : v) sum += static_cast<double>(x) * x;
  return sum;
}

namespace {

// The cosine from the sum a.b and both squared norms: 0 when either vector is all zeros.
double CosineFromDot(double ab, double a_squared, double b_squared) {
  return a_squared == 0 || b_squared == 0 ? 0.0 : ab / (std::sqrt(a_squared) * std::sqrt(b_squared));
}

double Dot(const Embedding& a, const Embedding& b) {
  double ab = 0;
  for (size_t i = 0; i < a.size(); ++i) ab += static_cast<double>(a[i]) * b[i];
  return ab;
}

}  // namespace

double CosineSimilarity(const Embedding& a, double a_squared, const Embedding& b, double b_squared) {
  if (a.size() != b.size()) return 0.0;
  return CosineFromDot(Dot(a, b), a_squared, b_squared);
}

namespace embedding_internal {

void DotFourPortable(const float* c, const float* const e[4], size_t n, double out[4]) {
  double ab0 = 0, ab1 = 0, ab2 = 0, ab3 = 0;
  for (size_t k = 0; k < n; ++k) {
    const double ck = c[k];
    ab0 += ck * e[0][k];
    ab1 += ck * e[1][k];
    ab2 += ck * e[2][k];
    ab3 += ck * e[3][k];
  }
  out[0] = ab0, out[1] = ab1, out[2] = ab2, out[3] = ab3;
}

#if defined(__x86_64__) && defined(__GNUC__)
// The four sums in the four lanes of one register: element k of the four vectors, transposed out of
// four loads, is widened to double, multiplied by c[k] and added, lane by lane in index order -- the
// portable kernel's operations in its order (no fused multiply-add), so the same bits.
__attribute__((target("avx"))) inline __m256d AddProducts(__m256d acc, float ck, __m128 column) {
  return _mm256_add_pd(acc, _mm256_mul_pd(_mm256_set1_pd(static_cast<double>(ck)), _mm256_cvtps_pd(column)));
}

__attribute__((target("avx"))) void DotFourAvx(const float* c, const float* const e[4], size_t n, double out[4]) {
  __m256d acc = _mm256_setzero_pd();
  size_t k = 0;
  for (; k + 4 <= n; k += 4) {
    __m128 r0 = _mm_loadu_ps(e[0] + k), r1 = _mm_loadu_ps(e[1] + k);
    __m128 r2 = _mm_loadu_ps(e[2] + k), r3 = _mm_loadu_ps(e[3] + k);
    _MM_TRANSPOSE4_PS(r0, r1, r2, r3);  // r0 = element k of each vector, r1 = element k + 1, ...
    acc = AddProducts(acc, c[k], r0);
    acc = AddProducts(acc, c[k + 1], r1);
    acc = AddProducts(acc, c[k + 2], r2);
    acc = AddProducts(acc, c[k + 3], r3);
  }
  for (; k < n; ++k) acc = AddProducts(acc, c[k], _mm_setr_ps(e[0][k], e[1][k], e[2][k], e[3][k]));
  _mm256_storeu_pd(out, acc);
}

bool CpuHasAvx() {
  static const bool has = __builtin_cpu_supports("avx");
  return has;
}
#else
void DotFourAvx(const float* c, const float* const e[4], size_t n, double out[4]) { DotFourPortable(c, e, n, out); }
bool CpuHasAvx() { return false; }
#endif

}  // namespace embedding_internal

namespace {

using DotFourKernel = void (*)(const float*, const float* const*, size_t, double*);
DotFourKernel DotFour() {
  return embedding_internal::CpuHasAvx() ? embedding_internal::DotFourAvx : embedding_internal::DotFourPortable;
}

// The largest cosine of candidate to earlier[0, end), -1 when end is 0, folded in index order: four
// vectors at a time while their sizes match the candidate's, then one at a time.
double FoldCosines(const Embedding& candidate, double candidate_squared, const std::vector<Embedding>& earlier,
                   const std::vector<double>& earlier_squared, size_t end) {
  double best = -1.0;
  const size_t n = candidate.size();
  const auto dot_four = DotFour();
  size_t i = 0;
  for (; i + 4 <= end; i += 4) {
    if (earlier[i].size() != n || earlier[i + 1].size() != n || earlier[i + 2].size() != n ||
        earlier[i + 3].size() != n) {
      break;  // the rest one at a time
    }
    const float* const block[4] = {earlier[i].data(), earlier[i + 1].data(), earlier[i + 2].data(),
                                   earlier[i + 3].data()};
    double ab[4];
    dot_four(candidate.data(), block, n, ab);
    for (size_t j = 0; j < 4; ++j)
      best = std::max(best, CosineFromDot(ab[j], candidate_squared, earlier_squared[i + j]));
  }
  for (; i < end; ++i) {
    best = std::max(best, CosineSimilarity(candidate, candidate_squared, earlier[i], earlier_squared[i]));
  }
  return best;
}

}  // namespace

double MaxCosineSimilarity(const Embedding& candidate, double candidate_squared, const std::vector<Embedding>& earlier,
                           const std::vector<double>& earlier_squared) {
  return FoldCosines(candidate, candidate_squared, earlier, earlier_squared, earlier.size());
}

CandidateCosines MaxCosineAndSquaredNorm(const Embedding& candidate, const std::vector<Embedding>& earlier,
                                         const std::vector<double>& earlier_squared) {
  const size_t n = candidate.size();
  const size_t whole = earlier.size() / 4 * 4;  // the earlier vectors in whole blocks of four
  for (size_t i = whole; i < earlier.size(); ++i) {
    if (earlier[i].size() != n) {
      const double squared = SquaredNorm(candidate);
      return {MaxCosineSimilarity(candidate, squared, earlier, earlier_squared), squared};
    }
  }
  // The last block: the 0-3 vectors after the whole blocks, then the candidate itself (its lane sums
  // what SquaredNorm sums, in the same order), the spare lanes the candidate again.
  const size_t rest = earlier.size() - whole;
  const float* block[4];
  for (size_t j = 0; j < 4; ++j) block[j] = j < rest ? earlier[whole + j].data() : candidate.data();
  double ab[4];
  DotFour()(candidate.data(), block, n, ab);
  CandidateCosines out{-1.0, ab[rest]};
  out.max_cosine = FoldCosines(candidate, out.squared, earlier, earlier_squared, whole);
  for (size_t j = 0; j < rest; ++j) {  // folded last, in index order
    out.max_cosine = std::max(out.max_cosine, CosineFromDot(ab[j], out.squared, earlier_squared[whole + j]));
  }
  return out;
}

}  // namespace noveltygrid
