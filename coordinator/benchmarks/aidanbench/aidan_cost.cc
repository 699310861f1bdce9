// AidanBench's expected calls (Benchmark::ExpectedCalls). A unit of n iterations sends n generate calls
// whose prompts carry every earlier answer, so its generate prompt tokens are n*a + c*n(n-1)/2 (a: the
// question and instructions, c: tokens per answer), and every other call (judge, embedder) grows with
// n. The loop-length prior (the mean of n and of n(n-1)/2) is, in order: `aidanbench.expected_iterations`
// for the model (or for every model), else the committed units of the same model, else those of the
// sweep's other models, else kDefaultIterations; capped by max_iterations. Token rates (a, c, the
// per-iteration calls of each helper) are learned the same way, else defaults.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "coordinator/benchmarks/aidanbench/aidanbench.h"

namespace noveltygrid {

std::map<std::string, CallsEstimate> AidanBenchmark::ExpectedCalls(const UnitSpec& unit,
                                                                   const LearnedCosts& learned) const {
  const LearnedCalls* own = learned.Find(unit.benchmark, unit.model, "");
  const LearnedCalls* rates = own != nullptr ? own : learned.Find(unit.benchmark, kAnyGroup, "");

  // The loop-length prior: mean n and mean n(n-1)/2.
  double n = kDefaultIterations;
  double pairs = n * (n - 1) / 2;
  const auto configured = [this](const std::string& key) -> const double* {
    auto it = expected_iterations_.find(key);
    return it == expected_iterations_.end() ? nullptr : &it->second;
  };
  if (const double* prior = configured(unit.model) ? configured(unit.model) : configured("")) {
    n = *prior;
    pairs = n * (n - 1) / 2;
  } else if (rates != nullptr) {
    n = rates->iterations / rates->units;
    pairs = rates->pairs / rates->units;
  }
  if (const int cap = settings_.max_iterations(); cap > 0) {
    n = std::min(n, static_cast<double>(cap));
    pairs = std::min(pairs, cap * (cap - 1) / 2.0);
  }

  std::map<std::string, CallsEstimate> calls;
  if (rates == nullptr || rates->iterations == 0) {
    // Nothing learned: a generate, a judge and an embed call per iteration.
    const double answer = std::min(150.0, static_cast<double>(settings_.max_tokens()));
    const double base = 60 + static_cast<double>(unit.item_text.size()) / 4;
    calls[kGenerateSelf] = CallsEstimate{n, base * n + (answer + 10) * pairs, answer * n};
    calls[absl::StrCat("judge:", settings_.judge())] = CallsEstimate{n, (250 + answer) * n, 10 * n};
    calls[absl::StrCat("embed:", settings_.embedder())] = CallsEstimate{n, answer * n, 0};
    return calls;
  }
  const double it = rates->iterations;
  for (const auto& [key, sum] : rates->calls) {
    CallsEstimate per = Scaled(sum, n / it);  // linear in the iterations
    if (key == kGenerateSelf) {
      // Prompt tokens = a*n + b*n(n-1)/2 over the learned units; b is the tokens an earlier answer adds
      // (the answer's completion tokens when the units cannot tell a from b: all of one length).
      const double answer = sum.completion_tokens / it;
      const double base = std::max(0.0, (sum.prompt_tokens - answer * rates->pairs) / it);
      per.prompt_tokens = base * n + answer * pairs;
    }
    calls[key] = per;
  }
  return calls;
}

}  // namespace noveltygrid
