// Hand-made NoveltyBench unit results for the reducer, writer and report tests, and a small sweep
// whose means are worked out by hand below (patience 0.5, k = 2: generation weights 1 and 0.5).
#ifndef NOVELTYGRID_TESTS_COORDINATOR_NOVELTY_TEST_UNITS_H_
#define NOVELTYGRID_TESTS_COORDINATOR_NOVELTY_TEST_UNITS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/records.h"
#include "common/unit_settings.h"

namespace noveltygrid::testing_units {

// A completed unit with the given partition and quality (one generation per entry).
inline UnitResult MakeNoveltyUnit(const std::string& model, double temperature, const std::string& mode,
                                  const std::string& dataset, int index, std::vector<int> partition,
                                  std::vector<std::optional<int>> quality) {
  UnitResult r;
  r.unit.id = absl::StrCat(model, "/", temperature, "/", mode, "/", dataset, "/", index);
  r.unit.index = index;
  r.unit.benchmark = kNoveltyBench;
  r.unit.model = model;
  r.unit.temperature = temperature;
  r.unit.item_id = absl::StrCat(dataset, "-", index % 4);
  r.unit.item_text = absl::StrCat("Prompt ", index % 4, " of ", dataset, "?");
  r.unit.mode = mode;
  r.unit.dataset = dataset;
  for (size_t i = 0; i < partition.size(); ++i) {
    StepRecord a;
    a.answer_num = static_cast<int>(i) + 1;
    a.answer = absl::StrCat("generation ", i + 1, " of ", r.unit.id);
    r.answers.push_back(std::move(a));
  }
  NoveltyOutcome outcome;
  outcome.partition = std::move(partition);
  outcome.quality = std::move(quality);
  r.novelty = std::move(outcome);
  r.stop_reason = kStopComplete;
  return r;
}

// A unit that failed after `made` generations.
inline UnitResult MakeFailedNoveltyUnit(const std::string& model, double temperature, const std::string& mode,
                                        const std::string& dataset, int index, int made, const std::string& error) {
  UnitResult r = MakeNoveltyUnit(model, temperature, mode, dataset, index, std::vector<int>(made, 0), {});
  r.novelty.reset();
  r.stop_reason = kStopError;
  r.error = error;
  return r;
}

inline NoveltySettings HandSettings() {
  NoveltySettings s = DefaultNoveltySettings();
  s.set_k(2);
  s.set_patience(0.5);
  return s;
}

// Model "m" at 1.0 -- utility = (earned_0 + earned_1 / 2) / 1.5:
//   standard/curated   A: [0,1] q [6,3] -> utility 5, distinct 2;  B: [0,0] q [3,-] -> 2, 1
//   standard/wildchat  C: [0,1] q [9,3] -> 7, 2
//   paraphrase/curated D: [0,1] q [1,1] -> 1, 2
//   paraphrase/wildchat  failed
// Model "m" at 0.7: standard/curated B' -> 2, 1.  Model "n" at 1.0: standard/curated A' -> 5, 2.
inline std::vector<UnitResult> HandNoveltyUnits() {
  return {
      MakeNoveltyUnit("m", 1.0, kModeStandard, "curated", 0, {0, 1}, {6, 3}),
      MakeNoveltyUnit("m", 1.0, kModeStandard, "curated", 1, {0, 0}, {3, std::nullopt}),
      MakeNoveltyUnit("m", 1.0, kModeStandard, "wildchat", 2, {0, 1}, {9, 3}),
      MakeNoveltyUnit("m", 1.0, kModeParaphrase, "curated", 3, {0, 1}, {1, 1}),
      MakeFailedNoveltyUnit("m", 1.0, kModeParaphrase, "wildchat", 4, 1, "generation by m failed: HTTP 503"),
      MakeNoveltyUnit("m", 0.7, kModeStandard, "curated", 5, {0, 0}, {3, std::nullopt}),
      MakeNoveltyUnit("n", 1.0, kModeStandard, "curated", 6, {0, 1}, {6, 3}),
  };
}

inline const std::vector<std::string>& HandModels() {
  static const auto* const kModels = new std::vector<std::string>{"m", "n"};
  return *kModels;
}
inline const std::vector<double>& HandTemperatures() {
  static const auto* const kTemps = new std::vector<double>{1.0, 0.7};
  return *kTemps;
}
inline const std::vector<std::string>& HandModes() {
  static const auto* const kModes = new std::vector<std::string>{kModeStandard, kModeParaphrase};
  return *kModes;
}
inline const std::vector<std::string>& HandDatasets() {
  static const auto* const kDatasets = new std::vector<std::string>{"curated", "wildchat"};
  return *kDatasets;
}

}  // namespace noveltygrid::testing_units

#endif  // NOVELTYGRID_TESTS_COORDINATOR_NOVELTY_TEST_UNITS_H_
