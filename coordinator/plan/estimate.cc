#include "coordinator/plan/estimate.h"

#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "common/call_cost.h"

namespace noveltygrid {

namespace {

constexpr char kSelf[] = "*self*";  // the unit's own model in a learned key
constexpr char kAny[] = "*";        // a group over every model (or every mode)
constexpr char kGenerateSelf[] = "generate:*self*";

std::string GroupKey(const std::string& benchmark, const std::string& model, const std::string& mode) {
  return absl::StrCat(benchmark, "|", model, "|", mode);
}

// "ROLE:MODEL" with the unit's model written as kSelf, and back.
std::string Generalise(const std::string& key, const std::string& model) {
  return CallKeyModel(key) == model ? absl::StrCat(key.substr(0, key.size() - model.size()), kSelf) : key;
}
std::string Specialise(const std::string& key, const std::string& model) {
  return CallKeyModel(key) == kSelf ? absl::StrCat(key.substr(0, key.size() - sizeof(kSelf) + 1), model) : key;
}

CallsEstimate FromCounters(const CallCounters& c) {
  return CallsEstimate{static_cast<double>(c.requests), static_cast<double>(c.prompt_tokens),
                       static_cast<double>(c.completion_tokens)};
}

CallsEstimate Scaled(CallsEstimate calls, double factor) { return calls *= factor; }

}  // namespace

CallsEstimate& CallsEstimate::operator+=(const CallsEstimate& other) {
  requests += other.requests;
  prompt_tokens += other.prompt_tokens;
  completion_tokens += other.completion_tokens;
  return *this;
}

CallsEstimate& CallsEstimate::operator*=(double factor) {
  requests *= factor;
  prompt_tokens *= factor;
  completion_tokens *= factor;
  return *this;
}

CallsEstimate CostEstimate::Total() const {
  CallsEstimate total;
  for (const auto& [key, c] : calls) total += c;
  return total;
}

CostEstimate& CostEstimate::operator+=(const CostEstimate& other) {
  for (const auto& [key, c] : other.calls) calls[key] += c;
  dollars += other.dollars;
  for (const auto& [model, d] : other.dollars_by_model) dollars_by_model[model] += d;
  seconds += other.seconds;
  return *this;
}

void CostModel::Learned::Add(const UnitResult& result, const CallStats& unit_calls) {
  const double n = static_cast<double>(result.answers.size());
  units += 1;
  iterations += n;
  pairs += n * (n - 1) / 2;
  for (const auto& [key, counters] : unit_calls) calls[Generalise(key, result.unit.model)] += FromCounters(counters);
}

CostModel::CostModel(const SweepConfig& config) : config_(config) {}

void CostModel::Learn(const UnitResult& result, const CallStats& calls) {
  if (result.stop_reason == kStopError || result.stop_reason == kStopCancelled) return;
  const UnitSpec& u = result.unit;
  learned_[GroupKey(u.benchmark, u.model, u.mode)].Add(result, calls);
  learned_[GroupKey(u.benchmark, kAny, u.mode)].Add(result, calls);
  if (!u.mode.empty()) {
    learned_[GroupKey(u.benchmark, u.model, kAny)].Add(result, calls);
    learned_[GroupKey(u.benchmark, kAny, kAny)].Add(result, calls);
  }
}

const CostModel::Learned* CostModel::Find(const std::string& benchmark, const std::string& model,
                                          const std::string& mode) const {
  auto it = learned_.find(GroupKey(benchmark, model, mode));
  return it == learned_.end() || it->second.units == 0 ? nullptr : &it->second;
}

CostEstimate CostModel::Estimate(const UnitSpec& unit) const {
  return unit.benchmark == kAidanBench ? Aidan(unit) : Novelty(unit);
}

CostEstimate CostModel::Aidan(const UnitSpec& unit) const {
  const AidanBenchConfig* aidan = config_.aidanbench.has_value() ? &*config_.aidanbench : nullptr;
  const Learned* own = Find(unit.benchmark, unit.model, "");
  const Learned* rates = own != nullptr ? own : Find(unit.benchmark, kAny, "");

  // The loop-length prior: mean n and mean n(n-1)/2.
  double n = kDefaultIterations;
  double pairs = n * (n - 1) / 2;
  const auto configured = [&](const std::string& key) -> const double* {
    if (aidan == nullptr) return nullptr;
    auto it = aidan->expected_iterations.find(key);
    return it == aidan->expected_iterations.end() ? nullptr : &it->second;
  };
  if (const double* prior = configured(unit.model) ? configured(unit.model) : configured("")) {
    n = *prior;
    pairs = n * (n - 1) / 2;
  } else if (rates != nullptr) {
    n = rates->iterations / rates->units;
    pairs = rates->pairs / rates->units;
  }
  if (const int cap = aidan != nullptr ? aidan->settings.max_iterations() : 0; cap > 0) {
    n = std::min(n, static_cast<double>(cap));
    pairs = std::min(pairs, cap * (cap - 1) / 2.0);
  }

  std::map<std::string, CallsEstimate> calls;
  if (rates == nullptr || rates->iterations == 0) {
    // Nothing learned: a generate, a judge and an embed call per iteration.
    const int max_tokens = aidan != nullptr ? aidan->settings.max_tokens() : 4000;
    const double answer = std::min(150.0, static_cast<double>(max_tokens));
    const double base = 60 + static_cast<double>(unit.item_text.size()) / 4;
    calls[kGenerateSelf] = CallsEstimate{n, base * n + (answer + 10) * pairs, answer * n};
    calls[absl::StrCat("judge:", config_.judge)] = CallsEstimate{n, (250 + answer) * n, 10 * n};
    calls[absl::StrCat("embed:", config_.embedder)] = CallsEstimate{n, answer * n, 0};
  } else {
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
  }
  return Finish(unit, std::move(calls));
}

CostEstimate CostModel::Novelty(const UnitSpec& unit) const {
  const Learned* learned = Find(unit.benchmark, unit.model, unit.mode);
  if (learned == nullptr) learned = Find(unit.benchmark, unit.model, kAny);
  if (learned == nullptr) learned = Find(unit.benchmark, kAny, unit.mode);
  if (learned == nullptr) learned = Find(unit.benchmark, kAny, kAny);
  std::map<std::string, CallsEstimate> calls;
  if (learned != nullptr) {
    for (const auto& [key, sum] : learned->calls) calls[key] = Scaled(sum, 1 / learned->units);
    return Finish(unit, std::move(calls));
  }
  // Nothing learned: k generations (one request with n = k where the mode allows it), about k
  // partition comparisons, and a quality call per class opener (about half of k).
  const v1::NoveltySettings s =
      config_.noveltybench.has_value() ? config_.noveltybench->settings : DefaultNoveltySettings();
  const double k = s.k();
  const double generation = std::min(200.0, static_cast<double>(s.max_tokens()));
  const double prompt = 30 + static_cast<double>(unit.item_text.size()) / 4;
  const bool one_request = s.ask_n() && (unit.mode == kModeStandard || unit.mode == kModeSystemPrompt);
  const double requests = one_request ? 1 : k;
  calls[kGenerateSelf] = CallsEstimate{requests, prompt * requests, generation * k};
  if (!s.partition_model().empty()) {
    const char* role = s.partitioner() == kPartitionerClassifier  ? "classify"
                       : s.partitioner() == kPartitionerEmbedding ? "embed"
                                                                  : "judge";
    calls[absl::StrCat(role, ":", s.partition_model())] = CallsEstimate{k, 2 * generation * k, 0};
  }
  if (!s.quality_model().empty()) {
    const char* role = s.quality() == kQualityReward ? "reward" : "judge";
    calls[absl::StrCat(role, ":", s.quality_model())] = CallsEstimate{k / 2, (prompt + generation) * k / 2, 0};
  }
  return Finish(unit, std::move(calls));
}

CostEstimate CostModel::Finish(const UnitSpec& unit, std::map<std::string, CallsEstimate> calls) const {
  CostEstimate estimate;
  for (auto& [key, c] : calls) estimate.calls[Specialise(key, unit.model)] = c;
  estimate.dollars_by_model = DollarsByModel(estimate.calls);
  for (const auto& [model, dollars] : estimate.dollars_by_model) estimate.dollars += dollars;
  estimate.seconds = Seconds(estimate.calls);
  return estimate;
}

std::map<std::string, double> CostModel::DollarsByModel(const std::map<std::string, CallsEstimate>& calls) const {
  std::map<std::string, double> dollars;
  for (const auto& [key, c] : calls) {
    if (std::optional<double> d = CallCostUsd(key, c.prompt_tokens, c.completion_tokens, config_.prices)) {
      dollars[CallKeyModel(key)] += *d;
    }
  }
  return dollars;
}

double CostModel::Seconds(const std::map<std::string, CallsEstimate>& calls) const {
  double seconds = 0;
  for (const auto& [key, c] : calls) {
    const bool remote = FindEndpoint(config_.endpoints, CallKeyModel(key)) != nullptr;
    seconds += remote ? c.requests * kRemoteSecondsPerRequest + c.completion_tokens / kRemoteTokensPerSecond
                      : c.requests * kInProcessSecondsPerRequest;
  }
  return seconds;
}

}  // namespace noveltygrid
