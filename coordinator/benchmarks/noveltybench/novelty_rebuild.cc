#include "coordinator/benchmarks/noveltybench/novelty_rebuild.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/append_unique.h"
#include "common/json_util.h"
#include "common/status_macros.h"
#include "coordinator/benchmarks/noveltybench/novelty_sweep_results.h"
#include "coordinator/benchmarks/noveltybench/noveltybench.h"
#include "coordinator/report/results_files.h"

namespace noveltygrid {

absl::StatusOr<std::unique_ptr<BenchmarkResults>> RebuildNoveltyResults(const RebuildRequest& request,
                                                                        std::vector<std::string>& notes) {
  const std::string& samples_path = request.rows_path;
  ASSIGN_OR_RETURN(std::vector<UnitResult> units, ReadNoveltySweepSamples(samples_path));
  std::optional<NoveltySettings> settings =
      request.old_summary != nullptr ? NoveltySettingsFromSummary(*request.old_summary) : std::nullopt;
  if (!settings.has_value()) {
    settings = DefaultNoveltySettings();
    notes.push_back(absl::StrCat("no recorded NoveltyBench settings; scored with patience ", settings->patience(),
                                 " and described with the defaults (partitioner ", settings->partitioner(),
                                 ", quality ", settings->quality(), ")"));
  }
  std::vector<std::string> models, modes, datasets;
  std::vector<double> temperatures;
  for (const UnitResult& unit : units) {
    AppendUnique(models, unit.unit.model);
    AppendUnique(temperatures, unit.unit.temperature);
    AppendUnique(modes, unit.unit.mode);
    AppendUnique(datasets, unit.unit.dataset);
  }
  NoveltyReducer reducer(*settings, models, temperatures, modes, datasets);
  return ReduceRebuiltUnits(
      request, std::move(units), reducer,
      absl::StrCat("rewrote ", kSamplesFileName, ": its scores or order differed from what patience ",
                   settings->patience(), " gives"),
      notes);
}

}  // namespace noveltygrid
