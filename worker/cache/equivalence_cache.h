// EquivalenceCache: raw "same idea?" scores of the NoveltyBench partitioners, shared by every worker
// through the Store, so a pair of texts is asked once per partitioner model whoever needs it (a
// resumed unit, a rerun, another sweep with another threshold: thresholds apply after the cache).
//
// Key: (partitioner kind, model id, context, first text, candidate text) -- the context is whatever
// else the score depends on (the llm judge's template and the prompt; empty for the classifier and
// embeddings); context and texts enter as a 128-bit hash, see common/storage/keys.h. Order matters:
// `first` is a class's first member, `candidate` the later generation. Value: the score as decimal
// text ("%.17g", exact). A whole-set decider's entry (llm-groups) is keyed by the scope and all the
// generations in order; its value is their class labels, comma-separated. A store failure never fails the caller:
// lookups then miss, writes are dropped, and StoreGuard prints one warning. Thread-safe.
#ifndef NOVELTYGRID_WORKER_CACHE_EQUIVALENCE_CACHE_H_
#define NOVELTYGRID_WORKER_CACHE_EQUIVALENCE_CACHE_H_

#include <optional>
#include <string>
#include <vector>

#include "common/storage/store.h"
#include "common/storage/store_guard.h"
#include "worker/scorers/scorers.h"

namespace noveltygrid {

// What a score depends on besides the two texts.
struct EquivalenceScope {
  std::string kind;     // "classifier", "embedding", "llm", "llm-groups"
  std::string model;    // the scoring model's id (embeddings: with the dimensions)
  std::string context;  // e.g. the llm judge's template and prompt; empty when nothing else counts
};

class EquivalenceCache {
 public:
  explicit EquivalenceCache(Store* store) : store_(store), guard_("equivalence cache") {}

  // One score per (first, candidate) pair in order; nullopt where missing. One round trip.
  std::vector<std::optional<double>> GetMany(const EquivalenceScope& scope, const std::vector<TextPair>& pairs);
  // Stores scores[i] for pairs[i] (sizes must match; non-finite scores are skipped). One round trip.
  void PutMany(const EquivalenceScope& scope, const std::vector<TextPair>& pairs, const std::vector<double>& scores);

  // The class labels of `generations` (in order) under a whole-set decider; nullopt when missing or
  // not exactly one positive label per generation.
  std::optional<std::vector<int>> GetGroups(const EquivalenceScope& scope, const std::vector<std::string>& generations);
  void PutGroups(const EquivalenceScope& scope, const std::vector<std::string>& generations,
                 const std::vector<int>& labels);

  static std::string Key(const EquivalenceScope& scope, const std::string& first, const std::string& candidate);
  static std::string GroupsKey(const EquivalenceScope& scope, const std::vector<std::string>& generations);

 private:
  Store* const store_;  // not owned
  StoreGuard guard_;
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_WORKER_CACHE_EQUIVALENCE_CACHE_H_
