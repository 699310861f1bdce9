// CommitLog::AppendMany, the group commit of a worker's round: every new unit stored in one fdatasync
// (the file journal) or one pipelined store call (the Store-backed log), the first result of a unit
// kept, and a journal written by AppendMany byte for byte the one single Appends write.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/storage/keys.h"
#include "common/storage/memory_store.h"
#include "coordinator/state/journal.h"
#include "coordinator/state/store_commit_log.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/common/test_files.h"
#include "tests/coordinator/state/commit_log_testing.h"

namespace noveltygrid::commit_log_testing {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::SizeIs;

// u0 (2 answers), u1 (5: already stored with 1), u2 (3), then u0 again (4).
std::vector<JournalEntry> ARound() {
  return {{Result("u0", 2), Calls(1)},
          {Result("u1", 5), Calls(1)},
          {Result("u2", 3), Calls(2)},
          {Result("u0", 4), Calls(1)}};
}

// Both logs: every unit not stored yet is stored; a unit stored before, or earlier in the same call,
// keeps its first result.
void ExpectAppendManyKeepsTheFirstResultOfEachUnit(CommitLog& log) {
  ASSERT_TRUE(*log.Append(Result("u1", 1), Calls(1)));
  const absl::StatusOr<std::vector<bool>> stored = log.AppendMany(ARound());
  ASSERT_TRUE(stored.ok()) << stored.status();
  EXPECT_THAT(*stored, ElementsAre(true, false, true, false));
  absl::Status status;
  EXPECT_THAT(Fetched(log, {"u0", "u1", "u2"}, &status), ElementsAre("u0:2", "u1:1", "u2:3"));
  EXPECT_TRUE(status.ok()) << status;
  EXPECT_THAT(*log.AppendMany({}), IsEmpty());
}

TEST(ResultJournalTest, AppendManyKeepsTheFirstResultOfEachUnit) {
  TempDir dir;
  const std::vector<UnitSpec> plan = Plan({"u0", "u1", "u2"});
  PlannedUnits planned(plan);
  auto journal = ResultJournal::Open(dir.path(), planned, [](JournalEntry) {});
  ASSERT_TRUE(journal.ok()) << journal.status();
  ASSERT_NO_FATAL_FAILURE(ExpectAppendManyKeepsTheFirstResultOfEachUnit(**journal));
}

TEST(StoreCommitLogTest, AppendManyKeepsTheFirstResultOfEachUnit) {
  InMemoryStore store;
  auto log = StoreCommitLog::Create(&store, "sweep");
  ASSERT_TRUE(log.ok()) << log.status();
  ASSERT_NO_FATAL_FAILURE(ExpectAppendManyKeepsTheFirstResultOfEachUnit(**log));
}

TEST(ResultJournalTest, AppendManyWritesTheFileThatSingleAppendsWrite) {
  const std::vector<UnitSpec> plan = Plan({"u0", "u1", "u2", "u3"});
  TempDir grouped;
  TempDir single;
  {
    PlannedUnits planned(plan);
    auto journal = ResultJournal::Open(grouped.path(), planned, [](JournalEntry) {});
    ASSERT_TRUE(journal.ok()) << journal.status();
    ASSERT_TRUE(*(*journal)->Append(Result("u1", 1), Calls(1)));
    ASSERT_TRUE((*journal)->AppendMany(ARound()).ok());
  }
  {
    PlannedUnits planned(plan);
    auto journal = ResultJournal::Open(single.path(), planned, [](JournalEntry) {});
    ASSERT_TRUE(journal.ok()) << journal.status();
    ASSERT_TRUE(*(*journal)->Append(Result("u1", 1), Calls(1)));
    for (const JournalEntry& unit : ARound()) ASSERT_TRUE((*journal)->Append(unit.result, unit.calls).ok());
  }
  const std::string bytes = FileBytes(JournalPath(grouped));
  EXPECT_FALSE(bytes.empty());
  EXPECT_EQ(bytes, FileBytes(JournalPath(single)));

  // Reopened, it holds the first result of each unit, and appends after them.
  const std::vector<JournalEntry> committed = Reopened(grouped, plan);
  ASSERT_THAT(committed, SizeIs(3));
  for (const JournalEntry& entry : committed) {
    const size_t expected = entry.result.unit.id == "u0" ? 2 : entry.result.unit.id == "u1" ? 1 : 3;
    EXPECT_THAT(entry.result.answers, SizeIs(expected)) << entry.result.unit.id;
  }
  {
    PlannedUnits planned(plan);
    auto journal = ResultJournal::Open(grouped.path(), planned, [](JournalEntry) {});
    ASSERT_TRUE(journal.ok()) << journal.status();
    EXPECT_THAT(*(*journal)->AppendMany({{Result("u2", 1), Calls(1)}, {Result("u3", 2), Calls(1)}}),
                ElementsAre(false, true));
  }
  EXPECT_THAT(Reopened(grouped, plan), SizeIs(4));
}

// Counts the pipelined calls the log makes.
class CountingStore : public InMemoryStore {
 public:
  absl::StatusOr<std::vector<bool>> HashSetIfAbsentMany(
      const std::string& key, const std::vector<std::pair<std::string, std::string>>& entries) override {
    ++many_calls;
    return InMemoryStore::HashSetIfAbsentMany(key, entries);
  }
  int many_calls = 0;
};

TEST(StoreCommitLogTest, AppendManyIsOneStoreCallAndItsErrorFailsTheCall) {
  CountingStore store;
  auto log = StoreCommitLog::Create(&store, "sweep");
  ASSERT_TRUE(log.ok()) << log.status();
  EXPECT_THAT(*(*log)->AppendMany(ARound()), ElementsAre(true, true, true, false));
  EXPECT_EQ(store.many_calls, 1);
  EXPECT_THAT(StoreReopened(store, "sweep", Plan({"u0", "u1", "u2"})), SizeIs(3));

  InMemoryStore broken;
  ASSERT_TRUE(broken.Set(keys::Units(), "a string, not a hash").ok());
  auto failing = StoreCommitLog::Create(&broken, "sweep");
  ASSERT_TRUE(failing.ok()) << failing.status();
  EXPECT_EQ((*failing)->AppendMany(ARound()).status().code(), absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace noveltygrid::commit_log_testing
