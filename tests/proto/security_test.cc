// The shared token's checks (proto/security.h): TokenMatches accepts the token alone, whatever the
// length or position of a difference, and LoadToken trims a token file and refuses an empty one.
#include "proto/security.h"

#include <filesystem>
#include <fstream>
#include <string>

#include "gtest/gtest.h"

namespace noveltygrid {
namespace {

TEST(TokenMatchesTest, AcceptsTheTokenItself) {
  EXPECT_TRUE(TokenMatches("s3cret-token", "s3cret-token"));
  const std::string with_nul("ab\0cd", 5);
  EXPECT_TRUE(TokenMatches(with_nul, with_nul));
}

TEST(TokenMatchesTest, RefusesAnEmptyTokenOnEitherSide) {
  EXPECT_FALSE(TokenMatches("", ""));
  EXPECT_FALSE(TokenMatches("", "s3cret-token"));
  EXPECT_FALSE(TokenMatches("s3cret-token", ""));
}

TEST(TokenMatchesTest, RefusesPrefixesAndExtensions) {
  EXPECT_FALSE(TokenMatches("s3cret", "s3cret-token"));
  EXPECT_FALSE(TokenMatches("s3cret-token-and-more", "s3cret-token"));
  EXPECT_FALSE(TokenMatches("s3cret-token ", "s3cret-token"));
}

TEST(TokenMatchesTest, RefusesADifferenceInAnyByteOrBit) {
  const std::string token = "s3cret-token";
  for (size_t i = 0; i < token.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string presented = token;
      presented[i] = static_cast<char>(presented[i] ^ (1 << bit));
      EXPECT_FALSE(TokenMatches(presented, token)) << "byte " << i << " bit " << bit;
    }
  }
  EXPECT_FALSE(TokenMatches(std::string("ab\0cd", 5), std::string("ab\0ce", 5)));
}

TEST(LoadTokenTest, ReadsATokenFileTrimmed) {
  const std::string path = ::testing::TempDir() + "/security_test_token";
  std::ofstream(path) << "  s3cret-token\n";
  absl::StatusOr<std::string> token = LoadToken(path);
  ASSERT_TRUE(token.ok()) << token.status();
  EXPECT_EQ(*token, "s3cret-token");

  std::ofstream(path) << " \n";
  token = LoadToken(path);
  EXPECT_EQ(token.status().code(), absl::StatusCode::kFailedPrecondition) << token.status();
  EXPECT_NE(token.status().message().find(path), std::string::npos) << token.status();
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace noveltygrid
