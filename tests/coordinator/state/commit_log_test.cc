// The coordinator's commit logs, stored by unit id: the file journal (append, reopen resumes, only the
// planned units come back with the plan's unit specs, units of other plans kept, a torn last line
// dropped, an older journal's fingerprint line read past) and the Store-backed log on the in-memory
// Store (the same, shared across sweep names, and an earlier version's per-sweep hash moved in).
#include <fstream>
#include <iterator>
#include <string>
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

using ::testing::IsEmpty;
using ::testing::SizeIs;

// Opens the journal of `dir`, commits `units` (one answer each) and closes it.
void WriteJournal(const TempDir& dir, const std::vector<std::string>& units) {
  std::vector<JournalEntry> committed;
  const std::vector<UnitSpec> plan = Plan(units);
  PlannedUnits planned(plan);
  absl::StatusOr<std::unique_ptr<ResultJournal>> journal = ResultJournal::Open(dir.path(), planned, &committed);
  ASSERT_TRUE(journal.ok()) << journal.status();
  for (const std::string& unit : units) ASSERT_TRUE((*journal)->Append(Result(unit, 1), Calls(1)).ok());
}

TEST(ResultJournalTest, AppendedUnitsComeBackOnReopen) {
  TempDir dir;
  const std::vector<UnitSpec> plan = Plan({"u0", "u1", "u2"});
  {
    std::vector<JournalEntry> committed;
    PlannedUnits planned(plan);
    absl::StatusOr<std::unique_ptr<ResultJournal>> journal = ResultJournal::Open(dir.path(), planned, &committed);
    ASSERT_TRUE(journal.ok()) << journal.status();
    EXPECT_THAT(committed, IsEmpty());
    ASSERT_TRUE((*journal)->Append(Result("u0", 2), Calls(3)).ok());
    ASSERT_TRUE((*journal)->Append(Result("u1", 1), Calls(1)).ok());
  }
  std::vector<JournalEntry> committed;
  PlannedUnits planned(plan);
  absl::StatusOr<std::unique_ptr<ResultJournal>> reopened = ResultJournal::Open(dir.path(), planned, &committed);
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
  EXPECT_THAT(Reopened(dir, plan), SizeIs(3));
}

TEST(ResultJournalTest, OnlyPlannedUnitsComeBackWithThePlansSpecsAndTheOthersStay) {
  TempDir dir;
  ASSERT_NO_FATAL_FAILURE(WriteJournal(dir, {"u0", "u1", "u2"}));
  // Another config plans u2 (at another index), a new u9, and no longer u0 or u1.
  const std::vector<UnitSpec> grown = Plan({"u9", "u2"});
  const std::vector<JournalEntry> committed = Reopened(dir, grown);
  ASSERT_THAT(committed, SizeIs(1));
  EXPECT_EQ(committed[0].result.unit.id, "u2");
  EXPECT_EQ(committed[0].result.unit.index, 1) << "the planned unit's index, not the committed one";
  // Units this plan does not ask for are still stored for the plans that do.
  EXPECT_THAT(Reopened(dir, Plan({"u0", "u1", "u2"})), SizeIs(3));
}

TEST(ResultJournalTest, AUnitCommittedTwiceComesBackOnce) {
  TempDir dir;
  ASSERT_NO_FATAL_FAILURE(WriteJournal(dir, {"u0", "u0"}));
  EXPECT_THAT(Reopened(dir, Plan({"u0"})), SizeIs(1));
}

TEST(ResultJournalTest, AnOlderJournalsFingerprintLineIsReadPast) {
  TempDir dir;
  std::filesystem::create_directories(dir.path() / ".noveltygrid");
  {
    std::ofstream out(LegacyJournalPath(dir));
    out << R"({"fingerprint":"ecf173205f345ea9"})"
        << "\n"
        << LegacyCommittedUnitText(Result("u0", 2), Calls(1)) << "\n";
  }
  const std::vector<JournalEntry> committed = Reopened(dir, Plan({"u0"}));
  ASSERT_THAT(committed, SizeIs(1));
  EXPECT_THAT(committed[0].result.answers, SizeIs(2));
}

TEST(ResultJournalTest, AnEarlierVersionsJsonJournalIsMovedInKeepingTheUnitsAlreadyStored) {
  TempDir dir;
  ASSERT_NO_FATAL_FAILURE(WriteJournal(dir, {"u0"}));  // one answer
  {
    std::ofstream out(LegacyJournalPath(dir));
    out << LegacyCommittedUnitText(Result("u0", 3), Calls(1)) << "\n"
        << LegacyCommittedUnitText(Result("u1", 2), Calls(7)) << "\n"
        << LegacyCommittedUnitText(Result("u1", 4), Calls(1)) << "\n";  // an old journal's second copy
  }
  const std::vector<UnitSpec> plan = Plan({"u0", "u1"});
  // Read without changing anything, then opened: the same units.
  for (int pass = 0; pass < 3; ++pass) {
    std::vector<JournalEntry> committed;
    PlannedUnits planned(plan);
    if (pass == 0) {
      ASSERT_TRUE(ReadJournal(dir.path(), planned, CollectInto(&committed)).ok());
      EXPECT_TRUE(std::filesystem::exists(LegacyJournalPath(dir))) << "ReadJournal changes nothing";
    } else {
      ASSERT_TRUE(ResultJournal::Open(dir.path(), planned, &committed).ok());
      EXPECT_FALSE(std::filesystem::exists(LegacyJournalPath(dir))) << "moved in, then removed";
    }
    ASSERT_THAT(committed, SizeIs(2)) << "pass " << pass;
    for (const JournalEntry& entry : committed) {
      if (entry.result.unit.id == "u0") {
        EXPECT_THAT(entry.result.answers, SizeIs(1)) << "the first stored stays";
      }
      if (entry.result.unit.id == "u1") {
        EXPECT_THAT(entry.result.answers, SizeIs(2)) << "the first of the old journal's copies";
        EXPECT_EQ(entry.calls.at("generate:m").requests, 7);
      }
    }
  }
  const absl::StatusOr<std::vector<std::string>> ids = JournalUnitIds(dir.path());
  ASSERT_TRUE(ids.ok()) << ids.status();
  EXPECT_THAT(*ids, ::testing::ElementsAre("u0", "u1"));
}

TEST(ResultJournalTest, ATornLastRecordIsDroppedAndOverwritten) {
  TempDir dir;
  TempDir other;
  ASSERT_NO_FATAL_FAILURE(WriteJournal(dir, {"u0"}));
  ASSERT_NO_FATAL_FAILURE(WriteJournal(other, {"u1"}));
  const std::string record = FileBytes(JournalPath(other));
  for (const size_t kept : {size_t{3}, record.size() / 2, record.size() - 1}) {  // a crash mid-write
    {
      std::ofstream out(JournalPath(dir), std::ios::app | std::ios::binary);
      out << record.substr(0, kept);
    }
    const std::vector<UnitSpec> plan = Plan({"u0", "u1"});
    std::vector<JournalEntry> committed;
    PlannedUnits planned(plan);
    auto reopened = ResultJournal::Open(dir.path(), planned, &committed);
    ASSERT_TRUE(reopened.ok()) << reopened.status();
    ASSERT_THAT(committed, SizeIs(1)) << kept << " bytes of the record";
    EXPECT_EQ(committed[0].result.unit.id, "u0");
  }
  {
    const std::vector<UnitSpec> plan = Plan({"u0", "u1"});
    PlannedUnits planned(plan);
    auto reopened = ResultJournal::Open(dir.path(), planned, [](JournalEntry) {});
    ASSERT_TRUE(reopened.ok()) << reopened.status();
    ASSERT_TRUE(*(*reopened)->Append(Result("u1", 2), Calls(1)));
  }
  const std::vector<JournalEntry> after = Reopened(dir, Plan({"u0", "u1"}));
  ASSERT_THAT(after, SizeIs(2));
  EXPECT_EQ(after[1].result.unit.id, "u1");
  EXPECT_THAT(after[1].result.answers, SizeIs(2));
}

TEST(ResultJournalTest, ADamagedLengthIsDataLossNotATornRecord) {
  TempDir dir;
  ASSERT_NO_FATAL_FAILURE(WriteJournal(dir, {"u0", "u1"}));
  {
    std::fstream file(JournalPath(dir), std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(2);  // u0's length now points past the end of the file
    file.put('\x7f');
  }
  const std::vector<UnitSpec> plan = Plan({"u0", "u1"});
  PlannedUnits planned(plan);
  auto reopened = ResultJournal::Open(dir.path(), planned, [](JournalEntry) {});
  EXPECT_TRUE(absl::IsDataLoss(reopened.status())) << reopened.status();
  EXPECT_THAT(std::string(reopened.status().message()), ::testing::HasSubstr("header is damaged"));
  EXPECT_THAT(FileBytes(JournalPath(dir)), SizeIs(::testing::Gt(100))) << "nothing cut";
}

TEST(ResultJournalTest, AZeroFilledTailIsATornRecord) {
  TempDir dir;
  ASSERT_NO_FATAL_FAILURE(WriteJournal(dir, {"u0"}));
  {
    std::ofstream out(JournalPath(dir), std::ios::app | std::ios::binary);
    out << std::string(300, '\0');  // a crash after the file grew, before its bytes landed
  }
  const std::vector<UnitSpec> plan = Plan({"u0", "u1"});
  {
    PlannedUnits planned(plan);
    auto reopened = ResultJournal::Open(dir.path(), planned, [](JournalEntry) {});
    ASSERT_TRUE(reopened.ok()) << reopened.status();
    ASSERT_TRUE(*(*reopened)->Append(Result("u1", 2), Calls(1)));
  }
  EXPECT_THAT(Reopened(dir, plan), SizeIs(2));
}

TEST(ResultJournalTest, ADamagedRecordBeforeTheLastIsDataLoss) {
  TempDir dir;
  ASSERT_NO_FATAL_FAILURE(WriteJournal(dir, {"u0", "u1"}));
  {
    std::fstream file(JournalPath(dir), std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(14);  // inside u0's stored bytes: its checksum no longer matches
    file.put('\x7f');
  }
  const std::vector<UnitSpec> plan = Plan({"u0", "u1"});
  std::vector<JournalEntry> committed;
  PlannedUnits planned(plan);
  auto reopened = ResultJournal::Open(dir.path(), planned, &committed);
  EXPECT_TRUE(absl::IsDataLoss(reopened.status())) << reopened.status();
  EXPECT_THAT(std::string(reopened.status().message()), ::testing::HasSubstr("journal.bin at byte 0"));
  EXPECT_FALSE(ReadJournal(dir.path(), planned, [](JournalEntry) {}).ok());
}

TEST(StoreCommitLogTest, CommittedUnitsComeBackOnReopenUnderAnySweepName) {
  InMemoryStore store;
  const std::vector<UnitSpec> plan = Plan({"u0", "u1", "u2"});
  {
    std::vector<JournalEntry> committed;
    PlannedUnits planned(plan);
    auto log = StoreCommitLog::Open(&store, "sweep", planned, &committed);
    ASSERT_TRUE(log.ok()) << log.status();
    EXPECT_THAT(committed, IsEmpty());
    ASSERT_TRUE((*log)->Append(Result("u0", 2), Calls(3)).ok());
    ASSERT_TRUE((*log)->Append(Result("u1", 1), Calls(1)).ok());
    // Committing a unit again keeps the first result (one entry per unit).
    EXPECT_FALSE(*(*log)->Append(Result("u1", 3), Calls(1)));
  }
  EXPECT_EQ(*store.HashLength(keys::Units()), 2);
  const std::vector<JournalEntry> committed = StoreReopened(store, "sweep", plan);
  ASSERT_THAT(committed, SizeIs(2));
  EXPECT_EQ(committed[0].result.unit.id, "u0");
  EXPECT_EQ(committed[0].result.answers[1].answer, "answer 2");
  EXPECT_EQ(committed[0].calls.at("generate:m").requests, 3);
  EXPECT_EQ(committed[1].result.unit.id, "u1");
  EXPECT_THAT(committed[1].result.answers, SizeIs(1));
  // Another sweep (name) planning some of the same units finds them: units are stored by id.
  const std::vector<JournalEntry> other = StoreReopened(store, "another-study", Plan({"u1", "u7"}));
  ASSERT_THAT(other, SizeIs(1));
  EXPECT_EQ(other[0].result.unit.id, "u1");
  EXPECT_EQ(other[0].result.unit.index, 0);
}

TEST(StoreCommitLogTest, AnEarlierVersionsSweepHashIsMovedIn) {
  InMemoryStore store;
  ASSERT_TRUE(store.Set(keys::LegacySweepFingerprint("old"), "ecf173205f345ea9").ok());
  ASSERT_TRUE(
      store.HashSet(keys::LegacySweepResults("old"), "u0", LegacyCommittedUnitText(Result("u0", 2), Calls(1))).ok());
  const std::vector<JournalEntry> committed = StoreReopened(store, "old", Plan({"u0"}));
  ASSERT_THAT(committed, SizeIs(1));
  EXPECT_THAT(committed[0].result.answers, SizeIs(2));
  EXPECT_EQ(*store.HashLength(keys::Units()), 1);
  EXPECT_EQ(*store.HashLength(keys::LegacySweepResults("old")), 0);
  EXPECT_FALSE(store.Get(keys::LegacySweepFingerprint("old"))->has_value());
}

TEST(StoreCommitLogTest, AnEntryThatIsNotAResultIsDataLoss) {
  // Garbage under ng:units: text, bytes that are no message, a message without a unit id, earlier
  // versions' JSON nested 100,000 deep or without a result.
  for (const std::string& garbage :
       {std::string("not json"), std::string("\xff\xfe\x00\x01 garbage", 12), std::string("\x10\x01", 2), std::string(),
        "{\"result\":" + testing_files::DeeplyNestedJson() + "}", std::string("{\"calls\":{}}")}) {
    SCOPED_TRACE(garbage.substr(0, 12));
    InMemoryStore store;
    ASSERT_TRUE(store.HashSet(keys::Units(), "u0", garbage).ok());
    std::vector<JournalEntry> committed;
    const std::vector<UnitSpec> plan = Plan({"u0"});
    PlannedUnits planned(plan);
    auto reopened = StoreCommitLog::Open(&store, "sweep", planned, &committed);
    EXPECT_TRUE(absl::IsDataLoss(reopened.status())) << reopened.status();
    EXPECT_THAT(std::string(reopened.status().message()), ::testing::HasSubstr("not a committed unit"));
  }
  InMemoryStore store;
  ASSERT_TRUE(store.HashSet(keys::Units(), "u0", "not json").ok());
  std::vector<JournalEntry> committed;
  // A broken entry of a unit this plan does not ask for is not this sweep's concern.
  const std::vector<UnitSpec> other = Plan({"u1"});
  PlannedUnits other_planned(other);
  EXPECT_TRUE(StoreCommitLog::Open(&store, "sweep", other_planned, &committed).ok());
}

// Both logs are sources of the committed units' whole results, in the order asked, whichever plan they
// were committed under; the first result stored of a unit is the one they return.
void ExpectAUnitSource(CommitLog& log) {
  ASSERT_TRUE(*log.Append(Result("u0", 2), Calls(1)));
  ASSERT_TRUE(*log.Append(Result("u1", 3), Calls(1)));
  ASSERT_TRUE(*log.Append(Result("u2", 1), Calls(1)));
  EXPECT_FALSE(*log.Append(Result("u1", 5), Calls(1)));
  absl::Status status;
  EXPECT_THAT(Fetched(log, {"u2", "u0", "u1"}, &status), ::testing::ElementsAre("u2:1", "u0:2", "u1:3"));
  EXPECT_TRUE(status.ok()) << status;
  Fetched(log, {"u0", "never-committed"}, &status);
  EXPECT_TRUE(absl::IsNotFound(status)) << status;
  const absl::Status stopped =
      log.ForEachUnit({"u0", "u1"}, [](UnitResult) { return absl::CancelledError("the sink failed"); });
  EXPECT_TRUE(absl::IsCancelled(stopped)) << stopped;
  // The content digest: stable, ordered, and refused for a unit not stored.
  const absl::StatusOr<uint64_t> digest = log.ContentDigest({"u0", "u1"});
  ASSERT_TRUE(digest.ok()) << digest.status();
  EXPECT_EQ(*log.ContentDigest({"u0", "u1"}), *digest);
  EXPECT_NE(*log.ContentDigest({"u1", "u0"}), *digest);
  EXPECT_NE(*log.ContentDigest({"u0", "u2"}), *digest);
  EXPECT_TRUE(absl::IsNotFound(log.ContentDigest({"u0", "never-committed"}).status()));
}

TEST(ResultJournalTest, IsAUnitSourceBeforeAndAfterReopen) {
  TempDir dir;
  {
    const std::vector<UnitSpec> plan = Plan({"u0"});
    PlannedUnits planned(plan);
    auto journal = ResultJournal::Open(dir.path(), planned, [](JournalEntry) {});
    ASSERT_TRUE(journal.ok()) << journal.status();
    ASSERT_NO_FATAL_FAILURE(ExpectAUnitSource(**journal));
  }
  // Reopened under a plan of u0 only: every unit in the file is indexed, planned or not.
  const std::vector<UnitSpec> plan = Plan({"u0"});
  PlannedUnits planned(plan);
  int visited = 0;
  auto journal = ResultJournal::Open(dir.path(), planned, [&visited](JournalEntry) { ++visited; });
  ASSERT_TRUE(journal.ok()) << journal.status();
  EXPECT_EQ(visited, 1);
  absl::Status status;
  EXPECT_THAT(Fetched(**journal, {"u1", "u2", "u0"}, &status), ::testing::ElementsAre("u1:3", "u2:1", "u0:2"));
  EXPECT_TRUE(status.ok()) << status;
  EXPECT_FALSE(*(*journal)->Append(Result("u2", 4), Calls(1))) << "already committed before the reopen";
}

TEST(ResultJournalTest, UnitsAppendedOverATornRecordOrMovedFromAnOldJournalAreFetchedWhole) {
  TempDir dir;
  TempDir other;
  ASSERT_NO_FATAL_FAILURE(WriteJournal(dir, {"u0"}));
  ASSERT_NO_FATAL_FAILURE(WriteJournal(other, {"u1"}));
  const std::string record = FileBytes(JournalPath(other));
  {
    std::ofstream out(JournalPath(dir), std::ios::app | std::ios::binary);
    out << record.substr(0, record.size() / 2);  // a crash mid-write
  }
  {
    std::ofstream out(LegacyJournalPath(dir));
    out << LegacyCommittedUnitText(Result("u2", 4), Calls(1)) << "\n";
  }
  const std::vector<UnitSpec> plan = Plan({"u0", "u1", "u2"});
  PlannedUnits planned(plan);
  auto journal = ResultJournal::Open(dir.path(), planned, [](JournalEntry) {});
  ASSERT_TRUE(journal.ok()) << journal.status();
  ASSERT_TRUE(*(*journal)->Append(Result("u1", 3), Calls(1)));
  absl::Status status;
  EXPECT_THAT(Fetched(**journal, {"u1", "u2", "u0"}, &status), ::testing::ElementsAre("u1:3", "u2:4", "u0:1"));
  EXPECT_TRUE(status.ok()) << status;
}

TEST(ResultJournalTest, AppendingBeforeLoadingIsRefused) {
  TempDir dir;
  ASSERT_NO_FATAL_FAILURE(WriteJournal(dir, {"u0"}));
  auto journal = ResultJournal::Create(dir.path());
  ASSERT_TRUE(journal.ok()) << journal.status();
  const absl::StatusOr<bool> appended = (*journal)->Append(Result("u1", 1), Calls(1));
  EXPECT_TRUE(absl::IsFailedPrecondition(appended.status())) << appended.status();
  EXPECT_THAT(Reopened(dir, Plan({"u0", "u1"})), SizeIs(1)) << "u0 is not overwritten";
}

TEST(ResultJournalTest, AJournalThatCannotBeReadIsAnErrorNotAnEmptyJournal) {
  TempDir dir;
  std::filesystem::create_directories(JournalPath(dir));  // a folder where the file should be
  const std::vector<UnitSpec> plan = Plan({"u0"});
  PlannedUnits planned(plan);
  EXPECT_FALSE(ReadJournal(dir.path(), planned, [](JournalEntry) {}).ok());
  EXPECT_FALSE(ResultJournal::Open(dir.path(), planned, [](JournalEntry) {}).ok());
}

TEST(StoreCommitLogTest, AMovedLegacyUnitDoesNotReplaceOneAlreadyShared) {
  InMemoryStore store;
  ASSERT_TRUE(store.HashSet(keys::Units(), "u0", CommittedUnitBytes(Result("u0", 1), Calls(1))).ok());
  ASSERT_TRUE(
      store.HashSet(keys::LegacySweepResults("old"), "u0", LegacyCommittedUnitText(Result("u0", 2), Calls(1))).ok());
  const std::vector<JournalEntry> committed = StoreReopened(store, "old", Plan({"u0"}));
  ASSERT_THAT(committed, SizeIs(1));
  EXPECT_THAT(committed[0].result.answers, SizeIs(1)) << "the first stored result stays";
}

TEST(StoreCommitLogTest, IsAUnitSource) {
  InMemoryStore store;
  auto log = StoreCommitLog::Create(&store, "sweep");
  ASSERT_TRUE(log.ok()) << log.status();
  ASSERT_NO_FATAL_FAILURE(ExpectAUnitSource(**log));
}

}  // namespace
}  // namespace noveltygrid::commit_log_testing
