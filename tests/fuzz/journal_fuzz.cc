// The coordinator's state files as a restart finds them (coordinator/state/): the result journal
// (DIR/.noveltygrid/journal.bin, and the JSON-lines journal.jsonl of earlier versions) read by
// ReadJournal, JournalUnitIds and ResultJournal::Load, and the lease log (leases.log) read by
// FileLeaseLog. A crash, a full disk or a bad block can leave any bytes there.
//
// First byte, mode % 4:
//   0  the rest is journal.bin as is;
//   1  the rest is cut into records that are framed as the journal frames them (length, CRC-32s), so
//      that the stored bytes reach CommittedUnitFromBytes: each record is a 2-byte little-endian length
//      and that many bytes (fewer at the end: a torn record);
//   2  the rest is journal.jsonl;
//   3  the rest is leases.log.
// A journal that loads must go on working: what ReadJournal finds, Load finds; every unit indexed can
// be read back; a unit appended after Load is found by the next Load.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "coordinator/state/committed_unit.h"
#include "coordinator/state/journal.h"
#include "coordinator/state/lease_log.h"
#include "tests/fuzz/fuzz_util.h"
#include "zlib.h"

namespace noveltygrid {
namespace {

void PutLe32(uint32_t value, std::string* out) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

uint32_t Crc32(std::string_view bytes) {
  return static_cast<uint32_t>(
      ::crc32(0L, reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uInt>(bytes.size())));
}

// Mode 1's input as journal records (the header format of coordinator/state/journal.h).
std::string FrameRecords(std::string_view rest) {
  std::string journal;
  while (rest.size() >= 2) {
    const size_t want = static_cast<uint8_t>(rest[0]) | (static_cast<size_t>(static_cast<uint8_t>(rest[1])) << 8);
    rest.remove_prefix(2);
    const std::string_view stored = rest.substr(0, want);
    rest.remove_prefix(stored.size());
    std::string header;
    PutLe32(static_cast<uint32_t>(want), &header);
    PutLe32(Crc32(stored), &header);
    PutLe32(Crc32(header), &header);
    journal += header;
    journal += stored;
  }
  return journal;
}

// A unit as the plan would give it for `id`.
UnitSpec PlannedUnit(const std::string& id, int index) {
  UnitSpec unit;
  unit.id = id;
  unit.index = index;
  unit.benchmark = kAidanBench;
  unit.model = "sim:explorer";
  unit.temperature = 0.7;
  unit.item_id = "q-1";
  unit.item_text = "Why?";
  return unit;
}

// The ids a plan should hold to see every unit of the journal: journal.bin's, and those of the
// legacy lines that parse.
std::vector<std::string> IdsToPlan(const std::string& dir) {
  std::vector<std::string> ids;
  if (absl::StatusOr<std::vector<std::string>> stored = JournalUnitIds(dir); stored.ok()) ids = *std::move(stored);
  const std::string legacy = fuzz::ReadFileOrEmpty(StateDir(dir) + "/journal.jsonl");
  for (size_t begin = 0, end; (end = legacy.find('\n', begin)) != std::string::npos; begin = end + 1) {
    absl::StatusOr<JournalEntry> entry = CommittedUnitFromBytes(absl::string_view(legacy).substr(begin, end - begin));
    if (entry.ok()) ids.push_back(entry->result.unit.id);
  }
  return ids;
}

std::set<std::string> VisitedIds(const std::vector<JournalEntry>& visited) {
  std::set<std::string> ids;
  for (const JournalEntry& entry : visited) {
    FUZZ_CHECK(ids.insert(entry.result.unit.id).second, "a unit visited twice");
  }
  return ids;
}

void CheckJournal(const std::string& dir) {
  const std::string bin = StateDir(dir) + "/journal.bin";
  const std::string legacy = StateDir(dir) + "/journal.jsonl";
  const std::string bin_before = fuzz::ReadFileOrEmpty(bin);
  const std::string legacy_before = fuzz::ReadFileOrEmpty(legacy);

  std::vector<UnitSpec> plan;
  for (const std::string& id : IdsToPlan(dir)) plan.push_back(PlannedUnit(id, static_cast<int>(plan.size())));
  PlannedUnits planned_for_read(plan);
  std::vector<JournalEntry> read;
  const absl::Status read_status = ReadJournal(dir, planned_for_read, CollectInto(&read));
  FUZZ_CHECK(read_status.ok() || absl::IsDataLoss(read_status), read_status.ToString());
  FUZZ_CHECK(fuzz::ReadFileOrEmpty(bin) == bin_before && fuzz::ReadFileOrEmpty(legacy) == legacy_before,
             "ReadJournal changed a file");
  const std::set<std::string> read_ids = VisitedIds(read);

  PlannedUnits planned_for_load(plan);
  std::vector<JournalEntry> loaded;
  absl::StatusOr<std::unique_ptr<ResultJournal>> journal = ResultJournal::Open(dir, planned_for_load, &loaded);
  FUZZ_CHECK(journal.ok() == read_status.ok(), journal.status().ToString() + " vs " + read_status.ToString());
  if (!journal.ok()) return;
  const std::set<std::string> loaded_ids = VisitedIds(loaded);
  FUZZ_CHECK(loaded_ids == read_ids, "Load found other units than ReadJournal");
  FUZZ_CHECK(fuzz::ReadFileOrEmpty(legacy).empty(), "the legacy journal was not moved");

  const std::vector<std::string> ids(loaded_ids.begin(), loaded_ids.end());
  size_t read_back = 0;
  const absl::Status each = (*journal)->ForEachUnit(ids, [&](UnitResult result) {
    FUZZ_CHECK(loaded_ids.count(result.unit.id) == 1);
    ++read_back;
    return absl::OkStatus();
  });
  FUZZ_CHECK(each.ok() && read_back == ids.size(), each.ToString());
  FUZZ_CHECK((*journal)->ContentDigest(ids).ok());

  UnitResult appended;
  appended.unit = PlannedUnit("fuzz-appended", static_cast<int>(plan.size()));
  appended.answers.push_back(StepRecord{1, "an answer", 80, 1, std::nullopt, true, ""});
  appended.stop_reason = kStopIncoherent;
  const absl::StatusOr<bool> stored = (*journal)->Append(appended, CallStats{});
  FUZZ_CHECK(stored.ok(), stored.status().ToString());
  journal->reset();

  plan.push_back(appended.unit);
  PlannedUnits planned_again(plan);
  std::vector<JournalEntry> again;
  journal = ResultJournal::Open(dir, planned_again, &again);
  FUZZ_CHECK(journal.ok(), "the journal does not load after an append: " + journal.status().ToString());
  std::set<std::string> expected = loaded_ids;
  expected.insert(appended.unit.id);
  FUZZ_CHECK(VisitedIds(again) == expected, "an append lost units or was lost");
}

// leases.log: every record read is one a log could have written; what Reset writes reads back the same.
void CheckLeaseLog(const std::string& dir) {
  absl::StatusOr<std::unique_ptr<FileLeaseLog>> log = FileLeaseLog::Open(dir);
  FUZZ_CHECK(log.ok(), log.status().ToString());
  const absl::StatusOr<std::vector<LeaseRecord>> records = (*log)->Load();
  FUZZ_CHECK(records.ok(), records.status().ToString());
  for (size_t i = 0; i < records->size(); ++i) {
    const LeaseRecord& r = (*records)[i];
    FUZZ_CHECK(!r.unit_id.empty() && r.unit_id.find_first_of(" \n") == std::string::npos);
    FUZZ_CHECK(!r.lease_id.empty() && r.lease_id.find_first_of(" \n") == std::string::npos);
    if (i > 0) FUZZ_CHECK((*records)[i - 1].unit_id < r.unit_id, "records not one per unit, in unit order");
  }
  FUZZ_CHECK((*log)->Reset(*records).ok());
  const absl::StatusOr<std::vector<LeaseRecord>> again = (*log)->Load();
  FUZZ_CHECK(again.ok() && *again == *records, "Reset did not keep what Load read");
  log->reset();
  log = FileLeaseLog::Open(dir);
  FUZZ_CHECK(log.ok(), log.status().ToString());
  const absl::StatusOr<std::vector<LeaseRecord>> reopened = (*log)->Load();
  FUZZ_CHECK(reopened.ok() && *reopened == *records, "the reset log reads differently after a reopen");
}

}  // namespace
}  // namespace noveltygrid

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace noveltygrid;
  const fuzz::Moded in = fuzz::TakeMode(data, size);
  const std::string dir = fuzz::ScratchDir() + "/results";
  fuzz::ResetDir(StateDir(dir));
  const int mode = in.mode % 4;
  if (mode == 3) {
    fuzz::WriteFileOrDie(StateDir(dir) + "/leases.log", in.rest);
    CheckLeaseLog(dir);
    return 0;
  }
  if (mode == 2) {
    fuzz::WriteFileOrDie(StateDir(dir) + "/journal.jsonl", in.rest);
  } else {
    fuzz::WriteFileOrDie(StateDir(dir) + "/journal.bin", mode == 1 ? FrameRecords(in.rest) : std::string(in.rest));
  }
  CheckJournal(dir);
  return 0;
}
