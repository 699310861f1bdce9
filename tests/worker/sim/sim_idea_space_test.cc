#include "worker/sim/sim_idea_space.h"

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/worker/models/sim_test_util.h"
#include "worker/models/lexical_embedder.h"
#include "worker/sim/sim_vocabulary.h"

namespace noveltygrid::sim {
namespace {

using simtest::Cosine;
using simtest::TestQuestions;

TEST(SimVocabularyTest, ClassesAreDisjointAndNotStopwords) {
  std::set<std::string_view> seen;
  for (auto words : {Verbs(), Adjectives(), Nouns()}) {
    for (std::string_view w : words) {
      EXPECT_TRUE(seen.insert(w).second) << "listed twice: " << w;
      EXPECT_FALSE(IsFunctionWord(w)) << w;
      EXPECT_FALSE(IsCommonWord(w)) << w;
      EXPECT_FALSE(IsLexicalStopword(w)) << w;
      EXPECT_EQ(LexicalWords(w), std::vector<std::string>{std::string(w)}) << w;
    }
  }
  EXPECT_GE(VocabularySize(), 300);
  for (int id = 0; id < VocabularySize(); ++id) EXPECT_EQ(VocabularyId(VocabularyWord(id)), id);
  EXPECT_EQ(VocabularyId("zzz"), -1);
}

TEST(TopicWordsTest, KeepsContentWordsOfTheQuestion) {
  EXPECT_EQ(TopicWords("How might you use a brick and a blanket?"), (std::vector<std::string>{"brick", "blanket"}));
  EXPECT_EQ(TopicWords("Provide an explanation for Japan's Lost Decades."),
            (std::vector<std::string>{"Japan", "Lost", "Decades"}));
  EXPECT_TRUE(TopicWords("What is it?").empty());
}

TEST(IdeaSpaceTest, DeterministicAndSharedPoolAcrossSizes) {
  IdeaSpace a(TestQuestions()[0], "explorer", 100);
  IdeaSpace b(TestQuestions()[0], "explorer", 50);
  for (int rank = 0; rank < 50; ++rank) {
    EXPECT_EQ(a.Render(rank, AnswerStyle::kSentence, rank), b.Render(rank, AnswerStyle::kSentence, rank));
  }
  IdeaSpace other(TestQuestions()[1], "explorer", 50);
  EXPECT_NE(a.Render(0, AnswerStyle::kSentence, 0), other.Render(0, AnswerStyle::kSentence, 0));
}

// A cache gives the space the constructor makes, once per (question, personality, size), whatever
// whitespace surrounds the question; a different size or personality is another space, and another
// cache makes its own.
TEST(IdeaSpaceTest, CachedSpacesAreTheConstructedOnesMadeOnce) {
  const std::string& question = TestQuestions()[2];
  IdeaSpaceCache cache;
  std::shared_ptr<const IdeaSpace> kept = cache.Get(question, "chaotic", 80);
  const IdeaSpace made(question, "chaotic", 80);
  ASSERT_EQ(kept->size(), made.size());
  for (int rank = 0; rank < made.size(); ++rank) {
    EXPECT_EQ(kept->Render(rank, AnswerStyle::kStory, rank), made.Render(rank, AnswerStyle::kStory, rank));
  }
  EXPECT_EQ(cache.Get("  " + question + "\n", "chaotic", 80), kept);
  EXPECT_NE(cache.Get(question, "chaotic", 81), kept);
  EXPECT_NE(cache.Get(question, "steady", 80), kept);
  IdeaSpaceCache other;
  EXPECT_NE(other.Get(question, "chaotic", 80), kept);
}

TEST(IdeaSpaceTest, RecognizesEveryPhrasingOfItsIdeas) {
  for (const std::string& question : TestQuestions()) {
    IdeaSpace space(question, "steady", 120);
    for (int rank = 0; rank < space.size(); ++rank) {
      for (AnswerStyle style : {AnswerStyle::kSentence, AnswerStyle::kStory}) {
        for (int t = 0; t < IdeaSpace::NumTemplates(style); ++t) {
          ASSERT_EQ(space.Recognize(space.Render(rank, style, t)), rank) << space.Render(rank, style, t);
        }
      }
    }
    EXPECT_EQ(space.Recognize("Something else entirely, with no known words."), -1);
    EXPECT_EQ(space.Recognize(""), -1);
  }
}

// Recognize memoises by text and forgets everything past kMemoBytes: the same answers whether a text is
// read for the first time, again from the memo, or again after the memo was forgotten (the texts here
// add up to several times kMemoBytes), for texts it recognizes and ones it does not.
TEST(IdeaSpaceTest, RecognizeGivesTheSameAnswerFromItsMemo) {
  const std::string question = TestQuestions().front();
  IdeaSpace space(question, "steady", IdeaSpace::kPoolSize);
  IdeaSpace fresh(question, "steady", IdeaSpace::kPoolSize);
  SimRng rng(7);
  std::vector<std::string> texts;
  std::vector<int> rendered;  // the rank of each text that is an idea rendered as is, else -2
  size_t bytes = 0;
  for (int rank = 0; rank < space.size(); ++rank) {
    for (AnswerStyle style : {AnswerStyle::kSentence, AnswerStyle::kStory}) {
      texts.push_back(space.Render(rank, style, rank));
      rendered.push_back(rank);
      texts.push_back(IdeaSpace::Garble(texts.back(), rng));
      texts.push_back(space.WordSalad(rank, rng));
      rendered.insert(rendered.end(), {-2, -2});
    }
  }
  for (const std::string& text : texts) bytes += text.size();
  ASSERT_GT(bytes, 2 * IdeaSpace::kMemoBytes);
  std::vector<int> first;
  for (const std::string& text : texts) first.push_back(space.Recognize(text));
  for (int round = 0; round < 2; ++round) {
    for (size_t i = 0; i < texts.size(); ++i) {
      ASSERT_EQ(space.Recognize(texts[i]), first[i]) << texts[i];
      // A space with another memo history gives the same answer for each text read once more.
      ASSERT_EQ(fresh.Recognize(texts[texts.size() - 1 - i]), first[texts.size() - 1 - i]);
    }
  }
  for (size_t i = 0; i < texts.size(); ++i) {
    if (rendered[i] >= 0) {
      EXPECT_EQ(first[i], rendered[i]) << texts[i];
    }
  }
}

// The property the AidanBench simulation rests on: rephrasing an idea keeps the lexical cosine high,
// a different idea brings it down.
TEST(IdeaSpaceTest, PhrasingsOfOneIdeaAreCloseAndDifferentIdeasAreFar) {
  LexicalEmbedder embedder(256, nullptr);
  double same_sum = 0, different_sum = 0;
  int same_count = 0, different_count = 0;
  for (const std::string& question : TestQuestions()) {
    IdeaSpace space(question, "explorer", 60);
    const int templates = IdeaSpace::NumTemplates(AnswerStyle::kSentence);
    for (int rank = 0; rank < 30; ++rank) {
      const int t1 = rank % templates, t2 = (rank + 3) % templates;
      const Embedding a = embedder.EmbedOne(space.Render(rank, AnswerStyle::kSentence, t1));
      same_sum += Cosine(a, embedder.EmbedOne(space.Render(rank, AnswerStyle::kSentence, t2)));
      ++same_count;
      different_sum += Cosine(a, embedder.EmbedOne(space.Render(rank + 30, AnswerStyle::kSentence, t1)));
      ++different_count;
    }
  }
  const double same = same_sum / same_count, different = different_sum / different_count;
  EXPECT_GT(same, 0.5);
  EXPECT_LT(different, 0.35);
  EXPECT_GT(same - different, 0.3);
}

TEST(IdeaSpaceTest, RendersReadableSentences) {
  IdeaSpace space("How might you use a brick and a blanket?", "explorer", 10);
  for (int t = 0; t < IdeaSpace::NumTemplates(AnswerStyle::kSentence); ++t) {
    const std::string text = space.Render(0, AnswerStyle::kSentence, t);
    EXPECT_TRUE(text[0] >= 'A' && text[0] <= 'Z') << text;
    EXPECT_EQ(text.back(), '.') << text;
    EXPECT_EQ(text.find('{'), std::string::npos) << text;
    EXPECT_EQ(text.find("  "), std::string::npos) << text;
  }
}

}  // namespace
}  // namespace noveltygrid::sim
