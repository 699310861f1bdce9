// `noveltygrid import aidanbench FILE.json` (cli/import_command.cc) on any file: the reference-layout
// reader (coordinator/benchmarks/aidanbench/aidan_import.h), then what the command does with an
// accepted file -- reduce, write the results folder -- and `noveltygrid report` on that folder, which
// must read back what import wrote.
//
// First byte: bit 0 chooses the preset (paper-2024, else reference-2025). The rest is the file.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "common/aidan_preset.h"
#include "common/json_util.h"
#include "coordinator/benchmarks/aidanbench/aidan_import.h"
#include "coordinator/benchmarks/aidanbench/aidan_reducer.h"
#include "coordinator/benchmarks/aidanbench/aidan_results.h"
#include "coordinator/report/results_reader.h"
#include "coordinator/report/results_writer.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace noveltygrid;
  const fuzz::Moded in = fuzz::TakeMode(data, size);
  const absl::StatusOr<AidanPreset> preset = FindAidanPreset((in.mode & 1) ? "paper-2024" : "reference-2025");
  FUZZ_CHECK(preset.ok());
  const absl::StatusOr<Json> root = ParseJson(in.rest);
  if (!root.ok()) return 0;
  absl::StatusOr<AidanImport> imported = ImportAidanReferenceJson(*root, "fuzz.json", *preset);
  if (!imported.ok()) {
    FUZZ_CHECK(absl::IsInvalidArgument(imported.status()), imported.status().ToString());
    return 0;
  }
  const std::set<std::string> models(imported->models.begin(), imported->models.end());
  FUZZ_CHECK(models.size() == imported->models.size(), "a model imported twice");
  for (const UnitResult& unit : imported->units) {
    FUZZ_CHECK(models.count(unit.unit.model) == 1);
    for (const StepRecord& answer : unit.answers) FUZZ_CHECK(answer.coherence <= preset->judge_scale_max);
  }

  AidanReducer reducer(*preset, imported->models, imported->temperatures);
  for (UnitResult& unit : imported->units) reducer.Add(std::move(unit));
  reducer.SetRunInfo(Json{{"command", "import aidanbench"}, {"source", "fuzz.json"}});
  ResultsOptions options;
  options.simulated_models = SimulatedModelIds(imported->models, {});
  const AidanSnapshot snapshot = reducer.Snapshot();
  const std::string dir = fuzz::ScratchDir() + "/import";
  fuzz::ResetDir(dir);
  const absl::Status written = WriteResultsFolder(dir, snapshot, options);
  FUZZ_CHECK(written.ok(), written.ToString());
  const std::string leaderboard = FormatLeaderboard(snapshot, options);

  const absl::StatusOr<RebuildOutcome> report = RebuildResultsFolder(dir, std::nullopt);
  FUZZ_CHECK(report.ok(), "report cannot read what import wrote: " + report.status().ToString());
  // The preset is recorded with each (model, temperature) cell: a file without one leaves report to
  // assume reference-2025 in the header of its empty table.
  if (snapshot.cells.empty()) return 0;
  FUZZ_CHECK(report->leaderboard == leaderboard,
             "\nimport printed:\n" + leaderboard + "\nreport rebuilt:\n" + report->leaderboard);
  return 0;
}
