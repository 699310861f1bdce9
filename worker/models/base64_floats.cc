#include "worker/models/base64_floats.h"

#include <array>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace noveltygrid {
namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// Each byte's 6-bit value, -1 outside the alphabet.
constexpr std::array<int8_t, 256> kValue = [] {
  std::array<int8_t, 256> table{};
  table.fill(-1);
  for (int i = 0; i < 64; ++i) table[static_cast<unsigned char>(kAlphabet[i])] = static_cast<int8_t>(i);
  return table;
}();

}  // namespace

namespace base64_internal {

bool DecodeGroupsPortable(const unsigned char* s, size_t n, unsigned char* out) {
  for (size_t i = 0; i < n; i += 4) {
    const int32_t a = kValue[s[i]], b = kValue[s[i + 1]], c = kValue[s[i + 2]], d = kValue[s[i + 3]];
    if ((a | b | c | d) < 0) return false;
    const uint32_t group = static_cast<uint32_t>(a << 18 | b << 12 | c << 6 | d);
    *out++ = static_cast<unsigned char>(group >> 16);
    *out++ = static_cast<unsigned char>(group >> 8);
    *out++ = static_cast<unsigned char>(group);
  }
  return true;
}

#if defined(__x86_64__)
namespace {

// The alphabet checked 32 bytes at a time by two table lookups, on the high and the low nibble of each
// byte. A byte's high nibble puts it in a class: 2 ('+' and '/' among punctuation), 3 (digits), 4 and 6
// (letters A-O, a-o), 5 and 7 (P-Z, p-z) -- two rows with the same valid low nibbles share a class --
// and every other row in an always-invalid class. kLowInvalid[low] holds the classes in which that low
// nibble is invalid, so a byte is outside the alphabet exactly when the two lookups share a bit.
constexpr uint8_t kAlways = 0x10;
constexpr std::array<uint8_t, 16> kClass = {kAlways, kAlways, 0x01,    0x02,    0x04,    0x08,    0x04,    0x08,
                                            kAlways, kAlways, kAlways, kAlways, kAlways, kAlways, kAlways, kAlways};
alignas(16) constexpr std::array<uint8_t, 16> kHighClass = kClass;
alignas(16) constexpr std::array<uint8_t, 16> kLowInvalid = [] {
  std::array<uint8_t, 16> table{};
  for (int low = 0; low < 16; ++low) {
    table[low] = kAlways;
    for (int row = 2; row <= 5; ++row) {
      if (kValue[row << 4 | low] < 0) table[low] |= kClass[row];
    }
  }
  return table;
}();
// What to add to a valid byte for its value, by its high nibble (and at 1 for '/', the one byte of row 2
// besides '+' -- found by its own compare).
alignas(16) constexpr std::array<int8_t, 16> kShift = {
    0, 63 - '/', 62 - '+', 52 - '0', 0 - 'A', 0 - 'A', 26 - 'a', 26 - 'a', 0, 0, 0, 0, 0, 0, 0, 0};

__attribute__((target("avx2"))) __m256i Both(const void* table16) {
  return _mm256_broadcastsi128_si256(_mm_load_si128(static_cast<const __m128i*>(table16)));
}

}  // namespace

__attribute__((target("avx2"))) bool DecodeGroupsAvx2(const unsigned char* s, size_t n, unsigned char* out) {
  const __m256i high_class = Both(kHighClass.data());
  const __m256i low_invalid = Both(kLowInvalid.data());
  const __m256i shift = Both(kShift.data());
  const __m256i nibble = _mm256_set1_epi8(0x0F);
  const __m256i slash = _mm256_set1_epi8('/');
  // Per 128-bit lane, the 3 bytes of each 32-bit group (most significant first), then the lanes' 12
  // bytes side by side.
  const __m256i order = _mm256_setr_epi8(2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1,  //
                                         2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1);
  const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 3, 7);
  size_t i = 0;
  for (; i + 32 <= n; i += 32, out += 24) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i));
    const __m256i high = _mm256_and_si256(_mm256_srli_epi32(v, 4), nibble);
    const __m256i low = _mm256_and_si256(v, nibble);
    const __m256i bad = _mm256_and_si256(_mm256_shuffle_epi8(high_class, high), _mm256_shuffle_epi8(low_invalid, low));
    if (!_mm256_testz_si256(bad, bad)) return false;
    // '/' is 0xFF in the compare: its row (2) less one picks its own shift.
    const __m256i values =
        _mm256_add_epi8(v, _mm256_shuffle_epi8(shift, _mm256_add_epi8(high, _mm256_cmpeq_epi8(v, slash))));
    // Pairs of 6-bit values into 12 bits (the first one high), pairs of those into 24.
    const __m256i twelve = _mm256_maddubs_epi16(values, _mm256_set1_epi32(0x01400140));
    const __m256i groups = _mm256_madd_epi16(twelve, _mm256_set1_epi32(0x00011000));
    const __m256i packed = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(groups, order), lanes);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm256_castsi256_si128(packed));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(out + 16), _mm256_extracti128_si256(packed, 1));
  }
  return DecodeGroupsPortable(s + i, n - i, out);
}

bool CpuHasAvx2() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}
#else
bool DecodeGroupsAvx2(const unsigned char* s, size_t n, unsigned char* out) { return DecodeGroupsPortable(s, n, out); }
bool CpuHasAvx2() { return false; }
#endif

}  // namespace base64_internal

bool DecodeCanonicalBase64Floats(absl::string_view text, Embedding* out) {
  const size_t n = text.size();
  if (n == 0 || n % 4 != 0) return false;
  const size_t padding = text[n - 1] != '=' ? 0 : text[n - 2] != '=' ? 1 : 2;
  const size_t size = n / 4 * 3 - padding;
  if (size == 0 || size % sizeof(float) != 0) return false;
  out->resize(size / sizeof(float));
  auto* bytes = reinterpret_cast<unsigned char*>(out->data());
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const size_t whole = padding == 0 ? n : n - 4;  // the last group decoded apart when padded
  const bool decoded = base64_internal::CpuHasAvx2() ? base64_internal::DecodeGroupsAvx2(s, whole, bytes)
                                                     : base64_internal::DecodeGroupsPortable(s, whole, bytes);
  if (!decoded) return false;
  size_t o = whole / 4 * 3;
  if (padding > 0) {
    const size_t i = n - 4;
    const int32_t a = kValue[s[i]], b = kValue[s[i + 1]], c = padding == 2 ? 0 : kValue[s[i + 2]];
    if ((a | b | c) < 0) return false;
    const uint32_t group = static_cast<uint32_t>(a << 18 | b << 12 | c << 6);
    if ((group & (padding == 2 ? 0xFFFFu : 0xFFu)) != 0) return false;  // padding bits must be zero
    bytes[o++] = static_cast<unsigned char>(group >> 16);
    if (padding == 1) bytes[o++] = static_cast<unsigned char>(group >> 8);
  }
  return o == size;
}

}  // namespace noveltygrid
