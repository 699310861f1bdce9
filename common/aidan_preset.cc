#include "common/aidan_preset.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace noveltygrid {
namespace {

const std::vector<AidanPreset>& Presets() {
  static const std::vector<AidanPreset>* const kPresets = new std::vector<AidanPreset>{
      // The reference code (2025): 0-100 judge; the loop stops at coherence <= 15, the scorer stops
      // counting at coherence < 15 (so an answer judged exactly 15 ends the loop but is valid).
      {"reference-2025", 100, 15, 0.15, 15, 0.15},
      // The paper (2024): 1-10 judge, the loop stops at coherence <= 3 or novelty < 0.1 and the score
      // counts answers up to the first that stopped it. The judge gives integers 1..10, so "<= 3 stops"
      // is "< 4 is invalid" in MarkValidAnswers' terms (`coherence < valid_coherence_below`).
      {"paper-2024", 10, 3, 0.1, 4, 0.1},
  };
  return *kPresets;
}

}  // namespace

std::string AidanPresetNames() {
  std::vector<std::string> names;
  for (const AidanPreset& p : Presets()) names.push_back(p.name);
  return absl::StrJoin(names, ", ");
}

absl::StatusOr<AidanPreset> FindAidanPreset(const std::string& name) {
  for (const AidanPreset& preset : Presets()) {
    if (preset.name == name) return preset;
  }
  return absl::NotFoundError(
      absl::StrCat("unknown AidanBench preset '", name, "'; expected one of: ", AidanPresetNames()));
}

}  // namespace noveltygrid
