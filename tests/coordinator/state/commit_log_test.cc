// The coordinator's commit logs: the file journal (append, reopen resumes, another plan refused, a
// torn last line dropped) and the Store-backed log on the in-memory Store.
#include <fstream>
#include <string>
#include <vector>

#include "common/storage/keys.h"
#include "common/storage/memory_store.h"
#include "coordinator/state/journal.h"
#include "coordinator/state/store_commit_log.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/common/test_files.h"

namespace noveltygrid {
namespace {

using ::testing::IsEmpty;
using ::testing::SizeIs;
using testing_files::TempDir;

UnitResult Result(const std::string& unit_id, int answers) {
  UnitResult result;
  result.unit.id = unit_id;
  result.unit.benchmark = kAidanBench;
  result.unit.model = "m";
  result.unit.item_text = "a question";
  for (int i = 1; i <= answers; ++i) {
    StepRecord step;
    step.answer_num = i;
    step.answer = "answer " + std::to_string(i);
    step.coherence = 80;
    step.novelty = 0.5;
    step.valid = true;
    result.answers.push_back(step);
  }
  result.stop_reason = kStopIncoherent;
  return result;
}

CallStats Calls(int64_t requests) {
  CallStats calls;
  calls["generate:m"].requests = requests;
  return calls;
}

std::string JournalPath(const TempDir& dir) { return (dir.path() / ".noveltygrid" / "journal.jsonl").string(); }

// Opens the journal of `dir` for `plan`, commits `units` (one answer each) and closes it.
void WriteJournal(const TempDir& dir, const std::string& plan, const std::vector<std::string>& units) {
  std::vector<JournalEntry> committed;
  absl::StatusOr<std::unique_ptr<ResultJournal>> journal = ResultJournal::Open(dir.path(), plan, &committed);
  ASSERT_TRUE(journal.ok()) << journal.status();
  for (const std::string& unit : units) ASSERT_TRUE((*journal)->Append(Result(unit, 1), Calls(1)).ok());
}

// What reopening the journal of `dir` for `plan` finds committed.
std::vector<JournalEntry> Reopened(const TempDir& dir, const std::string& plan) {
  std::vector<JournalEntry> committed;
  absl::StatusOr<std::unique_ptr<ResultJournal>> journal = ResultJournal::Open(dir.path(), plan, &committed);
  EXPECT_TRUE(journal.ok()) << journal.status();
  return committed;
}

TEST(ResultJournalTest, AppendedUnitsComeBackOnReopen) {
  TempDir dir;
  {
    std::vector<JournalEntry> committed;
    absl::StatusOr<std::unique_ptr<ResultJournal>> journal = ResultJournal::Open(dir.path(), "plan-1", &committed);
    ASSERT_TRUE(journal.ok()) << journal.status();
    EXPECT_THAT(committed, IsEmpty());
    ASSERT_TRUE((*journal)->Append(Result("u0", 2), Calls(3)).ok());
    ASSERT_TRUE((*journal)->Append(Result("u1", 1), Calls(1)).ok());
  }
  std::vector<JournalEntry> committed;
  absl::StatusOr<std::unique_ptr<ResultJournal>> reopened = ResultJournal::Open(dir.path(), "plan-1", &committed);
  ASSERT_TRUE(reopened.ok()) << reopened.status();
  ASSERT_THAT(committed, SizeIs(2));
  EXPECT_EQ(committed[0].result.unit.id, "u0");
  ASSERT_THAT(committed[0].result.answers, SizeIs(2));
  EXPECT_EQ(committed[0].result.answers[1].answer, "answer 2");
  EXPECT_EQ(committed[0].result.stop_reason, kStopIncoherent);
  EXPECT_EQ(committed[0].calls.at("generate:m").requests, 3);
  EXPECT_EQ(committed[1].result.unit.id, "u1");
  // Appending after a reopen continues the same journal.
  ASSERT_TRUE((*reopened)->Append(Result("u2", 1), Calls(1)).ok());
  reopened->reset();
  EXPECT_THAT(Reopened(dir, "plan-1"), SizeIs(3));
}

TEST(ResultJournalTest, AJournalOfAnotherPlanIsRefused) {
  TempDir dir;
  ASSERT_NO_FATAL_FAILURE(WriteJournal(dir, "plan-1", {"u0"}));
  std::vector<JournalEntry> committed;
  absl::StatusOr<std::unique_ptr<ResultJournal>> other = ResultJournal::Open(dir.path(), "plan-2", &committed);
  ASSERT_TRUE(absl::IsFailedPrecondition(other.status())) << other.status();
  EXPECT_THAT(std::string(other.status().message()), ::testing::HasSubstr("plan-1"));
  EXPECT_THAT(committed, IsEmpty());
  // Refusing it did not damage it.
  EXPECT_THAT(Reopened(dir, "plan-1"), SizeIs(1));
}

TEST(ResultJournalTest, ATornLastLineIsDroppedAndOverwritten) {
  TempDir dir;
  ASSERT_NO_FATAL_FAILURE(WriteJournal(dir, "plan-1", {"u0"}));
  {
    std::ofstream out(JournalPath(dir), std::ios::app);
    out << R"({"result": {"unit": {"id": "u1")";  // a crash mid-write
  }
  std::vector<JournalEntry> committed;
  auto reopened = ResultJournal::Open(dir.path(), "plan-1", &committed);
  ASSERT_TRUE(reopened.ok()) << reopened.status();
  ASSERT_THAT(committed, SizeIs(1));
  EXPECT_EQ(committed[0].result.unit.id, "u0");
  ASSERT_TRUE((*reopened)->Append(Result("u1", 2), Calls(1)).ok());
  reopened->reset();
  const std::vector<JournalEntry> after = Reopened(dir, "plan-1");
  ASSERT_THAT(after, SizeIs(2));
  EXPECT_EQ(after[1].result.unit.id, "u1");
  EXPECT_THAT(after[1].result.answers, SizeIs(2));
}

TEST(StoreCommitLogTest, CommittedUnitsComeBackOnReopen) {
  InMemoryStore store;
  {
    std::vector<JournalEntry> committed;
    auto log = StoreCommitLog::Open(&store, "sweep", "plan-1", &committed);
    ASSERT_TRUE(log.ok()) << log.status();
    EXPECT_THAT(committed, IsEmpty());
    ASSERT_TRUE((*log)->Append(Result("u0", 2), Calls(3)).ok());
    ASSERT_TRUE((*log)->Append(Result("u1", 1), Calls(1)).ok());
    // Committing a unit again replaces it (one entry per unit).
    ASSERT_TRUE((*log)->Append(Result("u1", 1), Calls(1)).ok());
  }
  EXPECT_EQ(*store.HashLength(keys::SweepResults("sweep")), 2);
  std::vector<JournalEntry> committed;
  auto reopened = StoreCommitLog::Open(&store, "sweep", "plan-1", &committed);
  ASSERT_TRUE(reopened.ok()) << reopened.status();
  ASSERT_THAT(committed, SizeIs(2));
  EXPECT_EQ(committed[0].result.unit.id, "u0");
  EXPECT_EQ(committed[0].result.answers[1].answer, "answer 2");
  EXPECT_EQ(committed[0].calls.at("generate:m").requests, 3);
  EXPECT_EQ(committed[1].result.unit.id, "u1");
}

TEST(StoreCommitLogTest, AnotherPlanUnderTheSameSweepNameIsRefused) {
  InMemoryStore store;
  std::vector<JournalEntry> committed;
  ASSERT_TRUE(StoreCommitLog::Open(&store, "sweep", "plan-1", &committed).ok());
  auto other = StoreCommitLog::Open(&store, "sweep", "plan-2", &committed);
  ASSERT_TRUE(absl::IsFailedPrecondition(other.status())) << other.status();
  EXPECT_THAT(std::string(other.status().message()), ::testing::HasSubstr("plan-1"));
  // Another sweep name is another namespace.
  EXPECT_TRUE(StoreCommitLog::Open(&store, "other-sweep", "plan-2", &committed).ok());
}

TEST(StoreCommitLogTest, AnEntryThatIsNotAResultIsDataLoss) {
  InMemoryStore store;
  std::vector<JournalEntry> committed;
  ASSERT_TRUE(StoreCommitLog::Open(&store, "sweep", "plan-1", &committed).ok());
  ASSERT_TRUE(store.HashSet(keys::SweepResults("sweep"), "u0", "not json").ok());
  auto reopened = StoreCommitLog::Open(&store, "sweep", "plan-1", &committed);
  EXPECT_TRUE(absl::IsDataLoss(reopened.status())) << reopened.status();
}

}  // namespace
}  // namespace noveltygrid
