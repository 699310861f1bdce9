// CheckpointStore on the in-memory Store: steps appended in order, missed ones caught up, resumed
// without gaps, never stored twice.
#include "worker/checkpoint/checkpoint_store.h"

#include <optional>
#include <string>
#include <vector>

#include "common/storage/keys.h"
#include "common/storage/memory_store.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/wire.h"

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

// Steps 1..n, with embedding {i, 0} for step i unless `embedded` is false.
struct History {
  std::vector<StepRecord> steps;
  std::vector<Embedding> embeddings;
};
History StepsUpTo(int n, bool embedded = true) {
  History history;
  for (int i = 1; i <= n; ++i) {
    history.steps.push_back(Step(i));
    if (embedded) history.embeddings.push_back({static_cast<float>(i), 0.0f});
  }
  return history;
}
// Steps 1..n of one loop's history into the list; `own` is what that loop knows of the list (kept
// between its calls). Whether the list now holds exactly those steps (CatchUp's answer).
bool CatchUp(CheckpointStore& checkpoints, const std::string& unit_id, size_t* own, int n, bool embedded = true) {
  const History history = StepsUpTo(n, embedded);
  return checkpoints.CatchUp(unit_id, history.steps, history.embeddings, own);
}

TEST(CheckpointStoreTest, StepsComeBackInOrderWithTheirEmbeddings) {
  InMemoryStore store;
  CheckpointStore checkpoints(&store);
  size_t own = 0;
  EXPECT_THAT(checkpoints.Load("u0").answers, IsEmpty());
  EXPECT_TRUE(CatchUp(checkpoints, "u0", &own, 1));
  EXPECT_TRUE(CatchUp(checkpoints, "u0", &own, 2));
  UnitCheckpoint loaded = checkpoints.Load("u0");
  EXPECT_THAT(Nums(loaded), ElementsAre(1, 2));
  EXPECT_EQ(loaded.answers[1].answer, "answer 2");
  EXPECT_DOUBLE_EQ(loaded.answers[1].coherence, 72);
  EXPECT_THAT(loaded.embeddings, ElementsAre(ElementsAre(1.0f, 0.0f), ElementsAre(2.0f, 0.0f)));
  // Units are kept apart.
  EXPECT_THAT(checkpoints.Load("u1").answers, IsEmpty());
}

TEST(CheckpointStoreTest, AStepAlreadyStoredIsNotAppendedAgain) {
  InMemoryStore store;
  CheckpointStore checkpoints(&store);
  size_t own = 0;
  EXPECT_TRUE(CatchUp(checkpoints, "u0", &own, 2));
  EXPECT_TRUE(CatchUp(checkpoints, "u0", &own, 1));  // a resumed unit re-reporting: held already
  EXPECT_TRUE(CatchUp(checkpoints, "u0", &own, 2));
  EXPECT_THAT(Nums(checkpoints.Load("u0")), ElementsAre(1, 2));
  EXPECT_EQ(*store.ListLength(keys::Checkpoint("u0")), 2);
}

TEST(CheckpointStoreTest, AListThatMissedStepsCatchesUpWithTheNextOne) {
  InMemoryStore store;
  CheckpointStore checkpoints(&store);
  size_t own = 0;
  CatchUp(checkpoints, "u0", &own, 1);
  // Steps 2 and 3 were never stored (the store was away then); step 4 brings them.
  CatchUp(checkpoints, "u0", &own, 4);
  UnitCheckpoint loaded = checkpoints.Load("u0");
  EXPECT_THAT(Nums(loaded), ElementsAre(1, 2, 3, 4));
  EXPECT_THAT(loaded.embeddings[2], ElementsAre(3.0f, 0.0f));
  EXPECT_EQ(loaded.answers[2].answer, "answer 3");
}

TEST(CheckpointStoreTest, StepsWithoutEmbeddingsAreStoredWithout) {
  InMemoryStore store;
  CheckpointStore checkpoints(&store);
  size_t own = 0;
  CatchUp(checkpoints, "u0", &own, 3, /*embedded=*/false);
  UnitCheckpoint loaded = checkpoints.Load("u0");
  EXPECT_THAT(Nums(loaded), ElementsAre(1, 2, 3));
  EXPECT_THAT(loaded.embeddings, ElementsAre(IsEmpty(), IsEmpty(), IsEmpty()));
}

TEST(CheckpointStoreTest, StepsOutOfOrderAreNotAppended) {
  InMemoryStore store;
  CheckpointStore checkpoints(&store);
  size_t own = 0;
  History history = StepsUpTo(3);
  history.steps[1].answer_num = 5;  // not step 2: neither it nor anything after it is stored
  EXPECT_FALSE(checkpoints.CatchUp("u0", history.steps, history.embeddings, &own));
  EXPECT_THAT(Nums(checkpoints.Load("u0")), ElementsAre(1));
}

TEST(CheckpointStoreTest, EmbeddingsOfAnotherCountThanTheStepsStoreNothing) {
  InMemoryStore store;
  CheckpointStore checkpoints(&store);
  size_t own = 0;
  History history = StepsUpTo(3);
  history.embeddings.pop_back();
  EXPECT_FALSE(checkpoints.CatchUp("u0", history.steps, history.embeddings, &own));
  EXPECT_EQ(*store.ListLength(keys::Checkpoint("u0")), 0);
}

// A store where another writer appends `step` to the list between the next ListLength and what follows.
class InterleavingStore : public InMemoryStore {
 public:
  absl::StatusOr<int64_t> ListLength(const std::string& key) override {
    absl::StatusOr<int64_t> length = InMemoryStore::ListLength(key);
    if (step.has_value()) {
      if (absl::Status appended = ListAppend(key, *step).status(); !appended.ok()) return appended;
      step.reset();
    }
    return length;
  }
  std::optional<std::string> step;
};

TEST(CheckpointStoreTest, AnotherWritersStepInBetweenLeavesTheCheckpointOfOneHistory) {
  InterleavingStore store;
  CheckpointStore checkpoints(&store);
  size_t own = 0;
  CatchUp(checkpoints, "u0", &own, 1);
  // The loop of an earlier lease of the unit appends its step 1 in between: the list is not rewritten
  // (that could put the other loop's steps before this one's); Load stops at the repeated step.
  StepRecord other = Step(1);
  other.answer = "the other loop's answer 1";
  v1::Step step;
  ToProto(other, nullptr, &step);
  store.step = step.SerializeAsString();
  // The list is now the other loop's from its second entry: CatchUp says it does not hold this loop's
  // steps (so the reports carry their embeddings), and writes none after it again.
  EXPECT_FALSE(CatchUp(checkpoints, "u0", &own, 3));
  EXPECT_FALSE(store.step.has_value());  // it did append
  EXPECT_EQ(*store.ListLength(keys::Checkpoint("u0")), 4);
  EXPECT_FALSE(CatchUp(checkpoints, "u0", &own, 4));
  EXPECT_EQ(*store.ListLength(keys::Checkpoint("u0")), 4);
  const UnitCheckpoint loaded = checkpoints.Load("u0");
  EXPECT_THAT(Nums(loaded), ElementsAre(1));
  EXPECT_EQ(loaded.answers[0].answer, "answer 1");
}

TEST(CheckpointStoreTest, AListOfAnotherHistoryIsNeitherExtendedNorClaimed) {
  InMemoryStore store;
  CheckpointStore checkpoints(&store);
  size_t earlier = 0;
  ASSERT_TRUE(CatchUp(checkpoints, "u0", &earlier, 2));  // an earlier run of the unit
  // A loop that did not resume from the list (it took the lease's steps, or started over): appending
  // its step 3 after the earlier run's 1 and 2 would splice two histories.
  size_t own = 0;
  EXPECT_FALSE(CatchUp(checkpoints, "u0", &own, 3));
  EXPECT_EQ(*store.ListLength(keys::Checkpoint("u0")), 2);
  EXPECT_EQ(own, 0u);
  // A loop that resumed from those two goes on writing it.
  size_t resumed = 2;
  EXPECT_TRUE(CatchUp(checkpoints, "u0", &resumed, 3));
  EXPECT_EQ(resumed, 3u);
  EXPECT_THAT(Nums(checkpoints.Load("u0")), ElementsAre(1, 2, 3));
}

TEST(CheckpointStoreTest, AnEmptiedListIsWrittenAgainFromTheFirstStep) {
  InMemoryStore store;
  CheckpointStore checkpoints(&store);
  size_t own = 0;
  ASSERT_TRUE(CatchUp(checkpoints, "u0", &own, 2));
  ASSERT_TRUE(store.Delete(keys::Checkpoint("u0")).ok());  // a Redis restart without persistence
  EXPECT_TRUE(CatchUp(checkpoints, "u0", &own, 3));
  EXPECT_EQ(own, 3u);
  EXPECT_THAT(Nums(checkpoints.Load("u0")), ElementsAre(1, 2, 3));
}

TEST(CheckpointStoreTest, LoadStopsAtTheFirstGapOrUnreadableEntry) {
  InMemoryStore store;
  CheckpointStore checkpoints(&store);
  size_t own = 0;
  CatchUp(checkpoints, "u0", &own, 2);
  ASSERT_TRUE(store.ListAppend(keys::Checkpoint("u0"), "\xff not a step").ok());
  // Not this loop's entry: nothing goes after it, and the list is not claimed.
  EXPECT_FALSE(CatchUp(checkpoints, "u0", &own, 4));
  EXPECT_EQ(*store.ListLength(keys::Checkpoint("u0")), 3);
  EXPECT_THAT(Nums(checkpoints.Load("u0")), ElementsAre(1, 2));
}

TEST(CheckpointStoreTest, AStoreOfTheWrongKindLeavesTheUnitWithoutCheckpoint) {
  InMemoryStore store;
  ASSERT_TRUE(store.Set(keys::Checkpoint("u0"), "a string, not a list").ok());
  CheckpointStore checkpoints(&store);
  size_t own = 0;
  EXPECT_FALSE(CatchUp(checkpoints, "u0", &own, 1));  // refused by the store: not persisted, no failure
  EXPECT_THAT(checkpoints.Load("u0").answers, IsEmpty());
}

}  // namespace
}  // namespace noveltygrid
