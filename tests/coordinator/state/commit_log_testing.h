// Helpers of the commit log tests: units and results to commit, plans of unit ids, and what a log
// holds after a reopen.
#ifndef NOVELTYGRID_TESTS_COORDINATOR_STATE_COMMIT_LOG_TESTING_H_
#define NOVELTYGRID_TESTS_COORDINATOR_STATE_COMMIT_LOG_TESTING_H_

#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "common/storage/store.h"
#include "coordinator/state/journal.h"
#include "coordinator/state/store_commit_log.h"
#include "gtest/gtest.h"
#include "tests/common/test_files.h"

namespace noveltygrid::commit_log_testing {

using testing_files::TempDir;

inline UnitSpec Unit(const std::string& unit_id, int index = 0) {
  UnitSpec unit;
  unit.id = unit_id;
  unit.index = index;
  unit.benchmark = kAidanBench;
  unit.model = "m";
  unit.item_text = "a question";
  return unit;
}

inline UnitResult Result(const std::string& unit_id, int answers) {
  UnitResult result;
  result.unit = Unit(unit_id);
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

inline CallStats Calls(int64_t requests) {
  CallStats calls;
  calls["generate:m"].requests = requests;
  return calls;
}

// A plan of the given unit ids, at indices 0, 1, ...
inline std::vector<UnitSpec> Plan(const std::vector<std::string>& ids) {
  std::vector<UnitSpec> units;
  for (const std::string& id : ids) units.push_back(Unit(id, static_cast<int>(units.size())));
  return units;
}

inline std::string JournalPath(const TempDir& dir) { return (dir.path() / ".noveltygrid" / "journal.bin").string(); }
// Earlier versions' JSON-lines journal.
inline std::string LegacyJournalPath(const TempDir& dir) {
  return (dir.path() / ".noveltygrid" / "journal.jsonl").string();
}

inline std::string FileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// What reopening the journal of `dir` finds committed of the units `plan` plans.
inline std::vector<JournalEntry> Reopened(const TempDir& dir, const std::vector<UnitSpec>& plan) {
  std::vector<JournalEntry> committed;
  PlannedUnits planned(plan);
  absl::StatusOr<std::unique_ptr<ResultJournal>> journal = ResultJournal::Open(dir.path(), planned, &committed);
  EXPECT_TRUE(journal.ok()) << journal.status();
  return committed;
}

// What StoreCommitLog::Open under sweep name `sweep` finds committed of `plan`.
inline std::vector<JournalEntry> StoreReopened(Store& store, const std::string& sweep,
                                               const std::vector<UnitSpec>& plan) {
  std::vector<JournalEntry> committed;
  PlannedUnits planned(plan);
  auto log = StoreCommitLog::Open(&store, sweep, planned, &committed);
  EXPECT_TRUE(log.ok()) << log.status();
  return committed;
}

// The answers of what `log` returns for `ids`, as "ID:ANSWERS" in the order it returns them.
inline std::vector<std::string> Fetched(const CommitLog& log, const std::vector<std::string>& ids,
                                        absl::Status* status) {
  std::vector<std::string> fetched;
  *status = log.ForEachUnit(ids, [&fetched](UnitResult result) {
    fetched.push_back(result.unit.id + ":" + std::to_string(result.answers.size()));
    return absl::OkStatus();
  });
  return fetched;
}

}  // namespace noveltygrid::commit_log_testing

#endif  // NOVELTYGRID_TESTS_COORDINATOR_STATE_COMMIT_LOG_TESTING_H_
