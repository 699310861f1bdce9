// The asynchronous greedy partition: the same classes as GreedyPartition with the same decisions, one
// decider batch per generation holding exactly the open classes, the short-text rule in front, and
// the equivalence cache answering a second run.
#include "worker/partition/async_partition.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/noveltybench/partition.h"
#include "common/noveltybench/unigram.h"
#include "common/storage/memory_store.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/worker/partition/fake_models.h"
#include "tests/worker/partition/sim_classifier_equivalence.h"
#include "tests/worker/partition/test_generations.h"
#include "worker/partition/classifier_decider.h"
#include "worker/partition/unigram_decider.h"
#include "worker/sim/sim_scorers.h"
#include "worker/sim/sim_scoring.h"

namespace noveltygrid::nbtest {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Same iff the first words match (any text: the short-text rule comes first anyway).
double SameFirstWord(const std::string& a, const std::string& b) {
  return a.substr(0, a.find(' ')) == b.substr(0, b.find(' ')) ? 0.9 : 0.05;
}

TEST(AsyncPartitionTest, MatchesGreedyPartitionWithTheUnigramDecider) {
  ManualExecutor executor;
  for (double threshold : {0.3, noveltybench::kDefaultUnigramThreshold, 0.7}) {
    UnigramDecider decider(threshold);
    const noveltybench::UnigramEquivalence sync(threshold);
    int sets_with_several_classes = 0;
    for (const std::vector<std::string>& generations : GenerationSets(30, 10)) {
      PartitionOutcome outcome = Partition(executor, generations, decider);
      ASSERT_TRUE(outcome.partition.ok()) << outcome.partition.status();
      EXPECT_EQ(*outcome.partition, noveltybench::GreedyPartition(kPrompt, generations, sync));
      EXPECT_TRUE(outcome.calls.empty());  // no model, nothing to count
      sets_with_several_classes += noveltybench::DistinctCount(*outcome.partition) > 1;
    }
    EXPECT_GT(sets_with_several_classes, 10) << "the data should not collapse into one class";
  }
}

TEST(AsyncPartitionTest, MatchesGreedyPartitionWithTheClassifierDecider) {
  ManualExecutor executor;
  SimPairClassifier classifier(&executor);
  for (double threshold : {0.102, 0.5, 0.9}) {
    ClassifierDecider decider(&classifier, threshold);
    const SimClassifierEquivalence sync(threshold);
    for (const std::vector<std::string>& generations : GenerationSets(30, 10, /*seed=*/11)) {
      PartitionOutcome outcome = Partition(executor, generations, decider);
      ASSERT_TRUE(outcome.partition.ok()) << outcome.partition.status();
      EXPECT_EQ(*outcome.partition, noveltybench::GreedyPartition(kPrompt, generations, sync));
    }
  }
}

TEST(AsyncPartitionTest, AsksOneBatchPerGenerationWithEveryOpenClass) {
  ManualExecutor executor;
  FakeClassifier classifier("clf", &executor, SameFirstWord);
  ClassifierDecider decider(&classifier, 0.5);
  const std::vector<std::string> generations = {"apple one two three four five", "banana one two three four five",
                                                "cherry one two three four five", "cherry six seven eight nine ten",
                                                "apple six seven eight nine ten"};
  PartitionOutcome outcome = Partition(executor, generations, decider);
  ASSERT_TRUE(outcome.partition.ok());
  EXPECT_THAT(*outcome.partition, ElementsAre(0, 1, 2, 2, 0));
  // Generation 1 against class 0; 2 against 0 and 1; 3 against 0, 1 and 2 at once; 4 likewise.
  ASSERT_EQ(classifier.batches.size(), 4u);
  EXPECT_EQ(classifier.batches[0].size(), 1u);
  EXPECT_EQ(classifier.batches[1].size(), 2u);
  ASSERT_EQ(classifier.batches[2].size(), 3u);
  EXPECT_EQ(classifier.batches[2][0], TextPair(generations[0], generations[3]));
  EXPECT_EQ(classifier.batches[2][1], TextPair(generations[1], generations[3]));
  EXPECT_EQ(classifier.batches[2][2], TextPair(generations[2], generations[3]));
  EXPECT_EQ(classifier.batches[3].size(), 3u);
  EXPECT_EQ(outcome.calls["classify:clf"].requests, 4);
  EXPECT_EQ(outcome.calls["classify:clf"].cache_hits, 0);
}

TEST(AsyncPartitionTest, ClassesAfterOneKnownEquivalentAreNotAsked) {
  ManualExecutor executor;
  FakeClassifier classifier("clf", &executor, [](const std::string&, const std::string&) { return 0.0; });
  ClassifierDecider decider(&classifier, 0.5);
  // The second "red" matches class 1 by the short-text rule, but class 0 (a long text) comes first and
  // is still asked; class 1 is not.
  const std::vector<std::string> generations = {"alpha beta gamma delta epsilon zeta eta", "red", "red"};
  PartitionOutcome outcome = Partition(executor, generations, decider);
  ASSERT_TRUE(outcome.partition.ok());
  EXPECT_THAT(*outcome.partition, ElementsAre(0, 1, 1));
  ASSERT_EQ(classifier.batches.size(), 2u);
  ASSERT_EQ(classifier.batches[1].size(), 1u);
  EXPECT_EQ(classifier.batches[1][0], TextPair(generations[0], generations[2]));

  // When an earlier class is known equivalent, nothing is asked for the generation.
  classifier.batches.clear();
  outcome = Partition(executor, {"red", "alpha beta gamma delta epsilon zeta eta", "Red"}, decider);
  ASSERT_TRUE(outcome.partition.ok());
  EXPECT_THAT(*outcome.partition, ElementsAre(0, 1, 0));
  EXPECT_EQ(classifier.batches.size(), 1u);  // only generation 1 against class 0
}

TEST(AsyncPartitionTest, ShortTextsNeverReachTheDecider) {
  ManualExecutor executor;
  FakeClassifier classifier("clf", &executor, [](const std::string&, const std::string&) { return 1.0; });
  ClassifierDecider decider(&classifier, 0.5);
  PartitionOutcome outcome = Partition(executor, {"Paris", "paris", "Lyon", "the city of Paris", "Nice"}, decider);
  ASSERT_TRUE(outcome.partition.ok());
  EXPECT_THAT(*outcome.partition, ElementsAre(0, 0, 1, 2, 3));
  EXPECT_TRUE(classifier.batches.empty());
}

TEST(AsyncPartitionTest, TheCacheAnswersASecondRunWhateverTheThreshold) {
  ManualExecutor executor;
  InMemoryStore store;
  EquivalenceCache cache(&store);
  FakeClassifier classifier("clf", &executor,
                            [](const std::string& a, const std::string& b) { return SimSameIdeaProbability(a, b); });
  const std::vector<std::string> generations = GenerationSets(1, 10, /*seed=*/3)[0];

  ClassifierDecider decider(&classifier, 0.102);
  PartitionOutcome first = Partition(executor, generations, decider, &cache);
  ASSERT_TRUE(first.partition.ok());
  const size_t asked = classifier.pairs_asked();
  ASSERT_GT(asked, 0u);
  EXPECT_EQ(first.calls["classify:clf"].requests, static_cast<int64_t>(classifier.batches.size()));

  PartitionOutcome second = Partition(executor, generations, decider, &cache);
  ASSERT_TRUE(second.partition.ok());
  EXPECT_EQ(*second.partition, *first.partition);
  EXPECT_EQ(classifier.pairs_asked(), asked) << "a cached pair was asked again";
  EXPECT_EQ(second.calls["classify:clf"].requests, 0);
  EXPECT_GT(second.calls["classify:clf"].cache_hits, 0);

  // Raw scores are cached, so another threshold reuses them and decides by its own rule. (Pairs the
  // first run never needed may still be asked.)
  ClassifierDecider strict(&classifier, 0.9);
  const size_t before = classifier.pairs_asked();
  PartitionOutcome third = Partition(executor, generations, strict, &cache);
  ASSERT_TRUE(third.partition.ok());
  EXPECT_EQ(*third.partition, noveltybench::GreedyPartition(kPrompt, generations, SimClassifierEquivalence(0.9)));
  EXPECT_GT(third.calls["classify:clf"].cache_hits, 0);
  EXPECT_LT(classifier.pairs_asked() - before, asked);
}

TEST(AsyncPartitionTest, ADeciderFailureEndsThePartitionWithItsStatus) {
  ManualExecutor executor;
  FakeClassifier classifier("clf", &executor, SameFirstWord);
  classifier.failure = absl::UnavailableError("classifier at http://10.0.0.9/predict: connection refused");
  ClassifierDecider decider(&classifier, 0.5);
  PartitionOutcome outcome =
      Partition(executor, {"apple one two three four five", "banana one two three four five"}, decider);
  ASSERT_FALSE(outcome.partition.ok());
  EXPECT_EQ(outcome.partition.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(outcome.partition.status().message(), HasSubstr("connection refused"));
  EXPECT_EQ(outcome.calls["classify:clf"].requests, 1);
  EXPECT_EQ(outcome.calls["classify:clf"].errors, 1);
}

TEST(AsyncPartitionTest, OneGenerationIsOneClassWithoutCalls) {
  ManualExecutor executor;
  FakeClassifier classifier("clf", &executor, SameFirstWord);
  ClassifierDecider decider(&classifier, 0.5);
  PartitionOutcome outcome = Partition(executor, {"a single long generation of many words"}, decider);
  ASSERT_TRUE(outcome.partition.ok());
  EXPECT_THAT(*outcome.partition, ElementsAre(0));
  EXPECT_TRUE(classifier.batches.empty());
}

}  // namespace
}  // namespace noveltygrid::nbtest
