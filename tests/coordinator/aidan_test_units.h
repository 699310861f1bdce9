// Hand-made AidanBench unit results for the reducer, writer and report tests.
#ifndef NOVELTYGRID_TESTS_COORDINATOR_AIDAN_TEST_UNITS_H_
#define NOVELTYGRID_TESTS_COORDINATOR_AIDAN_TEST_UNITS_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/config.h"
#include "common/records.h"
#include "gtest/gtest.h"

namespace noveltygrid::testing_units {

inline AidanPreset Preset(const std::string& name) {
  absl::StatusOr<AidanPreset> preset = FindAidanPreset(name);
  EXPECT_TRUE(preset.ok()) << preset.status();
  return preset.value_or(AidanPreset{});
}

// A unit whose answers have the given (coherence, novelty) pairs, in loop order.
inline UnitResult MakeUnit(const std::string& model, double temperature, int index,
                           const std::vector<std::pair<double, double>>& scores,
                           const std::string& stop_reason = kStopRepetitive) {
  UnitResult r;
  r.unit.id = absl::StrCat(model, "/", temperature, "/", index);
  r.unit.index = index;
  r.unit.benchmark = kAidanBench;
  r.unit.model = model;
  r.unit.temperature = temperature;
  r.unit.item_id = absl::StrCat("q", index % 3);
  r.unit.item_text = absl::StrCat("Question number ", index % 3, "?");
  int n = 0;
  for (const auto& [coherence, novelty] : scores) {
    StepRecord a;
    a.answer_num = ++n;
    a.answer = absl::StrCat("answer ", n, " of ", r.unit.id);
    a.coherence = coherence;
    a.novelty = novelty;
    r.answers.push_back(a);
  }
  r.stop_reason = stop_reason;
  return r;
}

// Two models x three temperatures x three questions, with awkward fractions so the order of
// floating point sums shows in the last digits.
inline std::vector<UnitResult> SweepUnits() {
  std::vector<UnitResult> units;
  int index = 0;
  for (const std::string model : {"sim:explorer", "sim:collapse"}) {
    for (double t : {0.0, 0.7, 1.0}) {
      for (int q = 0; q < 3; ++q) {
        std::vector<std::pair<double, double>> scores;
        const int n = 2 + (index * 7) % 5;
        for (int i = 0; i < n; ++i) scores.push_back({90.0 - 3.3 * i, 1.0 / (1.0 + 0.37 * i + 0.01 * index)});
        scores.push_back({12, 0.5});
        units.push_back(MakeUnit(model, t, index++, scores, kStopIncoherent));
      }
    }
  }
  return units;
}

}  // namespace noveltygrid::testing_units

#endif  // NOVELTYGRID_TESTS_COORDINATOR_AIDAN_TEST_UNITS_H_
