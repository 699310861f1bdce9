// SimRng: the tiny deterministic random source of the simulated model family.
//
// Built on Mix64 (SplitMix64) only, with no std:: distributions, so a given seed produces the same
// stream on every platform, compiler and standard library: simulated answers, and therefore results
// files, are byte-identical everywhere. Uniform() uses only exact integer-to-double conversion.
//
// Not thread-safe; each sample owns its own SimRng.
#ifndef NOVELTYGRID_WORKER_SIM_SIM_RANDOM_H_
#define NOVELTYGRID_WORKER_SIM_SIM_RANDOM_H_

#include <cstdint>

#include "common/hashing.h"

namespace noveltygrid::sim {

class SimRng {
 public:
  explicit SimRng(uint64_t seed) : state_(Mix64(seed)) {}

  uint64_t Next() {
    state_ += 0x9e3779b97f4a7c15ull;
    return Mix64(state_);
  }
  // Uniform in [0, 1), 53 random bits.
  double Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }
  // Uniform in [0, n); n must be positive. The modulo bias is below 2^-40 for the n used here.
  uint64_t Below(uint64_t n) { return Next() % n; }
  bool Chance(double p) { return Uniform() < p; }

 private:
  uint64_t state_;
};

}  // namespace noveltygrid::sim

#endif  // NOVELTYGRID_WORKER_SIM_SIM_RANDOM_H_
