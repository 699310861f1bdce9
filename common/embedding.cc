#include "common/embedding.h"

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

double CosineSimilarity(const Embedding& a, double a_squared, const Embedding& b, double b_squared) {
  if (a.size() != b.size() || a_squared == 0 || b_squared == 0) return 0.0;
  double ab = 0;
  for (size_t i = 0; i < a.size(); ++i) ab += static_cast<double>(a[i]) * b[i];
  return ab / (std::sqrt(a_squared) * std::sqrt(b_squared));
}

}  // namespace noveltygrid
