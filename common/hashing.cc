#include "common/hashing.h"

#include <cstring>

#include "absl/strings/str_format.h"

namespace noveltygrid {

uint64_t Mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

namespace {
uint64_t Fnv1a(uint64_t state, std::string_view bytes) {
  for (unsigned char c : bytes) {
    state ^= c;
    state *= 0x100000001b3ull;
  }
  return state;
}
}  // namespace

uint64_t StableHash(std::string_view bytes) { return Mix64(Fnv1a(0xcbf29ce484222325ull, bytes)); }

StableHasher& StableHasher::Add(std::string_view field) {
  Add(static_cast<uint64_t>(field.size()));
  state_ = Fnv1a(state_, field);
  return *this;
}

StableHasher& StableHasher::Add(uint64_t value) {
  char bytes[8];
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>((value >> (8 * i)) & 0xff);
  state_ = Fnv1a(state_, std::string_view(bytes, 8));
  return *this;
}

StableHasher& StableHasher::Add(double value) {
  if (value == 0.0) value = 0.0;
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return Add(bits);
}

uint64_t StableHasher::Finish() const { return Mix64(state_); }

std::string HexId(uint64_t value) { return absl::StrFormat("%016x", value); }

}  // namespace noveltygrid

namespace noveltygrid {

uint64_t RepeatSeed(uint64_t seed, int repeat) {
  if (repeat == 0) return seed;
  return StableHasher().Add("repeat-seed").Add(seed).Add(static_cast<uint64_t>(repeat)).Finish();
}

std::string RepeatUnitId(const std::string& base_id, int repeat) {
  if (repeat == 0) return base_id;
  return HexId(StableHasher().Add("repeat").Add(base_id).Add(static_cast<uint64_t>(repeat)).Finish());
}

}  // namespace noveltygrid
