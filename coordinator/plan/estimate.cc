#include "coordinator/plan/estimate.h"

#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "common/call_cost.h"
#include "coordinator/benchmarks/registry.h"

namespace noveltygrid {

namespace {

constexpr char kSelf[] = "*self*";  // the unit's own model in a learned key (kGenerateSelf)

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

void Add(const UnitResult& result, const CallStats& unit_calls, LearnedCalls& learned) {
  const double n = static_cast<double>(result.answers.size());
  learned.units += 1;
  learned.iterations += n;
  learned.pairs += n * (n - 1) / 2;
  for (const auto& [key, counters] : unit_calls) {
    learned.calls[Generalise(key, result.unit.model)] += FromCounters(counters);
  }
}

}  // namespace

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

CostModel::CostModel(const SweepConfig& config) : config_(config), benchmarks_(MakeBenchmarks(config)) {}

void CostModel::Learn(const UnitResult& result, const CallStats& calls) {
  if (result.stop_reason == kStopError || result.stop_reason == kStopCancelled) return;
  const UnitSpec& u = result.unit;
  Add(result, calls, learned_[GroupKey(u.benchmark, u.model, u.mode)]);
  Add(result, calls, learned_[GroupKey(u.benchmark, kAnyGroup, u.mode)]);
  if (!u.mode.empty()) {
    Add(result, calls, learned_[GroupKey(u.benchmark, u.model, kAnyGroup)]);
    Add(result, calls, learned_[GroupKey(u.benchmark, kAnyGroup, kAnyGroup)]);
  }
}

const LearnedCalls* CostModel::Find(const std::string& benchmark, const std::string& model,
                                    const std::string& mode) const {
  auto it = learned_.find(GroupKey(benchmark, model, mode));
  return it == learned_.end() || it->second.units == 0 ? nullptr : &it->second;
}

CostEstimate CostModel::Estimate(const UnitSpec& unit) const {
  for (const auto& benchmark : benchmarks_) {
    if (benchmark->name() == unit.benchmark) return Finish(unit, benchmark->ExpectedCalls(unit, *this));
  }
  return CostEstimate{};  // not a benchmark of this sweep: nothing known
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
