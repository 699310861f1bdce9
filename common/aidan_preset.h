// The AidanBench presets: the stop and validity rules of one protocol, by name. Used by the config
// loader (aidanbench.preset), the engine's loop and the scorer.
#ifndef NOVELTYGRID_COMMON_AIDAN_PRESET_H_
#define NOVELTYGRID_COMMON_AIDAN_PRESET_H_

#include <string>

#include "absl/status/statusor.h"

namespace noveltygrid {

// The stop and validity rules of one AidanBench protocol (see ../shared/REFERENCE.md).
struct AidanPreset {
  std::string name;               // "reference-2025" or "paper-2024"
  int judge_scale_max = 100;      // 100 (0-100 judge) or 10 (1-10 judge)
  double stop_coherence_at_most;  // the loop stops when coherence <= this
  double stop_novelty_below;      // ... or novelty < this (also llm_novelty when that judge is on)
  double valid_coherence_below;   // the scorer stops counting at coherence < this
  double valid_novelty_below;     // ... or novelty < this
};

// Returns the named preset, or NotFound listing the known names.
absl::StatusOr<AidanPreset> FindAidanPreset(const std::string& name);

// The known preset names, comma-separated, for messages.
std::string AidanPresetNames();

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COMMON_AIDAN_PRESET_H_
