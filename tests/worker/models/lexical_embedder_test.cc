#include "worker/models/lexical_embedder.h"

#include <cmath>

#include "gtest/gtest.h"
#include "sim_test_util.h"

namespace noveltygrid {
namespace {

using simtest::Cosine;
using simtest::QueueExecutor;

double Norm(const Embedding& v) {
  double s = 0;
  for (float x : v) s += double(x) * x;
  return std::sqrt(s);
}

TEST(LexicalWordsTest, LowercasesAndSplitsOnAsciiPunctuation) {
  EXPECT_EQ(LexicalWords("Hello, World! it's 42-fold"),
            (std::vector<std::string>{"hello", "world", "it", "s", "42", "fold"}));
  // Bytes >= 0x80 are word characters: UTF-8 words stay whole.
  EXPECT_EQ(LexicalWords("Caf\xC3\xA9 na\xC3\xAFve"), (std::vector<std::string>{"caf\xC3\xA9", "na\xC3\xAFve"}));
  EXPECT_TRUE(LexicalWords(" ,.;  ").empty());
}

TEST(LexicalEmbedderTest, NormalisedDeterministicAndCaseInsensitive) {
  QueueExecutor executor;
  LexicalEmbedder embedder(256, &executor);
  Embedding a = embedder.EmbedOne("The quiet garden protects the brick.");
  EXPECT_EQ(a.size(), 256u);
  EXPECT_NEAR(Norm(a), 1.0, 1e-6);
  EXPECT_EQ(a, embedder.EmbedOne("the QUIET garden, protects the brick"));
  EXPECT_EQ(a, LexicalEmbedder(256, &executor).EmbedOne("The quiet garden protects the brick."));
}

TEST(LexicalEmbedderTest, EmptyAndStopwordOnlyTextsGiveZeroVector) {
  QueueExecutor executor;
  LexicalEmbedder embedder(64, &executor);
  for (const char* text : {"", "   ", "the of and to it", "?!"}) {
    Embedding v = embedder.EmbedOne(text);
    ASSERT_EQ(v.size(), 64u);
    EXPECT_EQ(Norm(v), 0.0) << text;
  }
}

TEST(LexicalEmbedderTest, LexicalNotSemantic) {
  QueueExecutor executor;
  LexicalEmbedder embedder(1024, &executor);
  // Same words, different order: only the bigrams differ.
  const double reordered = Cosine(embedder.EmbedOne("dog bites man"), embedder.EmbedOne("man bites dog"));
  EXPECT_GT(reordered, 0.6);
  EXPECT_LT(reordered, 0.999);
  // Synonyms share no words, so a lexical embedder sees nothing in common.
  EXPECT_LT(std::abs(Cosine(embedder.EmbedOne("fast car"), embedder.EmbedOne("quick automobile"))), 0.2);
}

TEST(LexicalEmbedderTest, BatchEmbedDeliversThroughExecutorInOrder) {
  QueueExecutor executor;
  LexicalEmbedder embedder(128, &executor);
  bool called = false;
  std::vector<Embedding> got;
  embedder.Embed({"alpha beta", "", "gamma"}, [&](absl::StatusOr<EmbedReply> out) {
    called = true;
    ASSERT_TRUE(out.ok());
    got = out->vectors;
  });
  EXPECT_FALSE(called);
  EXPECT_EQ(executor.pending(), 1u);
  executor.RunAll();
  ASSERT_TRUE(called);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0], embedder.EmbedOne("alpha beta"));
  EXPECT_EQ(Norm(got[1]), 0.0);
  EXPECT_EQ(got[2], embedder.EmbedOne("gamma"));
}

TEST(LexicalEmbedderTest, CreateParsesIds) {
  QueueExecutor executor;
  auto plain = LexicalEmbedder::Create("lexical", &executor);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ((*plain)->dimensions(), 256);
  EXPECT_EQ((*plain)->id(), "lexical");
  auto sized = LexicalEmbedder::Create("lexical-512", &executor);
  ASSERT_TRUE(sized.ok());
  EXPECT_EQ((*sized)->dimensions(), 512);
  EXPECT_EQ((*sized)->id(), "lexical-512");
  for (const char* bad :
       {"lexical-0", "lexical-", "lexical-abc", "lexical-064", "lexical-99999", "lexical-12x", "lexicalx"}) {
    auto status = LexicalEmbedder::Create(bad, &executor).status();
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << bad;
  }
}

}  // namespace
}  // namespace noveltygrid
