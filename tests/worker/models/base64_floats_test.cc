// The base64 float32 decoder: the AVX2 kernel against the portable one (every byte value at every
// position of a 32-character block, random texts of every length), and the whole decoder against
// absl's base64 on canonical and broken embeddings.
#include "worker/models/base64_floats.h"

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "gtest/gtest.h"

namespace noveltygrid {
namespace {

using base64_internal::CpuHasAvx2;
using base64_internal::DecodeGroupsAvx2;
using base64_internal::DecodeGroupsPortable;

std::string RandomBase64(std::mt19937& random, size_t chars) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string text(chars, 'A');
  for (char& c : text) c = kAlphabet[random() % 64];
  return text;
}

// Both kernels on `text`: the same answer, on success the same bytes, and nothing written past the
// decoded size (the buffers have 32 guard bytes after it).
void ExpectKernelsAgree(const std::string& text) {
  constexpr size_t kGuard = 32;
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const size_t size = text.size() / 4 * 3;
  std::vector<unsigned char> portable(size + kGuard, 0xAA), avx2(size + kGuard, 0xAA);
  const bool a = DecodeGroupsPortable(s, text.size(), portable.data());
  const bool b = DecodeGroupsAvx2(s, text.size(), avx2.data());
  ASSERT_EQ(a, b) << text;
  if (a) {
    ASSERT_EQ(portable, avx2) << text;
  }
  for (size_t i = size; i < size + kGuard; ++i) ASSERT_EQ(avx2[i], 0xAA) << "written past the end: " << text;
}

TEST(Base64FloatsTest, KernelsAgreeOnEveryByteAtEveryPositionOfABlock) {
  if (!CpuHasAvx2()) GTEST_SKIP() << "no AVX2 on this CPU: only the portable kernel runs";
  std::mt19937 random(3);
  for (int position = 0; position < 64; ++position) {  // two blocks: both halves of each lane
    for (int byte = 0; byte < 256; ++byte) {
      std::string text = RandomBase64(random, 64);
      text[position] = static_cast<char>(byte);
      ExpectKernelsAgree(text);
      if (HasFatalFailure()) return;
    }
  }
}

TEST(Base64FloatsTest, KernelsAgreeOnRandomTextsOfEveryLength) {
  if (!CpuHasAvx2()) GTEST_SKIP() << "no AVX2 on this CPU: only the portable kernel runs";
  std::mt19937 random(4);
  for (size_t groups = 0; groups <= 80; ++groups) {
    for (int round = 0; round < 20; ++round) {
      ExpectKernelsAgree(RandomBase64(random, groups * 4));
      if (HasFatalFailure()) return;
    }
  }
}

TEST(Base64FloatsTest, DecodesAsAbslOnCanonicalEmbeddings) {
  std::mt19937 random(5);
  for (size_t count = 1; count <= 70; ++count) {
    std::vector<float> values(count);
    for (float& v : values) v = std::uniform_real_distribution<float>(-3.0f, 3.0f)(random);
    std::string bytes(count * sizeof(float), '\0');
    std::memcpy(bytes.data(), values.data(), bytes.size());
    const std::string text = absl::Base64Escape(bytes);  // padded, as providers send it
    Embedding out;
    ASSERT_TRUE(DecodeCanonicalBase64Floats(text, &out)) << count;
    EXPECT_EQ(out, values) << count;
  }
}

TEST(Base64FloatsTest, RefusesWhatIsNotCanonicalBase64OfFloats) {
  Embedding out;
  const std::string one = absl::Base64Escape(std::string("\x00\x00\x80\x3F", 4));  // 1.0f: "AACAPw=="
  ASSERT_TRUE(DecodeCanonicalBase64Floats(one, &out));
  EXPECT_EQ(out, (std::vector<float>{1.0f}));
  EXPECT_FALSE(DecodeCanonicalBase64Floats("", &out));
  EXPECT_FALSE(DecodeCanonicalBase64Floats("AACAPw=", &out));   // not a multiple of 4
  EXPECT_FALSE(DecodeCanonicalBase64Floats("AACAPx==", &out));  // padding bits set
  EXPECT_FALSE(DecodeCanonicalBase64Floats("AACA", &out));      // 3 bytes: not whole floats
  EXPECT_FALSE(DecodeCanonicalBase64Floats("AAC APw=", &out));  // a space
  // A bad character deep inside a long text (the vector kernel's part), and in its tail.
  std::mt19937 random(6);
  std::string bytes(400, '\0');
  for (char& b : bytes) b = static_cast<char>(random());
  const std::string text = absl::Base64Escape(bytes);
  ASSERT_TRUE(DecodeCanonicalBase64Floats(text, &out));
  for (size_t at : {size_t{5}, size_t{40}, text.size() - 6}) {
    std::string broken = text;
    broken[at] = '*';
    EXPECT_FALSE(DecodeCanonicalBase64Floats(broken, &out)) << at;
  }
}

}  // namespace
}  // namespace noveltygrid
