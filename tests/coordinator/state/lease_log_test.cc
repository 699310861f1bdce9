// The lease log, both kinds: the file in the results folder and the hash in the Store (on the in-memory
// Store). What a restarted coordinator reads back is the latest lease of each unit; torn and garbled
// records are skipped, never an error; Reset compacts.
#include "coordinator/state/lease_log.h"

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "common/storage/keys.h"
#include "common/storage/memory_store.h"
#include "coordinator/state/journal.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/common/test_files.h"

namespace noveltygrid {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

enum class Kind { kFile, kStore };

class LeaseLogTest : public ::testing::TestWithParam<Kind> {
 protected:
  // A log over this test's folder or store: a second one opened the same way sees what the first wrote
  // (a restarted coordinator).
  std::unique_ptr<LeaseLog> OpenLog() {
    if (GetParam() == Kind::kStore) return std::make_unique<StoreLeaseLog>(&store_, "sweep");
    absl::StatusOr<std::unique_ptr<FileLeaseLog>> log = FileLeaseLog::Open(dir_.path().string());
    EXPECT_TRUE(log.ok()) << log.status();
    return log.ok() ? std::move(*log) : nullptr;
  }
  // `log` closed (the coordinator died: a file log's folder lock goes with it) and opened again.
  std::vector<LeaseRecord> LoadAgain(std::unique_ptr<LeaseLog>& log) {
    log.reset();
    log = OpenLog();
    if (log == nullptr) return {};
    absl::StatusOr<std::vector<LeaseRecord>> records = log->Load();
    EXPECT_TRUE(records.ok()) << records.status();
    return records.ok() ? *records : std::vector<LeaseRecord>{};
  }
  // Adds bytes no version writes where the records are.
  void AddGarbage() {
    if (GetParam() == Kind::kStore) {
      ASSERT_TRUE(store_.HashSet(keys::SweepLeases("sweep"), "u-garbage", std::string("\x00\xff junk", 7)).ok());
      ASSERT_TRUE(store_.HashSet(keys::SweepLeases("sweep"), "u-token", "L7 notanumber w").ok());
    } else {
      std::ofstream out(StateDir(dir_.path().string()) + "/leases.log", std::ios::app | std::ios::binary);
      out << "garbage\n" << std::string("\x00\xff", 2) << "\nu-token L7 notanumber w\nu-id L8\n";
    }
  }

  testing_files::TempDir dir_;
  InMemoryStore store_;
};

TEST_P(LeaseLogTest, ARestartedCoordinatorReadsTheLatestLeaseOfEachUnit) {
  std::unique_ptr<LeaseLog> log = OpenLog();
  ASSERT_TRUE(log->Record({{"u1", "L1", 1, "worker a"}, {"u2", "L2", 1, "b"}}).ok());
  ASSERT_TRUE(log->Record({{"u1", "L3", 2, "line\nbreak\tworker"}}).ok());
  ASSERT_TRUE(log->Record({}).ok());
  EXPECT_THAT(LoadAgain(log),
              ElementsAre(LeaseRecord{"u1", "L3", 2, "line\nbreak\tworker"}, LeaseRecord{"u2", "L2", 1, "b"}));
}

TEST_P(LeaseLogTest, AnOlderLeaseRecordedLaterDoesNotWin) {
  std::unique_ptr<LeaseLog> log = OpenLog();
  ASSERT_TRUE(log->Record({{"u1", "L2", 2, "b"}}).ok());
  ASSERT_TRUE(log->Record({{"u1", "L1", 1, "a"}}).ok());
  if (GetParam() == Kind::kStore) {
    // A hash holds one value per unit: the last one written.
    EXPECT_THAT(LoadAgain(log), ElementsAre(LeaseRecord{"u1", "L1", 1, "a"}));
  } else {
    EXPECT_THAT(LoadAgain(log), ElementsAre(LeaseRecord{"u1", "L2", 2, "b"}));
  }
}

TEST_P(LeaseLogTest, GarbledRecordsAreSkipped) {
  std::unique_ptr<LeaseLog> log = OpenLog();
  ASSERT_TRUE(log->Record({{"u1", "L1", 1, "a"}}).ok());
  ASSERT_NO_FATAL_FAILURE(AddGarbage());
  EXPECT_THAT(LoadAgain(log), ElementsAre(LeaseRecord{"u1", "L1", 1, "a"}));
}

TEST_P(LeaseLogTest, ResetKeepsOnlyWhatItIsGivenAndRecordsGoOnAfterIt) {
  std::unique_ptr<LeaseLog> log = OpenLog();
  ASSERT_TRUE(log->Record({{"u1", "L1", 1, "a"}, {"u2", "L2", 1, "a"}}).ok());
  ASSERT_TRUE(log->Reset({{"u2", "L2", 1, "a"}}).ok());
  ASSERT_TRUE(log->Record({{"u3", "L3", 1, "b"}}).ok());
  EXPECT_THAT(LoadAgain(log), ElementsAre(LeaseRecord{"u2", "L2", 1, "a"}, LeaseRecord{"u3", "L3", 1, "b"}));
  ASSERT_TRUE(log->Reset({}).ok());
  EXPECT_THAT(LoadAgain(log), IsEmpty());
}

INSTANTIATE_TEST_SUITE_P(Both, LeaseLogTest, ::testing::Values(Kind::kFile, Kind::kStore),
                         [](const ::testing::TestParamInfo<Kind>& info) {
                           return info.param == Kind::kFile ? "File" : "Store";
                         });

TEST(FileLeaseLogTest, ASecondCoordinatorOnTheFolderIsRefusedWhileTheFirstRuns) {
  testing_files::TempDir dir;
  absl::StatusOr<std::unique_ptr<FileLeaseLog>> first = FileLeaseLog::Open(dir.path().string());
  ASSERT_TRUE(first.ok()) << first.status();
  absl::StatusOr<std::unique_ptr<FileLeaseLog>> second = FileLeaseLog::Open(dir.path().string());
  ASSERT_TRUE(absl::IsFailedPrecondition(second.status())) << second.status();
  EXPECT_THAT(second.status().message(), ::testing::HasSubstr("another coordinator is running on"));
  first->reset();
  EXPECT_TRUE(FileLeaseLog::Open(dir.path().string()).ok()) << "the lock goes with the first log";
}

TEST(FileLeaseLogTest, ATornLastLineIsIgnoredAndTheNextRecordStartsALineOfItsOwn) {
  testing_files::TempDir dir;
  {
    absl::StatusOr<std::unique_ptr<FileLeaseLog>> log = FileLeaseLog::Open(dir.path().string());
    ASSERT_TRUE(log.ok()) << log.status();
    ASSERT_TRUE((*log)->Record({{"u1", "L1", 1, "a"}}).ok());
  }
  {
    std::ofstream out(StateDir(dir.path().string()) + "/leases.log", std::ios::app | std::ios::binary);
    out << "u2 L2 1 b";  // the crash cut the line before its newline
  }
  absl::StatusOr<std::unique_ptr<FileLeaseLog>> log = FileLeaseLog::Open(dir.path().string());
  ASSERT_TRUE(log.ok()) << log.status();
  absl::StatusOr<std::vector<LeaseRecord>> records = (*log)->Load();
  ASSERT_TRUE(records.ok()) << records.status();
  EXPECT_THAT(*records, ElementsAre(LeaseRecord{"u1", "L1", 1, "a"}));
  ASSERT_TRUE((*log)->Record({{"u3", "L3", 1, "c"}}).ok());
  records = (*log)->Load();
  ASSERT_TRUE(records.ok()) << records.status();
  // The torn line was cut when the log was opened: u3 is not lost in it.
  EXPECT_THAT(*records, ElementsAre(LeaseRecord{"u1", "L1", 1, "a"}, LeaseRecord{"u3", "L3", 1, "c"}));
}

}  // namespace
}  // namespace noveltygrid
