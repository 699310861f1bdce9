#include "common/embedding.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

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

double MaxCosineSimilarity(const Embedding& candidate, double candidate_squared, const std::vector<Embedding>& earlier,
                           const std::vector<double>& earlier_squared) {
  const size_t n = candidate.size();
  double best = -1.0;
  // Folded in index order, as a loop over CosineSimilarity would.
  auto fold = [&](size_t i, double ab) {
    best = std::max(best, CosineFromDot(ab, candidate_squared, earlier_squared[i]));
  };
  size_t i = 0;
  for (; i + 4 <= earlier.size(); i += 4) {
    const float* e0 = earlier[i].data();
    const float* e1 = earlier[i + 1].data();
    const float* e2 = earlier[i + 2].data();
    const float* e3 = earlier[i + 3].data();
    if (earlier[i].size() != n || earlier[i + 1].size() != n || earlier[i + 2].size() != n ||
        earlier[i + 3].size() != n) {
      break;  // the rest one at a time
    }
    double ab0 = 0, ab1 = 0, ab2 = 0, ab3 = 0;
    for (size_t k = 0; k < n; ++k) {
      const double c = candidate[k];
      ab0 += c * e0[k];
      ab1 += c * e1[k];
      ab2 += c * e2[k];
      ab3 += c * e3[k];
    }
    fold(i, ab0);
    fold(i + 1, ab1);
    fold(i + 2, ab2);
    fold(i + 3, ab3);
  }
  for (; i < earlier.size(); ++i) {
    best = std::max(best, CosineSimilarity(candidate, candidate_squared, earlier[i], earlier_squared[i]));
  }
  return best;
}

}  // namespace noveltygrid
