// CheckpointStore on the in-memory Store: steps appended in order, resumed without gaps, never twice.
#include "worker/checkpoint/checkpoint_store.h"

#include <string>

#include "common/storage/keys.h"
#include "common/storage/memory_store.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace noveltygrid {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

StepRecord Step(int n) {
  StepRecord step;
  step.answer_num = n;
  step.answer = "answer " + std::to_string(n);
  step.coherence = 70 + n;
  step.novelty = 1.0 / n;
  step.valid = true;
  return step;
}

std::vector<int> Nums(const UnitCheckpoint& checkpoint) {
  std::vector<int> nums;
  for (const StepRecord& step : checkpoint.answers) nums.push_back(step.answer_num);
  return nums;
}

TEST(CheckpointStoreTest, StepsComeBackInOrderWithTheirEmbeddings) {
  InMemoryStore store;
  CheckpointStore checkpoints(&store);
  EXPECT_THAT(checkpoints.Load("u0").answers, IsEmpty());
  checkpoints.Append("u0", Step(1), {1.0f, 0.0f});
  checkpoints.Append("u0", Step(2), {0.0f, 1.0f});
  UnitCheckpoint loaded = checkpoints.Load("u0");
  EXPECT_THAT(Nums(loaded), ElementsAre(1, 2));
  EXPECT_EQ(loaded.answers[1].answer, "answer 2");
  EXPECT_DOUBLE_EQ(loaded.answers[1].coherence, 72);
  EXPECT_THAT(loaded.embeddings, ElementsAre(ElementsAre(1.0f, 0.0f), ElementsAre(0.0f, 1.0f)));
  // Units are kept apart.
  EXPECT_THAT(checkpoints.Load("u1").answers, IsEmpty());
}

TEST(CheckpointStoreTest, AStepAlreadyStoredOrOutOfOrderIsNotAppended) {
  InMemoryStore store;
  CheckpointStore checkpoints(&store);
  checkpoints.Append("u0", Step(1), {1.0f});
  checkpoints.Append("u0", Step(1), {1.0f});  // a resumed unit re-reporting
  checkpoints.Append("u0", Step(3), {3.0f});  // a gap
  checkpoints.Append("u0", Step(2), {2.0f});
  EXPECT_THAT(Nums(checkpoints.Load("u0")), ElementsAre(1, 2));
  EXPECT_EQ(*store.ListLength(keys::Checkpoint("u0")), 2);
}

TEST(CheckpointStoreTest, LoadStopsAtTheFirstGapOrUnreadableEntry) {
  InMemoryStore store;
  CheckpointStore checkpoints(&store);
  checkpoints.Append("u0", Step(1), {1.0f});
  checkpoints.Append("u0", Step(2), {2.0f});
  ASSERT_TRUE(store.ListAppend(keys::Checkpoint("u0"), "\xff not a step").ok());
  checkpoints.Append("u0", Step(4), {4.0f});  // length is 3 now: step 4 is appended
  EXPECT_THAT(Nums(checkpoints.Load("u0")), ElementsAre(1, 2));
}

TEST(CheckpointStoreTest, AStoreOfTheWrongKindLeavesTheUnitWithoutCheckpoint) {
  InMemoryStore store;
  ASSERT_TRUE(store.Set(keys::Checkpoint("u0"), "a string, not a list").ok());
  CheckpointStore checkpoints(&store);
  checkpoints.Append("u0", Step(1), {1.0f});  // refused by the store: not persisted, no failure
  EXPECT_THAT(checkpoints.Load("u0").answers, IsEmpty());
}

}  // namespace
}  // namespace noveltygrid
