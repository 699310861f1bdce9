// Reading a results folder back (`noveltygrid report DIR`, coordinator/report/results_reader.h): the
// rows files answers.jsonl and samples.jsonl, the old summary.json, and the JSON forms of the records
// they and the legacy journal hold (common/records_json.h). The folder may have been edited by hand.
//
// First byte: bit 0 writes answers.jsonl, bit 1 samples.jsonl, bit 2 summary.json, bit 3 asks for a
// preset (bit 4: paper-2024, else reference-2025); the rest holds their contents in that order, cut
// at '\x1e'. Every line of the rest also goes through the record readers, which must round-trip what
// they accept.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_split.h"
#include "common/aidan_preset.h"
#include "common/json_util.h"
#include "common/records_json.h"
#include "coordinator/report/results_files.h"
#include "coordinator/report/results_reader.h"
#include "tests/fuzz/fuzz_util.h"

namespace noveltygrid {
namespace {

// FromJson(ToJson(FromJson(j))) gives the same record back: checked through the JSON forms.
template <typename Record>
void CheckRoundTrip(const Json& json, absl::StatusOr<Record> (*from)(const Json&), Json (*to)(const Record&)) {
  const absl::StatusOr<Record> first = from(json);
  if (!first.ok()) {
    FUZZ_CHECK(absl::IsInvalidArgument(first.status()), first.status().ToString());
    return;
  }
  const Json written = to(*first);
  const absl::StatusOr<Record> second = from(written);
  FUZZ_CHECK(second.ok(), second.status().ToString() + " reading back " + DumpJson(written));
  FUZZ_CHECK(DumpJson(to(*second)) == DumpJson(written), DumpJson(written));
}

void CheckRecordLines(std::string_view text) {
  for (absl::string_view line : absl::StrSplit(absl::string_view(text.data(), text.size()), '\n')) {
    const absl::StatusOr<Json> json = ParseJson(std::string_view(line.data(), line.size()));
    if (!json.ok()) continue;
    CheckRoundTrip<StepRecord>(*json, &StepFromJson, &StepToJson);
    CheckRoundTrip<UnitSpec>(*json, &UnitSpecFromJson, &UnitSpecToJson);
    CheckRoundTrip<UnitResult>(*json, &UnitResultFromJson, &UnitResultToJson);
    const CallStats calls = CallStatsFromJson(*json);
    FUZZ_CHECK(DumpJson(CallStatsToJson(CallStatsFromJson(CallStatsToJson(calls)))) ==
               DumpJson(CallStatsToJson(calls)));
  }
}

// The files `report` leaves in the folder, as one text.
std::string FolderText(const std::string& dir) {
  std::string text;
  for (const char* name : {kAnswersFileName, kSamplesFileName, kSummaryFileName, kLeaderboardFileName}) {
    text += std::string(name) + ":\n" + fuzz::ReadFileOrEmpty(dir + "/" + name) + "\n";
  }
  return text;
}

}  // namespace
}  // namespace noveltygrid

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace noveltygrid;
  const fuzz::Moded in = fuzz::TakeMode(data, size);
  CheckRecordLines(in.rest);

  const std::string dir = fuzz::ScratchDir() + "/results";
  fuzz::ResetDir(dir);
  const std::vector<std::string_view> parts = fuzz::SplitParts(in.rest, 3);
  size_t next = 0;
  for (const auto& [bit, name] : {std::pair{1, kAnswersFileName}, {2, kSamplesFileName}, {4, kSummaryFileName}}) {
    if ((in.mode & bit) == 0) continue;
    fuzz::WriteFileOrDie(dir + "/" + name, next < parts.size() ? parts[next] : std::string_view());
    ++next;
  }
  std::optional<AidanPreset> preset;
  if (in.mode & 8) {
    absl::StatusOr<AidanPreset> found = FindAidanPreset((in.mode & 16) ? "paper-2024" : "reference-2025");
    FUZZ_CHECK(found.ok());
    preset = *found;
  }

  const absl::StatusOr<RebuildOutcome> first = RebuildResultsFolder(dir, preset);
  if (!first.ok()) {
    FUZZ_CHECK(absl::IsInvalidArgument(first.status()) || absl::IsNotFound(first.status()) ||
                   absl::IsFailedPrecondition(first.status()),
               first.status().ToString());
    return 0;
  }
  FUZZ_CHECK(!first->parts.empty());
  // A rebuilt folder is its own fixed point: rebuilding it again changes nothing.
  const std::string rebuilt = FolderText(dir);
  const absl::StatusOr<RebuildOutcome> second = RebuildResultsFolder(dir, preset);
  FUZZ_CHECK(second.ok(), second.status().ToString());
  FUZZ_CHECK(second->leaderboard == first->leaderboard);
  const std::string again = FolderText(dir);
  FUZZ_CHECK(again == rebuilt, "\nfirst rebuild:\n" + rebuilt + "\nsecond rebuild:\n" + again);
  return 0;
}
