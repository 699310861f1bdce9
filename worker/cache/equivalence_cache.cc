#include "worker/cache/equivalence_cache.h"

#include <cmath>
#include <string_view>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/hashing.h"

namespace noveltygrid {

std::string EquivalenceCache::Key(const EquivalenceScope& scope, const std::string& first,
                                  const std::string& candidate) {
  // Two independent 64-bit hashes, as the embedding cache: collisions are out of reach.
  auto hash = [&](std::string_view salt) {
    return StableHasher().Add(salt).Add(scope.context).Add(first).Add(candidate).Finish();
  };
  return absl::StrCat("ng:eq:", scope.kind, ":", scope.model, ":", HexId(hash("eq-a")), HexId(hash("eq-b")));
}

std::string EquivalenceCache::GroupsKey(const EquivalenceScope& scope, const std::vector<std::string>& generations) {
  auto hash = [&](std::string_view salt) {
    StableHasher hasher;
    hasher.Add(salt).Add(scope.context).Add(uint64_t{generations.size()});
    for (const std::string& g : generations) hasher.Add(g);
    return hasher.Finish();
  };
  return absl::StrCat("ng:eqg:", scope.kind, ":", scope.model, ":", HexId(hash("eqg-a")), HexId(hash("eqg-b")));
}

std::optional<std::vector<int>> EquivalenceCache::GetGroups(const EquivalenceScope& scope,
                                                            const std::vector<std::string>& generations) {
  if (generations.empty() || !guard_.Allow()) return std::nullopt;
  absl::StatusOr<std::vector<std::optional<std::string>>> values = store_->MultiGet({GroupsKey(scope, generations)});
  guard_.Record(values.status());
  if (!values.ok() || values->size() != 1 || !values->front().has_value()) return std::nullopt;
  std::vector<int> labels;
  for (absl::string_view item : absl::StrSplit(*values->front(), ',')) {
    int label;
    if (!absl::SimpleAtoi(item, &label) || label < 1) return std::nullopt;  // a foreign value: a miss
    labels.push_back(label);
  }
  if (labels.size() != generations.size()) return std::nullopt;
  return labels;
}

void EquivalenceCache::PutGroups(const EquivalenceScope& scope, const std::vector<std::string>& generations,
                                 const std::vector<int>& labels) {
  if (labels.size() != generations.size() || labels.empty() || !guard_.Allow()) return;
  guard_.Record(store_->MultiSet({{GroupsKey(scope, generations), absl::StrJoin(labels, ",")}}));
}

std::vector<std::optional<double>> EquivalenceCache::GetMany(const EquivalenceScope& scope,
                                                             const std::vector<TextPair>& pairs) {
  std::vector<std::optional<double>> scores(pairs.size());
  if (pairs.empty() || !guard_.Allow()) return scores;
  std::vector<std::string> keys;
  keys.reserve(pairs.size());
  for (const TextPair& pair : pairs) keys.push_back(Key(scope, pair.first, pair.second));
  absl::StatusOr<std::vector<std::optional<std::string>>> values = store_->MultiGet(keys);
  guard_.Record(values.status());
  if (!values.ok() || values->size() != pairs.size()) return scores;
  for (size_t i = 0; i < pairs.size(); ++i) {
    double score;
    // Anything that is not a number (a foreign value under our key) is a miss, overwritten later.
    if ((*values)[i].has_value() && absl::SimpleAtod(*(*values)[i], &score) && std::isfinite(score)) {
      scores[i] = score;
    }
  }
  return scores;
}

void EquivalenceCache::PutMany(const EquivalenceScope& scope, const std::vector<TextPair>& pairs,
                               const std::vector<double>& scores) {
  if (pairs.size() != scores.size() || !guard_.Allow()) return;
  std::vector<std::pair<std::string, std::string>> entries;
  entries.reserve(pairs.size());
  for (size_t i = 0; i < pairs.size(); ++i) {
    if (!std::isfinite(scores[i])) continue;
    entries.emplace_back(Key(scope, pairs[i].first, pairs[i].second), absl::StrFormat("%.17g", scores[i]));
  }
  if (entries.empty()) return;
  guard_.Record(store_->MultiSet(entries));
}

}  // namespace noveltygrid
