// Stable hashing: the same bytes give the same 64-bit value on every machine and build.
//
// Unit ids, simulated-model randomness and cache keys are all derived from these functions, so they
// must never change for existing inputs (results files and Redis keys depend on them).
#ifndef NOVELTYGRID_COMMON_HASHING_H_
#define NOVELTYGRID_COMMON_HASHING_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace noveltygrid {

// FNV-1a 64 over the bytes, finished with a SplitMix64 avalanche.
uint64_t StableHash(std::string_view bytes);

// Hashes several fields with length prefixes, so ("ab","c") and ("a","bc") differ.
class StableHasher {
 public:
  StableHasher& Add(std::string_view field);
  StableHasher& Add(uint64_t value);
  StableHasher& Add(double value);  // by bit pattern; -0.0 is folded into 0.0
  uint64_t Finish() const;

 private:
  uint64_t state_ = 0xcbf29ce484222325ull;
};

// SplitMix64 step: a good 64-bit mixer, also used as a tiny deterministic RNG.
uint64_t Mix64(uint64_t x);

// The seed a unit of repeat `repeat` runs with: the sweep seed for repeat 0 (so a sweep without repeats
// is unchanged), else a hash of (seed, repeat).
uint64_t RepeatSeed(uint64_t seed, int repeat);
// The id of repeat `repeat` of the unit whose repeat-0 id is `base_id` (`base_id` itself for 0).
std::string RepeatUnitId(const std::string& base_id, int repeat);

// 16 lowercase hex digits.
std::string HexId(uint64_t value);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COMMON_HASHING_H_
