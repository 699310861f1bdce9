// NoveltyBench's expected calls (Benchmark::ExpectedCalls): a unit's calls (k generations, partition
// and quality calls) learned per (model, mode) from committed units, else the model's, else the other
// models' (same mode first), else defaults from the settings.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "coordinator/benchmarks/noveltybench/noveltybench.h"

namespace noveltygrid {

std::map<std::string, CallsEstimate> NoveltyBenchmark::ExpectedCalls(const UnitSpec& unit,
                                                                     const LearnedCosts& learned) const {
  const LearnedCalls* rates = learned.Find(unit.benchmark, unit.model, unit.mode);
  if (rates == nullptr) rates = learned.Find(unit.benchmark, unit.model, kAnyGroup);
  if (rates == nullptr) rates = learned.Find(unit.benchmark, kAnyGroup, unit.mode);
  if (rates == nullptr) rates = learned.Find(unit.benchmark, kAnyGroup, kAnyGroup);
  std::map<std::string, CallsEstimate> calls;
  if (rates != nullptr) {
    for (const auto& [key, sum] : rates->calls) calls[key] = Scaled(sum, 1 / rates->units);
    return calls;
  }
  // Nothing learned: k generations (one request with n = k where the mode allows it, else k requests),
  // about k partition comparisons, and a quality call per class opener (about half of k).
  const NoveltySettings& s = settings_;
  const double k = s.k();
  const double generation = std::min(200.0, static_cast<double>(s.max_tokens()));
  const double prompt = 30 + static_cast<double>(unit.item_text.size()) / 4;
  const bool one_request = s.ask_n() && (unit.mode == kModeStandard || unit.mode == kModeSystemPrompt);
  const double requests = one_request ? 1 : k;
  calls[kGenerateSelf] = CallsEstimate{requests, prompt * requests, generation * k};
  if (s.partitioner() == kPartitionerLlmGroups) {  // one call listing all k generations
    calls[absl::StrCat("judge:", s.partition_model())] = CallsEstimate{1, prompt + generation * k, 4 * k};
  } else if (!s.partition_model().empty()) {
    const char* role = s.partitioner() == kPartitionerClassifier  ? "classify"
                       : s.partitioner() == kPartitionerEmbedding ? "embed"
                                                                  : "judge";
    calls[absl::StrCat(role, ":", s.partition_model())] = CallsEstimate{k, 2 * generation * k, 0};
  }
  if (!s.quality_model().empty()) {
    const char* role = s.quality() == kQualityReward ? "reward" : "judge";
    calls[absl::StrCat(role, ":", s.quality_model())] = CallsEstimate{k / 2, (prompt + generation) * k / 2, 0};
  }
  return calls;
}

}  // namespace noveltygrid
