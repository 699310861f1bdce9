// The NoveltyBench partition (functional equivalence classes), as ../shared/REFERENCE.md defines it:
// greedy in generation order, each generation joins the first existing class whose FIRST member is
// equivalent to it, else opens a new class; classes are numbered 0, 1, ... in order of opening.
//
//   UnigramEquivalence unigram(0.458);
//   std::vector<int> partition = GreedyPartition(prompt, generations, unigram);
//
// Before the predicate is asked, the short-text rule decides pairs of short texts: when the longer of
// the two has at most 5 words (lowercased, whitespace split), they are equivalent iff
// 2 * |set(words a) & set(words b)| >= that word count. (The reference applies the rule in front of its
// classifier only; here every partitioner gets it, as the issue asks, so the partitioners differ only
// on texts longer than five words.)
//
// Pure functions; an Equivalence must be safe to call from the thread running the partition.
#ifndef NOVELTYGRID_COMMON_NOVELTYBENCH_PARTITION_H_
#define NOVELTYGRID_COMMON_NOVELTYBENCH_PARTITION_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"

namespace noveltygrid::noveltybench {

// A pluggable "same idea?" decision for two texts longer than the short-text rule covers.
class Equivalence {
 public:
  virtual ~Equivalence() = default;
  // `first` is a class's first member, `candidate` a later generation; `prompt` is what both answer.
  virtual bool Equivalent(std::string_view prompt, std::string_view first, std::string_view candidate) const = 0;
};

// Python's text.strip().lower().split(), with ASCII lowercasing: non-ASCII letters are kept as they
// are (Python would lowercase them too; it matters only for short texts that differ in the case of a
// non-ASCII letter).
std::vector<std::string> LowercaseWords(std::string_view text);

// The short-text rule: the decision when max(word count) <= 5, else nullopt (ask the predicate).
std::optional<bool> ShortTextEquivalence(std::string_view a, std::string_view b);

// The greedy partition of `generations`: partition[i] is generation i's class. The short-text rule is
// applied first, then `equivalence` against each class's first member, classes in order.
std::vector<int> GreedyPartition(std::string_view prompt, const std::vector<std::string>& generations,
                                 const Equivalence& equivalence);

// GreedyPartition's rule with the predicate on generation indices: `same(first, candidate)` is asked
// (after the short-text rule) with a class's first member and a later generation.
std::vector<int> GreedyPartitionByIndex(const std::vector<std::string>& generations,
                                        absl::FunctionRef<bool(size_t first, size_t candidate)> same);

// Whether the short-text rule decides every pair GreedyPartition could ask about (fewer than two
// generations, or none longer than five words): then the predicate is never asked.
bool ShortTextRuleDecidesAll(const std::vector<std::string>& generations);

// OK when `partition` is in the canonical form GreedyPartition produces: non-empty, starts at 0, and
// every entry is at most one more than the largest before it. Else InvalidArgument saying where.
absl::Status ValidatePartition(const std::vector<int>& partition);

// Whether generation i opens its class (the first generation with its class number).
std::vector<bool> ClassOpeners(const std::vector<int>& partition);

// The number of classes: REFERENCE.md's `distinct`. (The reference's per-row "distinct" field was
// classes - 1 in older code; its summary's mean_distinct counts classes.)
int DistinctCount(const std::vector<int>& partition);

}  // namespace noveltygrid::noveltybench

#endif  // NOVELTYGRID_COMMON_NOVELTYBENCH_PARTITION_H_
